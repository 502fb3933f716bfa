package lb

import (
	"slices"
	"testing"

	"github.com/treelb/treelb/lb/perm"
)

// TestStaticSeeded checks that static placement draws its permutation π
// from the run's seed (seed 000 §4, Theorems 2–3; seed 001 Fig. 1: the
// guarantees hold for a random π, which an adversary that knows a fixed
// one defeats): every rank of a run draws the same π, and other seeds draw
// other permutations, for every kind.
func TestStaticSeeded(t *testing.T) {
	const k = 10
	order := func(kind string, seed uint64, rank int) []uint64 {
		l, err := newLeaves(Env{Rank: rank, Size: 8, Seed: seed}, k, kind, func(error) {})
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for it := perm.Walk(l.pi, 0); ; {
			v, ok := it.Next()
			if !ok {
				return out
			}
			out = append(out, v)
		}
	}
	for _, kind := range perm.Kinds() {
		base := order(kind, 1, 0)
		if len(base) != 1<<k {
			t.Fatalf("%s: π of %d leaves, want %d", kind, len(base), 1<<k)
		}
		if again := order(kind, 1, 5); !slices.Equal(again, base) {
			t.Errorf("%s: ranks 0 and 5 of one run drew different permutations", kind)
		}
		distinct := 0
		for seed := uint64(2); seed <= 6; seed++ {
			if !slices.Equal(order(kind, seed, 0), base) {
				distinct++
			}
		}
		if distinct < 4 {
			t.Errorf("%s: only %d of seeds 2..6 drew a permutation other than seed 1's: π does not follow the seed", kind, distinct)
		}
	}
}
