package quad

import (
	"fmt"
	"math"
	"testing"

	"github.com/treelb/treelb/apps/integrate/internal/bagsched"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// exactCase is an integration with its exact value and a bound s ≥ ∫|f|
// for the tolerance.
type exactCase struct {
	name     string
	p        *Problem
	exact, s float64
}

// exactCases are the named functions over [0, 1] under the absolute rule
// and random polynomials under both rules: trees of 25 to 3207 nodes.
func exactCases(t *testing.T) []exactCase {
	var cs []exactCase
	for _, fn := range Funcs() {
		p, err := New(fn.F, 0, 1, Options{ThetaA: 1e-8, ThetaR: SeedThetaR})
		if err != nil {
			t.Fatal(err)
		}
		s := absTrapezoid(fn.F, 0, 1, 1<<16) + math.Abs(fn.G(0)) + math.Abs(fn.G(1))
		cs = append(cs, exactCase{fn.Name, p, fn.Integral(0, 1), s})
	}
	for _, c := range []struct {
		seed   uint64
		thetaA float64
		rule   Rule
	}{{10, 1e-6, Absolute}, {1, 1e-8, Relative}, {42, 1e-8, Relative}} {
		poly := RandomPoly(c.seed)
		p, err := New(poly.Eval, 0, 1, Options{ThetaA: c.thetaA, ThetaR: SeedThetaR, Rule: c.rule})
		if err != nil {
			t.Fatal(err)
		}
		exact := poly.Integral(0, 1)
		cs = append(cs, exactCase{fmt.Sprintf("poly%d-%v", c.seed, c.rule), p, exact, exact})
	}
	return cs
}

// checkParallel compares a parallel integration with the sequential one,
// bit for bit (the exact sum makes tolerance zero the right one), and
// with the exact integral within the documented tolerance; and the
// balancer's node count with the tree's.
func checkParallel(c exactCase, want, got Result, out *lb.Outcome) error {
	if got.Nodes != want.Nodes || got.Leaves != want.Leaves || got.Height != want.Height || got.Digest != want.Digest ||
		math.Float64bits(got.Value()) != math.Float64bits(want.Value()) || out.Total.Nodes != want.Nodes {
		return fmt.Errorf("%s: %d nodes (balancer %d) %d leaves height %d value %v; sequential %d %d %d %v", c.name,
			got.Nodes, out.Total.Nodes, got.Leaves, got.Height, got.Value(), want.Nodes, want.Leaves, want.Height, want.Value())
	}
	if v, tol := got.Value(), tolerance(&got, c.p, c.s, c.exact); !(math.Abs(v-c.exact) <= tol) {
		return fmt.Errorf("%s: %v, exact %v, error %.3g > %.3g", c.name, v, c.exact, v-c.exact, tol)
	}
	return nil
}

// TestParallelSim: every balancer variant and rank count of
// lbtest.EachVariant on the seeded fake network (sim.New), two network seeds, integrates every
// case to the sequential tree and integral, bit for bit, within the
// tolerance of the exact value. Slices of 20 nodes move work often.
func TestParallelSim(t *testing.T) {
	cases := exactCases(t)
	want := make([]Result, len(cases))
	for i, c := range cases {
		want[i] = c.p.Solve()
	}
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, ranks int) {
		for i, c := range cases {
			for seed := uint64(1); seed <= 2; seed++ {
				w, err := sim.New(ranks, sim.Config{Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				got, out, err := c.p.SolveParallel(w, v.Config(20, seed))
				if err == nil {
					err = checkParallel(c, want[i], got, out)
				}
				if err != nil {
					t.Fatalf("network seed %d: %v", seed, err)
				}
			}
		}
	})
}

// TestParallelEmbedded: the same on goroutine ranks of the embedded world
// (mpi.Run, driver.New), every variant and rank count (lbtest.EachVariant), on the largest
// named-function tree and a random polynomial under the relative rule.
func TestParallelEmbedded(t *testing.T) {
	var cases []exactCase
	for _, c := range exactCases(t) {
		if c.name == "osc" || c.name == "poly1-relative" {
			cases = append(cases, c)
		}
	}
	if len(cases) != 2 {
		t.Fatalf("%d cases", len(cases))
	}
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, ranks int) {
		for _, c := range cases {
			want := c.p.Solve()
			bagsched.Embedded(t, ranks, func(w lb.World) error {
				got, out, err := c.p.SolveParallel(w, v.Config(50, 7))
				if err != nil {
					return err
				}
				return checkParallel(c, want, got, out)
			})
		}
	})
}

// TestReplayedSpawn checks that the intervals a fresh task's split
// evaluates in place count as replayed: static placement splits the root
// into its leaves on every rank, evaluating the lone intervals it halves,
// and the parts that keep them evaluate them again.
func TestReplayedSpawn(t *testing.T) {
	var p *Problem
	for _, c := range exactCases(t) {
		if c.name == "osc" {
			p = c.p
		}
	}
	static, err := lb.Lookup("static")
	if err != nil {
		t.Fatal(err)
	}
	want := p.Solve()
	bagsched.Embedded(t, 4, func(w lb.World) error {
		got, _, err := p.SolveParallel(w, lb.Config{Balancer: static.New, Budget: 50, Seed: 7})
		if err != nil {
			return err
		}
		if got.Nodes != want.Nodes || got.Digest != want.Digest {
			return fmt.Errorf("static: nodes %d digest %x, want %d %x", got.Nodes, got.Digest, want.Nodes, want.Digest)
		}
		// Each of the 4 ranks makes its leaves by k = DefaultLevels(4)
		// halvings of the root, the first of which spawns the lone root.
		if got.Replayed < 4 {
			return fmt.Errorf("static: %d replayed intervals, want the spawned ones (at least one a rank)", got.Replayed)
		}
		return nil
	})
}
