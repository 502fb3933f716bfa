package lbtest

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/treelb/treelb/lb"
)

// LargeP runs f as a parallel subtest for every registered balancer on 1024
// and 4096 simulated ranks (4096 only for rp under -short), the scale tests
// of the apps; cfg is the balancer with static placement cut to ⌈log₂ P⌉+2
// levels, whose default (up to ⌈log₂ P⌉+10) makes 2^22 leaves at 4096
// ranks, seconds of splitting to simulate.
func LargeP(t *testing.T, budget int64, seed uint64, f func(t *testing.T, cfg lb.Config, p int)) {
	for _, info := range lb.Balancers() {
		for _, p := range []int{1024, 4096} {
			if p > 1024 && testing.Short() && info.Name != "rp" {
				continue
			}
			t.Run(fmt.Sprintf("%s/P=%d", info.Name, p), func(t *testing.T) {
				t.Parallel()
				f(t, lb.Config{Balancer: info.New, Budget: budget, Seed: seed, Options: lb.Options{SplitLevels: bits.Len(uint(p-1)) + 2}}, p)
			})
		}
	}
}
