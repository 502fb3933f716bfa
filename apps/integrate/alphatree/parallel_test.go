package alphatree

import (
	"fmt"
	"testing"

	"github.com/treelb/treelb/apps/integrate/internal/bagsched"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// check compares a parallel run with the sequential tree: the same nodes,
// leaves, height and digest (so the very same nodes), and the balancer's
// node count agrees.
func check(got Result, out *lb.Outcome, want Result) error {
	if got != want || out.Total.Nodes != want.Nodes {
		return fmt.Errorf("%+v (balancer counted %d nodes), sequential %+v", got, out.Total.Nodes, want)
	}
	return nil
}

// shares reports whether variant v spreads a tree over more than one of
// ranks ranks. Every balancer does, static placement and hybrid too (a
// fresh task holding one node expands it in place to split: nodestack's
// Task; before, they left the whole tree to one rank), but rp-local with a
// fixed radius, which lets only the 2·radius ranks around the root's rank
// ask it: on these trees of a few thousand nodes all of them may miss it
// while their requests go to each other, so it must share only where the
// radius reaches every rank.
func shares(v lbtest.Variant, ranks int) bool {
	if o, ok := v.Options.(lb.RPLocalOptions); ok && o.Radius > 0 && 2*o.Radius < ranks-1 {
		return false
	}
	return ranks > 1
}

// busy returns the number of ranks that expanded nodes (with
// Config.RankStats).
func busy(out *lb.Outcome) int {
	n := 0
	for _, s := range out.Ranks {
		if s.Nodes > 0 {
			n++
		}
	}
	return n
}

// TestParallelSim: every balancer variant and rank count of
// lbtest.EachVariant on the seeded fake network (sim.New, which delays and
// reorders messages), on
// two trees and three network seeds each, expands exactly the sequential
// tree, and the work is shared (see shares): slices of 20 nodes make the
// balancers move work often.
func TestParallelSim(t *testing.T) {
	trees := []*Problem{mustNew(t, 0.96, 1), mustNew(t, 0.965, 3)}
	want := make([]Result, len(trees))
	for i, p := range trees {
		want[i] = p.Solve()
	}
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, ranks int) {
		for i, p := range trees {
			for seed := uint64(1); seed <= 3; seed++ {
				w, err := sim.New(ranks, sim.Config{Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				cfg := v.Config(20, seed)
				cfg.RankStats = true
				got, out, err := p.SolveParallel(w, cfg)
				if err == nil {
					err = check(got, out, want[i])
				}
				if err == nil && shares(v, ranks) && busy(out) < 2 {
					err = fmt.Errorf("only %d of %d ranks expanded nodes", busy(out), ranks)
				}
				if err != nil {
					t.Fatalf("α=%v seed %d, network seed %d: %v", p.Alpha(), p.Seed(), seed, err)
				}
			}
		}
	})
}

// TestParallelEmbedded: every balancer variant and rank count of
// lbtest.EachVariant on goroutine ranks of the embedded world (mpi.Run, driver.New) expands exactly the
// sequential tree, on every rank.
func TestParallelEmbedded(t *testing.T) {
	p := mustNew(t, 0.96, 2)
	want := p.Solve()
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, ranks int) {
		bagsched.Embedded(t, ranks, func(w lb.World) error {
			got, out, err := p.SolveParallel(w, v.Config(50, 7))
			if err != nil {
				return err
			}
			return check(got, out, want)
		})
	})
}

func mustNew(t *testing.T, alpha float64, seed uint64) *Problem {
	t.Helper()
	p, err := New(alpha, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
