package lbtest

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// Chain is a search run from checkpoint to checkpoint by ResumeChain. The
// zero value of a field means none.
type Chain[R any] struct {
	// First runs the first stretch of the search on w, collectively.
	First func(w lb.World, cfg lb.Config) (R, *lb.Outcome, error)
	// Rest runs the later stretches, each from cfg.Resume; nil means First.
	Rest func(w lb.World, cfg lb.Config) (R, *lb.Outcome, error)
	// Suspended, when set, checks each checkpoint (rank 0's).
	Suspended func(s *lb.Suspended) error
}

// ResumeChain runs c under v with work slices of budget nodes: the first
// stretch on 3 simulated ranks until a poll of Config.CheckpointDue chosen
// by rng (at most maxPolls; when the search ends before it, again with half
// as many polls, down to the first) suspends it, then from that checkpoint on 2
// goroutine ranks of the embedded world until another random poll (or the
// end), then from the last checkpoint to the end on 7 simulated ranks. It
// returns the last stretch's result, which includes the earlier ones'
// (lb.Run combines the partial result). It fails t when the first stretch
// is not suspended or a stretch or a check fails. The embedded stretch
// needs the embedded build of package mpi.
func ResumeChain[R any](t testing.TB, v Variant, budget int64, rng *rand.Rand, maxPolls int, c Chain[R]) R {
	t.Helper()
	rest := c.Rest
	if rest == nil {
		rest = c.First
	}
	check := func(s *lb.Suspended) {
		t.Helper()
		t.Logf("suspended after %d nodes, %d open tasks", s.Nodes, len(s.Tasks))
		if c.Suspended != nil {
			if err := c.Suspended(s); err != nil {
				t.Fatalf("the checkpoint after %d nodes: %v", s.Nodes, err)
			}
		}
	}
	w, err := sim.New(3, sim.Config{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	var sus *lb.Suspended
	for polls := 1 + rng.IntN(maxPolls); ; polls /= 2 {
		cfg := v.Config(budget, 1)
		cfg.CheckpointDue = DueAfter(polls)
		_, _, err = c.First(w, cfg)
		if errors.As(err, &sus) {
			break
		}
		if err != nil || polls == 1 {
			t.Fatalf("not suspended at poll %d: %v", polls, err)
		}
	}
	check(sus)
	polls, next := 1+rng.IntN(maxPolls), sus
	err = mpi.Run(2, func(comm *mpi.Comm) error {
		cfg := v.Config(budget, 2)
		cfg.Resume, cfg.CheckpointDue = sus, DueAfter(polls)
		_, _, err := rest(driver.New(comm), cfg)
		var again *lb.Suspended
		switch {
		case errors.As(err, &again):
			if comm.Rank() == 0 {
				next = again
			}
		case err != nil:
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if next != sus {
		sus = next
		check(sus)
	}
	w, err = sim.New(7, sim.Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := v.Config(budget, 3)
	cfg.Resume = sus
	res, _, err := rest(w, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// ResumeVariants runs c from checkpoint to checkpoint (ResumeChain) under
// every variant (Variants; under -short ShortVariants), each in a subtest with its own random polls
// (from seed and the variant's index), and checks each final result with
// check. It skips t in the MPI build of package mpi.
func ResumeVariants[R any](t *testing.T, budget int64, maxPolls int, seed uint64, c Chain[R], check func(t *testing.T, got R)) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts its own embedded world")
	}
	for i, v := range ShortVariants() {
		t.Run(v.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), seed))
			check(t, ResumeChain(t, v, budget, rng, maxPolls, c))
		})
	}
}
