package lb_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// simulate runs a tree search of the variant on p simulated ranks.
func simulate(v lbtest.Variant, p int, netSeed uint64, budget int64, seed uint64, depth int, mode lbtest.Mode) (lbtest.TreeResult, *lb.Outcome, error) {
	w, err := sim.New(p, sim.Config{Seed: netSeed})
	if err != nil {
		return lbtest.TreeResult{}, nil, err
	}
	return lb.Run(w, v.Config(budget, seed), func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, depth, mode) })
}

// TestConformance runs every balancer variant through lb.Rank in every
// world of this build (the simulator on the seeded fake network, the
// lock-step world, the embedded world of goroutine ranks), on 1, 2, 3, 7,
// 16 and 64 ranks (lbtest.EachVariant; its diagonal under -short)
// and three seeds in the simulator (one elsewhere: the lock-step world has
// no randomness of its own, the embedded world's schedules vary by
// themselves). Exhaustive counts must equal the sequential count exactly,
// nodes and the digest of the leaves (no lost or duplicated work): this is
// the synthetic tree's row of the table of exhaustive counts
// (docs/counts.md); and each rank's times must add up
// (lbtest.CheckTimes). lb.Rank itself fails on a message after
// termination or a rank that terminates twice (Done going back to false),
// and the simulator on a rank that never terminates.
func TestConformance(t *testing.T) {
	const depth = 17
	if n := lbtest.Sequential(1, depth, lbtest.Count).Nodes; n < 1000 {
		t.Fatalf("tree too small: %d nodes", n)
	}
	for _, world := range lbtest.Worlds() {
		seeds := uint64(3)
		if world.Name != "sim" {
			seeds = 1
		}
		t.Run(world.Name, func(t *testing.T) {
			// The tree is small enough for 64 goroutine ranks too.
			lbtest.EachVariantOn(t, world.Name, lbtest.Ranks("sim"), func(t *testing.T, v lbtest.Variant, p int) {
				for seed := uint64(1); seed <= seeds; seed++ {
					err := world.Run(p, seed*77, func(w lb.World) error {
						cfg := v.Config(50, seed)
						cfg.RankStats = true // lbtest.Check checks each rank's times
						got, out, err := lb.Run(w, cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, depth, lbtest.Count) })
						if err != nil {
							return err
						}
						return lbtest.Check(got, out, seed, depth, lbtest.Count)
					})
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
				}
			})
		})
	}
}

