package hashtable

import "testing"

// BenchmarkSimRun: one run of the counting model at p = 4096, q = 144
// (m = 589,824 buckets, α = β = 4); reports nanoseconds per bucket.
func BenchmarkSimRun(b *testing.B) {
	for _, model := range []SimModel{SimBernoulli, SimPoisson} {
		b.Run(model.String(), func(b *testing.B) {
			const p, q = 4096, 144
			s := newSimScratch(p*q, SimParams{Alpha: 4, Beta: 4, Runs: 2, Model: model})
			for i := 0; b.Loop(); i++ {
				s.run(p, q, uint64(i))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p*q), "ns/bucket")
		})
	}
}
