package skeleton_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
)

// queensApps are the two implementations of the same search that the
// benchmarks compare: the skeleton's enumeration and the hand-written
// Task, on 12 queens (856 189 nodes).
var queensApps = []struct {
	name string
	app  func() lb.App
}{
	{"skeleton", func() lb.App { return countBoards(12).NewApp() }},
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

// BenchmarkQueensRatio alternates the two implementations within each
// iteration and reports the CPU time per node of each (process CPU time,
// less disturbed than wall time on a shared machine) and their ratio,
// skeleton over hand: the generality cost of the skeleton that
// docs/skeleton.md reports.
func BenchmarkQueensRatio(b *testing.B) {
	var cpu [2]time.Duration
	var nodes [2]int64
	for b.Loop() {
		for i, c := range queensApps {
			t0 := cpuTime()
			nodes[i] += search(c.app())
			cpu[i] += cpuTime() - t0
		}
	}
	skel := float64(cpu[0].Nanoseconds()) / float64(nodes[0])
	hand := float64(cpu[1].Nanoseconds()) / float64(nodes[1])
	b.ReportMetric(skel, "skeleton-cpu-ns/node")
	b.ReportMetric(hand, "hand-cpu-ns/node")
	b.ReportMetric(skel/hand, "ratio")
}