// TestCountInvariant: the synthetic tree's count (nodes and the digest of
// the leaves) is the sequential one after a chain of checkpoints and
// restarts on 3 simulated, 2 goroutine and 7 simulated ranks, under every
// variant (lbtest.ResumeVariants); TestConformance checks it without
// checkpoints in every world.
func TestCountInvariant(t *testing.T) {
	const seed, depth = 6, 15
	newTree := func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, depth, lbtest.Count) }
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
// balancer variant and rank count (lbtest.EachVariant), and a
// first-solution search stops early (before a hundredth of the tree; at
// most 22 thousand of its 16.8 million nodes were seen) with a
// leaf of the tree that is a solution.
func TestBoundAndStop(t *testing.T) {
	sols := lbtest.Solutions(5, 24)
	whole := lbtest.Sequential(5, 24, lbtest.Count).Nodes
	if len(sols) < 2 {
		t.Fatalf("the tree has %d solutions: the test wants several", len(sols))
	}
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, p int) {
		for _, mode := range []lbtest.Mode{lbtest.Bound, lbtest.First} {
			got, out, err := simulate(v, p, 9, 40, 5, 24, mode)
			if err != nil {
				t.Fatal(err)
			}
			if err := lbtest.Check(got, out, 5, 24, mode); err != nil {
				t.Fatalf("mode %d: %v", mode, err)
			}
			if mode != lbtest.First {
				continue
			}
			if _, ok := slices.BinarySearch(sols, got.Found); !ok {
				t.Fatalf("found %d, which is no solution leaf of the tree", got.Found)
			}
			if got.Nodes >= whole/100 {
				t.Fatalf("the first-solution search expanded %d of the tree's %d nodes", got.Nodes, whole)
			}
		}
	})
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
	w, err := sim.New(5, sim.Config{Seed: 3})
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
	w, err := sim.New(4, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	static, _ := lb.Lookup("static")
	ps, _ := lb.Lookup("ps")
	hybrid, _ := lb.Lookup("hybrid")
	failing := func(lb.Env) (lb.Balancer, error) { return nil, fmt.Errorf("no") }
	for name, cfg := range map[string]lb.Config{
		"levels":      {Balancer: static.New, Options: lb.StaticOptions{Levels: 33}},
		"perm":        {Balancer: static.New, Options: lb.StaticOptions{Permutation: "sobol"}},
		"queue":       {Options: lb.RPOptions{QueueLimit: -1}},
		"shuffle":     {Balancer: ps.New, Options: lb.PSOptions{ShuffleBelow: 2}},
		"clusters":    {Balancer: hybrid.New, Options: lb.HybridOptions{Clusters: -1}},
		"other's":     {Balancer: static.New, Options: lb.RPOptions{FastInit: true}},
		"factory":     {Balancer: failing},
		"nil balance": {Balancer: func(lb.Env) (lb.Balancer, error) { return nil, nil }},
		"budget":      {Budget: -7},
		"min budget":  {MinBudget: -7},
	} {
		if _, _, err := lb.Run(w, cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(1, 8, lbtest.Count) }); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := sim.New(0, sim.Config{}); err == nil {
		t.Error("a world of 0 ranks")
	}
	if _, _, err := lb.Run(nil, lb.Config{}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(1, 8, lbtest.Count) }); err == nil {
		t.Error("a nil world")
	}
	if _, _, err := lb.Run[lbtest.TreeResult](w, lb.Config{}, nil); err == nil {
		t.Error("a nil newApp")
	}
	for name, m := range map[string]lb.Machine{
		"node":        {Name: "x", NodeNS: -1},
		"free":        {Name: "x", LatencyNS: 1500}, // a node that costs nothing
		"latency":     {Name: "x", LatencyNS: -5},
		"nan":         {Name: "x", OverheadNS: math.NaN()},
		"inf":         {Name: "x", ByteNS: math.Inf(1)},
		"mesh":        {Name: "x", MeshWidth: -2},
		"poll":        {Name: "x", PollNS: -1},
		"recv":        {Name: "x", RecvByteNS: math.NaN()},
		"pauses":      {Name: "x", PauseNS: 1e-3, MaxPauseNS: 1e9},
		"instant":     {Name: "x", NodeNS: 20},                      // no message takes time, no throttling: the clock would stop
		"sub-ps":      {Name: "x", NodeNS: 20, LatencyNS: 0.0004},   // rounds to 0 ps: the same, and it hung
		"steps":       {Name: "x", NodeNS: 0.0001, Steps: true},     // the step model's clock moves with the nodes: it hung
		"sub-ps node": {Name: "x", NodeNS: 0.0001, LatencyNS: 1000}, // rounds to 0 ps: every figure 0/0
	} {
		if _, err := sim.New(2, sim.Config{Machine: m}); err == nil {
			t.Errorf("machine with a bad %s accepted", name)
		}
	}
	if _, err := sim.New(sim.MaxRanks+1, sim.Config{}); err == nil {
		t.Error("a world above sim.MaxRanks")
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

// lossyResult would lose its unexported field on the way to another rank
// (encoding/gob drops it), lossyRange the app whose result it is.
type lossyResult struct {
	Nodes  int64
	digest uint64
}

type lossyRange struct{ *lbtest.Range }

func (a lossyRange) Result() lossyResult { return lossyResult{Nodes: a.Range.Result(), digest: 1} }

func (lossyRange) Combine(x, y lossyResult) lossyResult {
	return lossyResult{x.Nodes + y.Nodes, x.digest + y.digest}
}

// TestUnexportedResult: a result type with an unexported field and no
// binary encoding is refused on every rank of every world, before the
// search, with the field named, instead of reaching rank 0 without it.
func TestUnexportedResult(t *testing.T) {
	for _, w := range lbtest.Worlds() {
		t.Run(w.Name, func(t *testing.T) {
			var errs atomic.Int32
			err := w.Run(3, 1, func(world lb.World) error {
				_, _, err := lb.Run(world, lb.Config{Seed: 1}, func() lb.Reducer[lossyResult] { return lossyRange{lbtest.NewRange(1000)} })
				if err == nil || !strings.Contains(err.Error(), "unexported field digest") {
					t.Errorf("rank %d: %v, want the unexported field named", world.Rank(), err)
				} else {
					errs.Add(1)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			want := int32(3) // every rank; the simulated worlds call f once for all
			if w.Name == "sim" || w.Name == "lockstep" {
				want = 1
			}
			if errs.Load() != want {
				t.Errorf("%d calls refused, want %d", errs.Load(), want)
			}
		})
	}
}
