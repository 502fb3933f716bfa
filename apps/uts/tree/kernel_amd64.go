//go:build amd64 && !purego

//go:generate go run gen_sha1.go

package tree

// sha1x16 sets out[w][j] to word w of SHA-1 of lane j's message: the
// big-endian words in[0..5][j] (24 bytes). It needs AVX-512F.
//
//go:noescape
func sha1x16(out *[5][lanes]uint32, in *[6][lanes]uint32)

// sha1x8 is sha1x16 for the eight lanes starting at out and in, in rows of
// 16 words. It needs AVX2.
//
//go:noescape
func sha1x8(out, in *uint32)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv() (a, d uint32)

// The vector extensions that the processor and the operating system
// support; set once at start and never changed.
var hasAVX512, hasAVX2 = detect()

// detect reads CPUID leaf 7 and the register state the operating system
// saves (XCR0).
func detect() (avx512, avx2 bool) {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false, false
	}
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 { // OSXSAVE
		return false, false
	}
	xcr0, _ := xgetbv()
	_, b7, _, _ := cpuid(7, 0)
	const ymm = 1<<1 | 1<<2              // SSE and AVX state
	const zmm = ymm | 1<<5 | 1<<6 | 1<<7 // and opmask, ZMM upper halves, ZMM16–31
	avx2 = xcr0&ymm == ymm && b7&(1<<5) != 0
	avx512 = xcr0&zmm == zmm && b7&(1<<16) != 0 // AVX512F
	return avx512, avx2
}
