package driver

import (
	"testing"
	"time"
)

// TestPauseBoundsRequestRate: the longest pause of request throttling
// grows with the ranks per core, so that the idle ranks' requests together
// never exceed cores/pausePerRank a second, whatever the number of ranks
// (the rate bound that keeps the embedded world's time per rank flat from
// 1024 to 65536 ranks, issue 23); and it never falls below 2 ms.
func TestPauseBoundsRequestRate(t *testing.T) {
	for _, cores := range []int{1, 2, 16, 64} {
		bound := float64(cores) / pausePerRank.Seconds() // requests per second
		for size := cores + 1; size <= 1<<20; size *= 2 {
			p := maxPauseFor(size, cores)
			if p < 2*time.Millisecond {
				t.Fatalf("%d ranks on %d cores: longest pause %v, below 2 ms", size, cores, p)
			}
			// Every idle rank waits at least the longest pause between two
			// requests once its pause has doubled up to it.
			rate := float64(size) / p.Seconds()
			if rate > bound*(1+float64(cores)/float64(size)) {
				t.Fatalf("%d ranks on %d cores: longest pause %v lets the idle ranks send %.0f requests/s, above %.0f",
					size, cores, p, rate, bound)
			}
		}
	}
}
