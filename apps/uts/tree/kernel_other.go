//go:build !amd64 || purego

package tree

// The vector kernels exist only for amd64.
const hasAVX512, hasAVX2 = false, false

func sha1x16(out *[5][lanes]uint32, in *[6][lanes]uint32) {
	panic("tree: sha1x16 without AVX-512")
}

func sha1x8(out, in *uint32) { panic("tree: sha1x8 without AVX2") }
