package tree

import (
	"crypto/sha1"
	"strings"
	"testing"
)

// benchWork generates b.N nodes of a sample tree, starting it again when
// it is exhausted, and reports nodes per second.
func benchWork(b *testing.B, name string, k Kernel) {
	s, _ := SampleNamed(name)
	tr := MustNew(s.Params())
	var c Counts
	x := tr.NewSearch(&c)
	x.kernel = k
	b.ReportAllocs()
	b.ResetTimer()
	for n := int64(0); n < int64(b.N); {
		if x.Empty() {
			x = tr.NewSearch(&c)
			x.kernel = k
		}
		n += x.Work(min(int64(b.N)-n, 1<<16))
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkWork measures node generation on the geometric T1L and the
// binomial T3L: each op is one node (its hash and its count of children).
func BenchmarkWork(b *testing.B) {
	for _, n := range []string{"T1L", "T3L"} {
		for _, k := range supportedKernels() {
			b.Run(n+"/"+strings.ReplaceAll(k.String(), "/", "-"), func(b *testing.B) { benchWork(b, n, k) })
		}
	}
}

// BenchmarkHash16 measures hashing sixteen children: the AVX-512 kernel,
// the AVX2 kernel twice, and sixteen calls of crypto/sha1.
func BenchmarkHash16(b *testing.B) {
	var bt batch
	for w := range 6 {
		for j := range lanes {
			bt.in[w][j] = uint32(w*lanes + j)
		}
	}
	if hasAVX512 {
		b.Run("avx512", func(b *testing.B) {
			for range b.N {
				sha1x16(&bt.out, &bt.in)
				bt.in[5][0] = bt.out[0][0]
			}
		})
	}
	if hasAVX2 {
		b.Run("avx2", func(b *testing.B) {
			for range b.N {
				sha1x8(&bt.out[0][0], &bt.in[0][0])
				sha1x8(&bt.out[0][8], &bt.in[0][8])
				bt.in[5][0] = bt.out[0][0]
			}
		})
	}
	b.Run("crypto-sha1", func(b *testing.B) {
		var msg [24]byte
		for range b.N {
			for j := range lanes {
				msg[23] = byte(j)
				d := sha1.Sum(msg[:])
				msg[0] = d[0]
			}
		}
	})
}
