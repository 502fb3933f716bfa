package lbtest

import (
	"fmt"
	"math/bits"
	"strconv"
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
				f(t, lb.Config{Balancer: info.New, Budget: budget, Seed: seed,
					Options: WithOption(info, nil, "levels", strconv.Itoa(bits.Len(uint(p-1))+2))}, p)
			})
		}
	}
}

// EmbeddedP is the rank count of the embedded-world scale tests: goroutine
// ranks in one process, as `--np 1024` runs them.
const EmbeddedP = 1024

// LargeEmbedded runs f as a subtest for every registered balancer on
// EmbeddedP goroutine ranks of the embedded world, one balancer at a time
// (each subtest runs a whole world of ranks; under -short only rp's, the
// others cost seconds each of throttled polling); cfg is the balancer with
// static placement cut to ⌈log₂ P⌉+1 levels (its default makes 2^20 leaves
// at 1024 ranks, twenty seconds of splitting on two cores: the protocol,
// not the splitting, is what these tests check).
func LargeEmbedded(t *testing.T, budget int64, seed uint64, f func(t *testing.T, cfg lb.Config, p int)) {
	for _, info := range lb.Balancers() {
		if testing.Short() && info.Name != "rp" {
			continue
		}
		t.Run(fmt.Sprintf("%s/P=%d", info.Name, EmbeddedP), func(t *testing.T) {
			f(t, lb.Config{Balancer: info.New, Budget: budget, Seed: seed,
				Options: WithOption(info, nil, "levels", strconv.Itoa(bits.Len(uint(EmbeddedP-1))+1))}, EmbeddedP)
		})
	}
}
