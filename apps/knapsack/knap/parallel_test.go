package knap

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// seqNodes returns the nodes the sequential search of in expands when it
// knows the profit z from the start.
func seqNodes(t testing.TB, in *Instance, s Search, z int64) int64 {
	t.Helper()
	a, err := NewApp(in, s)
	if err != nil {
		t.Fatal(err)
	}
	a.Improve(z)
	for r := a.root(); !r.Empty(); {
		r.Work(math.MaxInt64)
	}
	return a.Result().Nodes
}

// parallelCase is an instance with its DP optimum, and for each search the
// sequential node count with that optimum known from the start.
type parallelCase struct {
	name  string
	in    *Instance
	opt   int64
	fixed [nSearches]int64
}

// parallelCases returns random small instances of every class, and one of
// the seed's class large enough to be split many times.
func parallelCases(t testing.TB, perClass int) []parallelCase {
	rng := rand.New(rand.NewPCG(11, 12))
	var ins []*Instance
	var names []string
	for _, c := range Classes() {
		for k := range perClass {
			ins = append(ins, randomInstance(t, rng, c, 50))
			names = append(names, fmt.Sprintf("%v#%d", c, k))
		}
	}
	big, err := Generate(GenConfig{Class: Sanders, M: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ins, names = append(ins, big), append(names, "sanders-m300")
	cases := make([]parallelCase, len(ins))
	for i, in := range ins {
		cases[i] = parallelCase{name: names[i], in: in, opt: dpOptimum(in)}
		for _, s := range []Search{Core, HS} {
			cases[i].fixed[s] = seqNodes(t, in, s, cases[i].opt)
		}
	}
	return cases
}

// checkParallel runs one case on w twice, from the greedy start and with
// the optimum known on every rank, and checks the optimum and, in the
// second run, that the nodes are exactly the sequential search's.
func checkParallel(w lb.World, pc parallelCase, s Search, cfg lb.Config) error {
	res, out, err := SolveParallel(w, pc.in, s, cfg)
	if err != nil {
		return err
	}
	p, wt, err := pc.in.Check(res.Items)
	switch {
	case err != nil:
		return err
	case res.Profit != pc.opt || p != res.Profit || wt != res.Weight:
		return fmt.Errorf("%v: profit %d (items sum to %d, weight %d/%d), optimum %d", s, res.Profit, p, wt, res.Weight, pc.opt)
	case out.Total.Nodes != res.Nodes:
		return fmt.Errorf("%v: statistics count %d nodes, the result %d", s, out.Total.Nodes, res.Nodes)
	}
	a, err := NewApp(pc.in, s)
	if err != nil {
		return err
	}
	a.Improve(pc.opt)
	res, _, err = a.solveParallel(w, cfg)
	if err != nil {
		return err
	}
	if res.Nodes != pc.fixed[s] {
		return fmt.Errorf("%v, optimum known: %d nodes, sequential %d", s, res.Nodes, pc.fixed[s])
	}
	// Told the optimum, the ranks look only for better solutions and keep
	// their greedy start.
	if p, _, err := pc.in.Check(res.Items); err != nil || p != res.Profit || p > pc.opt {
		return fmt.Errorf("%v, optimum known: items %v with profit %d (%v), optimum %d", s, res.Items, res.Profit, err, pc.opt)
	}
	return nil
}

// TestParallelFakeNetwork: under every balancer variant and rank count of
// lbtest.EachVariant on the seeded fake network (sim.New, which delays and reorders
// messages between pairs) and several seeds, both searches find the DP
// optimum of random instances of every class, with feasible items that
// sum to it; and with the optimum known on every rank from the start they
// expand exactly the sequential search's nodes, however the work is split.
func TestParallelFakeNetwork(t *testing.T) {
	cases := parallelCases(t, 3)
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, ranks int) {
		if ranks >= 16 {
			// Static placement's default, up to ⌈log₂ P⌉+10 levels, makes
			// 2^14 to 2^16 leaves, each cut from a fresh root by a rank
			// (the tasks do not halve in place): minutes to simulate.
			v = v.With("levels", strconv.Itoa(bits.Len(uint(ranks-1))+2))
		}
		for seed := uint64(1); seed <= 3; seed++ {
			w, err := sim.New(ranks, sim.Config{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			for _, pc := range cases {
				for _, s := range []Search{Core, HS} {
					if err := checkParallel(w, pc, s, v.Config(1+int64(seed*seed)*20, seed)); err != nil {
						t.Fatalf("seed %d, %s: %v", seed, pc.name, err)
					}
				}
			}
		}
	})
}

// TestParallelEmbedded: the same on the embedded world's goroutine ranks
// (driver.New), where messages and work interleave as the scheduler lets
// them.
func TestParallelEmbedded(t *testing.T) {
	cases := parallelCases(t, 1)
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, ranks int) {
		err := mpi.Run(ranks, func(c *mpi.Comm) error {
			w := driver.New(c)
			for _, pc := range cases {
				for _, s := range []Search{Core, HS} {
					if err := checkParallel(w, pc, s, v.Config(50, 7)); err != nil {
						return fmt.Errorf("%s: %w", pc.name, err)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestParallelSeedClass: on instances of seed 002's class with m = 2000
// (tens of thousands to millions of nodes), rp on 7 simulated ranks finds
// the sequential optimum; the log shows the nodes searched against the
// sequential search (the parallel search may need fewer, or more).
func TestParallelSeedClass(t *testing.T) {
	for _, seed := range []uint64{1, 7, 10} {
		in, err := Generate(GenConfig{Class: Sanders, M: 2000, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Search{Core, HS} {
			want, err := Solve(in, s)
			if err != nil {
				t.Fatal(err)
			}
			w, err := sim.New(7, sim.Config{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := SolveParallel(w, in, s, lb.Config{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := in.Check(got.Items); err != nil || got.Profit != want.Profit {
				t.Fatalf("seed %d %v: profit %d (%v), sequential %d", seed, s, got.Profit, err, want.Profit)
			}
			t.Logf("seed %d %v: %d nodes on 7 ranks, sequential %d (%.2f×)", seed, s, got.Nodes, want.Nodes, float64(got.Nodes)/float64(want.Nodes))
		}
	}
}

// TestParallelRejects: an invalid instance fails on every rank before any
// message is sent.
func TestParallelRejects(t *testing.T) {
	w, err := sim.New(2, sim.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range invalidInstances() {
		if _, _, err := SolveParallel(w, in, Core, lb.Config{}); err == nil {
			t.Errorf("SolveParallel(%+v) accepted it", in)
		}
	}
}
