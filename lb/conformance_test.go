package lb_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// conformanceRanks are the rank counts of the conformance table; -short
// drops the largest.
func conformanceRanks() []int {
	if testing.Short() {
		return []int{1, 2, 3, 7, 16}
	}
	return []int{1, 2, 3, 7, 16, 64}
}

// simulate runs a tree search of the variant on p simulated ranks.
func simulate(v lbtest.Variant, p int, netSeed uint64, budget int64, seed uint64, depth int, mode lbtest.Mode) (lbtest.TreeResult, *lb.Outcome, error) {
	w, err := lb.NewSim(p, lb.SimConfig{Seed: netSeed})
	if err != nil {
		return lbtest.TreeResult{}, nil, err
	}
	return lb.Run(w, v.Config(budget, seed), func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, depth, mode) })
}

// TestConformance runs every balancer variant on the seeded fake network
// for every rank count and three seeds. Exhaustive counts must equal the
// sequential count exactly (no lost or duplicated work); the simulator
// itself fails on a message after termination, a rank that terminates twice
// (Done going back to false) or a rank that never terminates.
func TestConformance(t *testing.T) {
	const depth = 17
	if n := lbtest.Sequential(1, depth, lbtest.Count).Nodes; n < 1000 {
		t.Fatalf("tree too small: %d nodes", n)
	}
	for _, v := range lbtest.Variants() {
		for _, p := range conformanceRanks() {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/P=%d/seed=%d", v.Name, p, seed), func(t *testing.T) {
					t.Parallel()
					got, out, err := simulate(v, p, seed*77, 50, seed, depth, lbtest.Count)
					if err != nil {
						t.Fatal(err)
					}
					if err := lbtest.Check(got, out, seed, depth, lbtest.Count); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestCountInvariant is the synthetic tree's row of the conformance table
// of exhaustive counts (docs/counts.md; the apps' rows run their commands,
// cmdtest.Invariant): the nodes and the digest of the leaves are the
// sequential ones under every variant on 1, 2, 3, 7 and 64 goroutine ranks
// of the embedded world (TestConformance runs the simulator), and after a
// chain of checkpoints and restarts on 3 simulated, 2 goroutine and 7
// simulated ranks (lbtest.ResumeVariants).
func TestCountInvariant(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts its own embedded worlds")
	}
	const seed, depth = 6, 15
	newTree := func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, depth, lbtest.Count) }
	for _, v := range lbtest.Variants() {
		for _, p := range []int{1, 2, 3, 7, 64} {
			err := mpi.Run(p, func(c *mpi.Comm) error {
				got, out, err := lb.Run(driver.New(c), v.Config(50, 1), newTree)
				if err != nil {
					return err
				}
				return lbtest.Check(got, out, seed, depth, lbtest.Count)
			})
			if err != nil {
				t.Errorf("%s on %d ranks: %v", v.Name, p, err)
			}
		}
	}
	want := lbtest.Sequential(seed, depth, lbtest.Count)
	run := func(w lb.World, cfg lb.Config) (lbtest.TreeResult, *lb.Outcome, error) {
		return lb.Run(w, cfg, newTree)
	}
	lbtest.ResumeVariants(t, 50, 100, 0x20, lbtest.Chain[lbtest.TreeResult]{First: run}, func(t *testing.T, got lbtest.TreeResult) {
		if got.Nodes != want.Nodes || got.Digest != want.Digest {
			t.Fatalf("after checkpoints: %d nodes, digest %#x; sequential %d, %#x", got.Nodes, got.Digest, want.Nodes, want.Digest)
		}
	})
}

