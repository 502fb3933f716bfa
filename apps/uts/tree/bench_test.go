package tree

import (
	"crypto/sha1"
	"fmt"
	"strings"
	"testing"

	"github.com/treelb/treelb/internal/benchratio"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/skeleton"
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

// skeletonApps are the implementations of one search that
// BenchmarkSkeletonRatio compares on a tree: the skeleton's enumeration
// (utsSpace, skeleton_test.go) with Children and Fold, hashing with the
// best kernel (AVX-512 where the processor has it) and with crypto/sha1,
// the enumeration of groups of up to 64 nodes (groupSpace, best kernel),
// the same without Children (Child, crypto/sha1: ChildState a child), and
// Search, the Task written by hand, with the same two kernels.
var skeletonApps = []struct {
	name string
	app  func(t *Tree) lb.App
}{
	{"skeleton", func(t *Tree) lb.App { return skeletonUTS(t, BestKernel(), true).NewApp() }},
	{"group", func(t *Tree) lb.App { return groupUTS(t, BestKernel()).NewApp() }},
	{"skeleton-crypto", func(t *Tree) lb.App { return skeletonUTS(t, CryptoSHA1, true).NewApp() }},
	{"child-crypto", func(t *Tree) lb.App { return skeletonUTS(t, CryptoSHA1, false).NewApp() }},
	{"hand", func(t *Tree) lb.App { return NewApp(t) }},
	{"hand-crypto", func(t *Tree) lb.App {
		a := NewApp(t)
		if err := a.SetKernel(CryptoSHA1); err != nil {
			panic(err)
		}
		return a
	}},
}

// searchApp works app's root to its end in slices of 4096 nodes, as a
// balancer's rank works them, and returns the tree's nodes that it
// counted (its result's, not Work's count: groupSpace's Work counts
// groups).
func searchApp(app lb.App) int64 {
	benchratio.Work(app)
	switch a := app.(type) {
	case *App:
		return a.Result().Nodes
	case lb.Reducer[skeleton.Count[Counts]]:
		return a.Result().Value.Nodes
	}
	panic(fmt.Sprintf("searchApp: %T", app))
}

// BenchmarkSkeletonRatio measures the generality cost of package skeleton
// on a shipped app, as skeleton's BenchmarkQueensRatio does on N-queens:
// on the sample trees T1 (geometric) and T3 (binomial), every iteration
// runs every implementation of skeletonApps in turn (in reverse order
// every other iteration) and the benchmark reports the CPU time per node
// of each (process CPU time, less disturbed than wall time on a shared
// machine) and the ratios: ratio is skeleton/hand (both with the best
// kernel), group-ratio group/hand, crypto-ratio skeleton-crypto/hand-crypto, child-ratio
// child-crypto/hand-crypto.
func BenchmarkSkeletonRatio(b *testing.B) {
	for _, name := range []string{"T1", "T3"} {
		b.Run(name, func(b *testing.B) {
			s, _ := SampleNamed(name)
			tr := MustNew(s.Params())
			names := make([]string, len(skeletonApps))
			for j, a := range skeletonApps {
				names[j] = a.name
			}
			ns := benchratio.Alternate(b, names, func(j int) int64 {
				n := searchApp(skeletonApps[j].app(tr))
				if n != s.Nodes {
					b.Fatalf("%s on %s: %d nodes, not %d", skeletonApps[j].name, name, n, s.Nodes)
				}
				return n
			})
			b.ReportMetric(ns["skeleton"]/ns["hand"], "ratio")
			b.ReportMetric(ns["group"]/ns["hand"], "group-ratio")
			b.ReportMetric(ns["skeleton-crypto"]/ns["hand-crypto"], "crypto-ratio")
			b.ReportMetric(ns["child-crypto"]/ns["hand-crypto"], "child-ratio")
		})
	}
}
