package ruler

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/treelb/treelb/lb"
)

// BenchmarkSimulator measures the simulated world against the sequential
// solver on the exhaustive count of n-mark rulers up to the optimal length
// (n = 12 by default, 7.6·10⁷ nodes; TREELB_BENCH_MARKS=13 for the 13-mark
// count of the issue, 1.5·10⁹ nodes): the sequential count, then random
// polling on 1024, 4096 and 16384 simulated ranks of the cluster machine,
// doing the same nodes. Compare the ns/op of the sub-benchmarks measured
// in one run; the simulated ones also report the simulator's events per
// second. scripts/sim-bench.sh runs the whole command instead and prints
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
		for b.Loop() {
			if got, _ := CountRulers(n, g, maxLen); got.Nodes != want.Nodes {
				b.Fatalf("%d nodes, want %d", got.Nodes, want.Nodes)
			}
		}
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
			for b.Loop() {
				w, err := lb.NewSim(p, lb.SimConfig{Seed: 1, Machine: mi.For("golomb")})
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
			b.ReportMetric(float64(events)/real, "events/s")
		})
	}
}
