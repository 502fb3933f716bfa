package skeleton_test

import (
	"testing"

	"github.com/treelb/treelb/internal/benchratio"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/skeleton"
)

// childOnly hides a Space's Children: the skeleton expands it with Child.
type childOnly[N any] struct{ skeleton.Space[N] }

// queensApps are the implementations of the same search that the
// benchmarks compare, on 12 queens (856 189 nodes): the skeleton's
// enumeration over boards (the state that handQueens keeps) with Value and
// Combine, with Fold, and expanded by Child (a Space without Children);
// the enumeration over queens, whose nodes carry weightedQueens' score
// too (the Space of this page's measurements before boards); and
// handQueens, the Task written by hand, always last.
var queensApps = []struct {
	name string
	app  func() lb.App
}{
	{"skeleton", func() lb.App { return countBoards(12).NewApp() }},
	{"fold", func() lb.App { return foldBoards(12).NewApp() }},
	{"child", func() lb.App {
		e := countBoards(12)
		e.Space = childOnly[board]{e.Space}
		return e.NewApp()
	}},
	{"queens", func() lb.App { return countQueens(12).NewApp() }},
	{"hand", func() lb.App { return &handQueens{n: 12} }},
}

// search works app's root to its end in slices of 4096 nodes, as a
// balancer's rank works them, and returns the nodes (benchratio.Work).
func search(app lb.App) int64 { return benchratio.Work(app) }

// BenchmarkQueens measures the node rate of each implementation: ns/node
// of wall time.
func BenchmarkQueens(b *testing.B) {
	for _, c := range queensApps {
		b.Run(c.name, func(b *testing.B) {
			var nodes int64
			for b.Loop() {
				nodes += search(c.app())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(nodes), "ns/node")
		})
	}
}

// BenchmarkQueensRatio runs every implementation in each iteration, in
// turn (in reverse order every other iteration), and reports the CPU time
// per node of each (process CPU time, less disturbed than wall time on a
// shared machine) and their ratios to the hand-written Task's: ratio is
// the skeleton's (boards, Value and Combine) over the hand-written Task's,
// the generality cost that docs/skeleton.md reports, fold-ratio,
// child-ratio and queens-ratio the same for the other skeleton searches.
func BenchmarkQueensRatio(b *testing.B) {
	k := len(queensApps)
	names := make([]string, k)
	for j, c := range queensApps {
		names[j] = c.name
	}
	byName := benchratio.Alternate(b, names, func(j int) int64 { return search(queensApps[j].app()) })
	ns := make([]float64, k)
	for j, name := range names {
		ns[j] = byName[name]
	}
	hand := ns[k-1]
	b.ReportMetric(ns[0]/hand, "ratio")
	for j, c := range queensApps[1 : k-1] {
		b.ReportMetric(ns[j+1]/hand, c.name+"-ratio")
	}
}
