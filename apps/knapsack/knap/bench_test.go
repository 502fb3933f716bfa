package knap

import (
	"fmt"
	"testing"
)

// BenchmarkSolve runs both searches on seed 002's class, m = 2000, the ten
// seeds of the comparison with expknap (go run ./scripts/campaign -preset
// expknap, which measures expknap beside them). Seeds 4, 5 and 6 take seconds; select with
// e.g. -bench 'Solve/core/seed=(1|8|9)$'.
func BenchmarkSolve(b *testing.B) {
	for _, s := range []Search{Core, HS} {
		for seed := uint64(1); seed <= 10; seed++ {
			in, err := Generate(GenConfig{Class: Sanders, M: 2000, Seed: seed})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%v/seed=%d", s, seed), func(b *testing.B) {
				var r Result
				for b.Loop() {
					if r, err = Solve(in, s); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Nodes), "nodes")
				b.ReportMetric(float64(r.Nodes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
			})
		}
	}
}

// BenchmarkWorkSlices measures the cost of working in slices of 10^4
// nodes, as a balancer does, against one call (BenchmarkSolve), on seed 9.
func BenchmarkWorkSlices(b *testing.B) {
	in, err := Generate(GenConfig{Class: Sanders, M: 2000, Seed: 9})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []Search{Core, HS} {
		b.Run(s.String(), func(b *testing.B) {
			var nodes int64
			for b.Loop() {
				a, err := NewApp(in, s)
				if err != nil {
					b.Fatal(err)
				}
				t := a.Root()
				for !t.Empty() {
					t.Work(10_000)
				}
				nodes = a.Result().Nodes
			}
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}