// TestBoundAndStop: branch-and-bound finds the sequential minimum on every
// balancer, and a first-solution search stops early with a valid solution.
func TestBoundAndStop(t *testing.T) {
	for _, v := range lbtest.Variants() {
		for _, p := range []int{1, 3, 16} {
			t.Run(fmt.Sprintf("%s/P=%d", v.Name, p), func(t *testing.T) {
				t.Parallel()
				for _, mode := range []lbtest.Mode{lbtest.Bound, lbtest.First} {
					got, out, err := simulate(v, p, 9, 40, 5, 24, mode)
					if err != nil {
						t.Fatal(err)
					}
					if err := lbtest.Check(got, out, 5, 24, mode); err != nil {
						t.Fatalf("mode %d: %v", mode, err)
					}
				}
			})
		}
	}
}

// TestOutsideBalancer: a Factory that is not registered runs like the
// registered ones.
func TestOutsideBalancer(t *testing.T) {
	rp, err := lb.Lookup("rp")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	wrapped := func(env lb.Env) (lb.Balancer, error) {
		calls++
		return rp.New(env)
	}
	w, err := lb.NewSim(5, lb.SimConfig{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, out, err := lb.Run(w, lb.Config{Balancer: wrapped, Budget: 50}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(2, 16, lbtest.Count) })
	if err != nil {
		t.Fatal(err)
	}
	if err := lbtest.Check(got, out, 2, 16, lbtest.Count); err != nil {
		t.Fatal(err)
	}
	if calls != 5 {
		t.Fatalf("factory called %d times for 5 ranks", calls)
	}
}

// TestBadConfig: bad options and factories are errors, not panics.
func TestBadConfig(t *testing.T) {
	w, err := lb.NewSim(4, lb.SimConfig{})
	if err != nil {
		t.Fatal(err)
	}
	static, _ := lb.Lookup("static")
	failing := func(lb.Env) (lb.Balancer, error) { return nil, fmt.Errorf("no") }
	for name, cfg := range map[string]lb.Config{
		"levels":      {Balancer: static.New, Options: lb.Options{SplitLevels: 33}},
		"perm":        {Balancer: static.New, Options: lb.Options{Permutation: "sobol"}},
		"queue":       {Options: lb.Options{QueueLimit: -1}},
		"shuffle":     {Options: lb.Options{ShuffleBelow: 2}},
		"factory":     {Balancer: failing},
		"nil balance": {Balancer: func(lb.Env) (lb.Balancer, error) { return nil, nil }},
	} {
		if _, _, err := lb.Run(w, cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(1, 8, lbtest.Count) }); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := lb.NewSim(0, lb.SimConfig{}); err == nil {
		t.Error("a world of 0 ranks")
	}
	for name, m := range map[string]lb.Machine{
		"node":    {Name: "x", NodeNS: -1},
		"latency": {Name: "x", LatencyNS: -5},
		"nan":     {Name: "x", OverheadNS: math.NaN()},
		"inf":     {Name: "x", ByteNS: math.Inf(1)},
		"mesh":    {Name: "x", MeshWidth: -2},
	} {
		if _, err := lb.NewSim(2, lb.SimConfig{Machine: m}); err == nil {
			t.Errorf("machine with a bad %s accepted", name)
		}
	}
	if _, err := lb.NewSim(lb.MaxSimRanks+1, lb.SimConfig{}); err == nil {
		t.Error("a world above MaxSimRanks")
	}
}

// TestFastInitPieces: the pieces of every rank are disjoint and cover the
// tree, for every P up to 70.
func TestFastInitPieces(t *testing.T) {
	const depth = 14
	want := lbtest.Sequential(11, depth, lbtest.Count).Nodes
	for p := 1; p <= 70; p++ {
		var total int64
		for r := range p {
			a := lbtest.NewTree(11, depth, lbtest.Count)
			if piece := lb.FastInitPiece(a.Root(), r, p); piece != nil {
				for !piece.Empty() {
					piece.Work(1 << 30)
				}
			}
			total += a.Nodes()
		}
		if total != want {
			t.Fatalf("P=%d: pieces hold %d nodes, tree %d", p, total, want)
		}
	}
}
