package skeleton_test

import (
	"syscall"
	"testing"
	"time"

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
// balancer's rank works them, and returns the nodes.
func search(app lb.App) int64 {
	var nodes int64
	for t := app.Root(); !t.Empty(); {
		nodes += t.Work(4096)
	}
	return nodes
}

// cpuTime is the CPU time of the process, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
	cpu := make([]time.Duration, k)
	nodes := make([]int64, k)
	for i := 0; b.Loop(); i++ {
		for j := range k {
			if i%2 == 1 {
				j = k - 1 - j
			}
			t0 := cpuTime()
			nodes[j] += search(queensApps[j].app())
			cpu[j] += cpuTime() - t0
		}
	}
	ns := make([]float64, k)
	for j, c := range queensApps {
		ns[j] = float64(cpu[j].Nanoseconds()) / float64(nodes[j])
		b.ReportMetric(ns[j], c.name+"-cpu-ns/node")
	}
	hand := ns[k-1]
	b.ReportMetric(ns[0]/hand, "ratio")
	for j, c := range queensApps[1 : k-1] {
		b.ReportMetric(ns[j+1]/hand, c.name+"-ratio")
	}
}
