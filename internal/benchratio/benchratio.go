// Package benchratio runs the "ratio" benchmarks that measure what a
// generic implementation costs against a hand-written one on the same
// search (package skeleton's N-queens, UTS and integrate on the skeleton,
// docs/skeleton.md): every implementation once an iteration, in turn, in
// reverse order every other iteration, timed by the process's CPU time (on
// a shared machine less disturbed than wall time).
package benchratio

import (
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
)

// Slice is the budget of Work's calls: what a rank's slice might be.
const Slice = 4096

// Work works app's root to its end in slices of Slice nodes, as a
// balancer's rank works a task, and returns the nodes its Work calls
// counted.
func Work(app lb.App) int64 {
	var nodes int64
	for t := app.Root(); !t.Empty(); {
		nodes += t.Work(Slice)
	}
	return nodes
}

// CPUTime returns the CPU time, user and system, that this process has
// used; 0 where getrusage fails.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Alternate runs run(0) … run(k−1), k = len(names), once in every
// iteration of b's loop, in reverse order every other iteration, reports
// each one's CPU nanoseconds per node (its CPU time over the nodes its runs
// returned) as the metric NAME-cpu-ns/node, and returns them by name. run
// fails b itself where a run counts the wrong nodes.
func Alternate(b *testing.B, names []string, run func(j int) int64) map[string]float64 {
	k := len(names)
	cpu := make([]time.Duration, k)
	nodes := make([]int64, k)
	for i := 0; b.Loop(); i++ {
		for j := range k {
			if i%2 == 1 {
				j = k - 1 - j
			}
			t0 := CPUTime()
			n := run(j)
			cpu[j] += CPUTime() - t0
			nodes[j] += n
		}
	}
	ns := make(map[string]float64, k)
	for j, name := range names {
		ns[name] = float64(cpu[j].Nanoseconds()) / float64(max(nodes[j], 1))
		b.ReportMetric(ns[name], name+"-cpu-ns/node")
	}
	return ns
}
