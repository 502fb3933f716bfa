package ruler

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/sim"
)

// BenchmarkSimulator measures the simulated world against the sequential
// solver on the exhaustive count of n-mark rulers up to the optimal length
// (n = 12 by default, 7.6·10⁷ nodes; TREELB_BENCH_MARKS=13 for the 13-mark
// count of the issue, 1.5·10⁹ nodes): the sequential count, then random
// polling on 1024, 4096 and 16384 simulated ranks of the cluster machine,
// doing the same nodes. Compare the ns/op, and the CPU seconds per op
// (steadier on a shared machine), of the sub-benchmarks measured in one
// run; the simulated ones also report the simulator's events per second. scripts/sim-bench.sh runs the whole command instead and prints
// the ratios, the load averages and the memory per rank.
func BenchmarkSimulator(b *testing.B) {
	n := 12
	if s := os.Getenv("TREELB_BENCH_MARKS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 3 || v > 14 {
			b.Fatalf("TREELB_BENCH_MARKS=%q: need 3 to 14", s)
		}
		n = v
	}
	known, err := Known()
	if err != nil {
		b.Fatal(err)
	}
	g := make([]int, n)
	for m := 1; m < n; m++ {
		g[m] = known[m][m-1]
	}
	maxLen := known[n][n-1]
	want, err := CountRulers(n, g, maxLen)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("seq", func(b *testing.B) {
		c0, runs := cpuSeconds(), 0
		for b.Loop() {
			if got, _ := CountRulers(n, g, maxLen); got.Nodes != want.Nodes {
				b.Fatalf("%d nodes, want %d", got.Nodes, want.Nodes)
			}
			runs++
		}
		b.ReportMetric((cpuSeconds()-c0)/float64(runs), "cpu-s/op")
		b.ReportMetric(float64(want.Nodes), "nodes")
	})
	mi, err := lb.LookupMachine("cluster")
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []int{1024, 4096, 16384} {
		b.Run(fmt.Sprintf("sim/P=%d", p), func(b *testing.B) {
			var events int64
			var real float64
			c0, runs := cpuSeconds(), 0
			for b.Loop() {
				runs++
				w, err := sim.New(p, sim.Config{Seed: 1, Machine: mi.For(NodeCosts())})
				if err != nil {
					b.Fatal(err)
				}
				got, out, err := CountParallel(w, n, g, maxLen, lb.Config{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if got.Nodes != want.Nodes || got.Solutions != want.Solutions {
					b.Fatalf("%d nodes %d rulers, want %d and %d", got.Nodes, got.Solutions, want.Nodes, want.Solutions)
				}
				events += out.Sim.Events
				real += out.Sim.RealSeconds
			}
			b.ReportMetric((cpuSeconds()-c0)/float64(runs), "cpu-s/op")
			b.ReportMetric(float64(events)/real, "events/s")
		})
	}
}

// cpuSeconds returns the CPU time (user and system) of this process: on a
// shared machine, a steadier measure than the wall time of ns/op.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkHalve measures what static placement pays per leaf and the
// simulator's --split-ns stands for: a re-rooted search of the 12-mark
// count up to length 75 (the scale campaign's instance) halved k = 20 times
// along the bits of a leaf index, against the cost of a node of the same
// search. It reports ns per halving, ns per node and their ratio.
func BenchmarkHalve(b *testing.B) {
	known, err := Known()
	if err != nil {
		b.Fatal(err)
	}
	const n, maxLen, k = 12, 75, 20
	g := make([]int, n)
	for m := 1; m < n; m++ {
		g[m] = known[m][m-1]
	}
	p, err := NewProblem(n, g, Count, maxLen)
	if err != nil {
		b.Fatal(err)
	}
	s := p.Root().(*Search)
	var halvings int64
	leaf := uint64(0x9e3779b97f4a7c15) // leaf indices stepped by a large odd constant: all paths alike
	for b.Loop() {
		s.Reroot()
		for i := range k {
			if s.Empty() {
				break
			}
			if !s.Halve(leaf>>i&1 == 1) {
				break
			}
			halvings++
		}
		leaf += 0x9e3779b97f4a7c15
	}
	perHalving := float64(b.Elapsed().Nanoseconds()) / float64(halvings)
	b.StopTimer()
	start := time.Now()
	out, err := CountRulers(n, g, maxLen)
	if err != nil {
		b.Fatal(err)
	}
	perNode := float64(time.Since(start).Nanoseconds()) / float64(out.Nodes)
	b.ReportMetric(perHalving, "ns/halving")
	b.ReportMetric(perNode, "ns/node")
	b.ReportMetric(perHalving/perNode, "halving/node")
}
