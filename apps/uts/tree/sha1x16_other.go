//go:build !amd64 || purego

package tree

// hasAVX512 is false: the 16-lane kernel exists only for amd64.
const hasAVX512 = false

// sha1x16 is never called without AVX-512.
func sha1x16(out *[5][16]uint32, in *[6][16]uint32) {
	panic("tree: sha1x16 without AVX-512")
}
