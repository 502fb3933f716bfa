package driver_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// BenchmarkEmbeddedScale runs one small exhaustive tree (lbtest's, depth
// 16: about 10⁵ nodes, a few milliseconds of work) by random polling on P
// goroutine ranks of the embedded world, P from 1024 to 65536, and reports
// the wall time per rank (ns/rank) and the bytes allocated per rank
// (B/rank): the run is all start, work distribution and termination, so
// the figures show what a rank costs the process. Flat means linear in P; before issue 23 it grew with P beyond
// 2000 ranks per core (the request-throttling pause had an upper bound, so
// the idle ranks' requests grew with P and starved the busy ones). It takes
// minutes at the top sizes:
//
//	go test -run '^$' -bench EmbeddedScale -benchtime 1x ./lb/driver
func BenchmarkEmbeddedScale(b *testing.B) {
	want := lbtest.Sequential(7, 16, lbtest.Count).Nodes
	for _, p := range []int{1024, 4096, 16384, 65536} {
		b.Run(fmt.Sprintf("P=%d", p), func(b *testing.B) {
			var per time.Duration
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range b.N {
				start := time.Now()
				err := mpi.Run(p, func(c *mpi.Comm) error {
					got, _, err := lb.Run(driver.New(c), lb.Config{Seed: 1}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(7, 16, lbtest.Count) })
					if err == nil && got.Nodes != want {
						err = fmt.Errorf("%d nodes, want %d", got.Nodes, want)
					}
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				per += time.Since(start) / time.Duration(p)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(per.Nanoseconds())/float64(b.N), "ns/rank")
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N*p), "B/rank")
		})
	}
}
