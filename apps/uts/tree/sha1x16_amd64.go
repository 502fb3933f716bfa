//go:build amd64 && !purego

//go:generate go run gen_sha1x16.go

package tree

// sha1x16 sets out[w][j] to word w of SHA-1 of lane j's message: the
// big-endian words in[0..5][j] (24 bytes). It needs AVX-512F.
//
//go:noescape
func sha1x16(out *[5][16]uint32, in *[6][16]uint32)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

func xgetbv() (a, d uint32)

// hasAVX512 reports whether the processor and the operating system support
// AVX-512F (CPUID leaf 7 and the ZMM state enabled in XCR0). It is set once
// at start and never changed.
var hasAVX512 = detectAVX512()

func detectAVX512() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	if c1&(1<<27) == 0 { // OSXSAVE
		return false
	}
	xcr0, _ := xgetbv()
	const want = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7 // SSE, AVX, opmask, ZMM upper halves, ZMM16–31
	if xcr0&want != want {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<16) != 0 // AVX512F
}
