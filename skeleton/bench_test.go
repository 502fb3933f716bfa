package skeleton_test

import (
	"testing"

	"github.com/treelb/treelb/lb"
)

// BenchmarkQueens measures the skeleton's node rate against the
// hand-written Task of the same search (12 queens, 856 189 nodes, worked
// sequentially in slices of 4096 nodes as a balancer's rank works them):
// ns/node is the figure docs/skeleton.md reports.
func BenchmarkQueens(b *testing.B) {
	const n = 12
	for _, c := range []struct {
		name string
		app  func() lb.App
	}{
		{"skeleton", func() lb.App { return countQueens(n).NewApp() }},
		{"hand", func() lb.App { return &handQueens{n: n} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var nodes int64
			for b.Loop() {
				for t := c.app().Root(); !t.Empty(); {
					nodes += t.Work(4096)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(nodes), "ns/node")
		})
	}
}
