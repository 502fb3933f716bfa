package tree

import "fmt"

// Kernel is a way of hashing children.
type Kernel int

const (
	// CryptoSHA1 hashes one child at a time with crypto/sha1 (which uses
	// the SHA extensions where the processor has them).
	CryptoSHA1 Kernel = iota
	// AVX2 hashes eight children at once with AVX2 instructions.
	AVX2
	// AVX512 hashes sixteen children at once with AVX-512F instructions.
	AVX512
)

var kernelNames = [...]string{"crypto/sha1", "avx2", "avx512"}

// String returns the kernel's name.
func (k Kernel) String() string { return enumName(kernelNames[:], int(k), "Kernel") }

// ParseKernel returns the kernel of a name: avx512, avx2 or crypto/sha1.
func ParseKernel(name string) (Kernel, error) {
	for i, n := range kernelNames {
		if n == name {
			return Kernel(i), nil
		}
	}
	return 0, fmt.Errorf("uts: unknown kernel %q (avx512, avx2 or crypto/sha1)", name)
}

// Supported reports whether this processor and operating system can run
// the kernel.
func (k Kernel) Supported() bool {
	switch k {
	case AVX512:
		return hasAVX512
	case AVX2:
		return hasAVX2
	}
	return k == CryptoSHA1
}

// BestKernel returns the kernel searches use by default, the fastest one
// supported: AVX512, else AVX2, else CryptoSHA1.
func BestKernel() Kernel {
	for k := AVX512; k > CryptoSHA1; k-- {
		if k.Supported() {
			return k
		}
	}
	return CryptoSHA1
}

// Check returns an error unless this processor and operating system can
// run the kernel.
func (k Kernel) Check() error {
	if !k.Supported() {
		return fmt.Errorf("uts: kernel %v: not supported by this processor or system", k)
	}
	return nil
}

// SetKernel makes the search hash with k, which must be supported.
func (s *Search) SetKernel(k Kernel) error {
	if err := k.Check(); err != nil {
		return err
	}
	s.kernel = k
	return nil
}

// hash computes the first k lanes of the batch.
func (s *Search) hash(k int) {
	b := s.b
	switch s.kernel {
	case AVX512:
		sha1x16(&b.out, &b.in)
	case AVX2:
		sha1x8(&b.out[0][0], &b.in[0][0])
		if k > 8 {
			sha1x8(&b.out[0][8], &b.in[0][8])
		}
	default:
		for j := range k {
			c := ChildState(State{b.in[0][j], b.in[1][j], b.in[2][j], b.in[3][j], b.in[4][j]}, int(b.in[5][j]))
			for w := range 5 {
				b.out[w][j] = c[w]
			}
		}
	}
}
