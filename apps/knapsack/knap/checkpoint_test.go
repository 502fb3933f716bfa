package knap

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// TestCheckpointResume suspends both searches of a seed-class instance at
// a random moment on 3 simulated ranks, resumes them on 2 goroutine ranks
// (suspending again) and finishes them on 7 simulated ranks, under every
// balancer variant; the resumed runs start from fresh apps, whose own start
// is the greedy solution, worse than the optimum. From the greedy start the
// result is optimal, with items that sum to it: the best solution found
// before a cut travels in the partial result. With the optimum known on
// every rank of the first run, only the checkpoint's incumbent tells the
// later runs the optimum; told it, the search expands exactly the
// sequential search's nodes with the optimum known, so the total over the
// three runs is that count exactly.
func TestCheckpointResume(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts its own embedded world")
	}
	pc := parallelCases(t, 0)[0] // sanders-m300
	for _, s := range []Search{Core, HS} {
		fresh, err := NewApp(pc.in, s)
		if err != nil {
			t.Fatal(err)
		}
		if z, _ := fresh.Incumbent(); z >= pc.opt {
			t.Fatalf("%s: the greedy start %d is optimal already (%d): the test needs a worse one", pc.name, z, pc.opt)
		}
		for i, v := range lbtest.Variants() {
			t.Run(s.String()+"/"+v.Name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(i), 0x4b))
				a, _ := NewApp(pc.in, s)
				res := resumeChain(t, rng, pc, a, v)
				if p, wt, err := pc.in.Check(res.Items); err != nil || p != pc.opt || res.Profit != p || res.Weight != wt {
					t.Fatalf("from the greedy start: profit %d, items sum to %d (%v), optimum %d", res.Profit, p, err, pc.opt)
				}
				a, _ = NewApp(pc.in, s)
				a.Improve(pc.opt)
				res = resumeChain(t, rng, pc, a, v)
				if res.Nodes != pc.fixed[s] {
					t.Fatalf("optimum known: %d nodes over the three runs, sequential %d", res.Nodes, pc.fixed[s])
				}
				// Told the optimum, the ranks keep their greedy start.
				if p, _, err := pc.in.Check(res.Items); err != nil || p != res.Profit || p > pc.opt {
					t.Fatalf("optimum known: items %v with profit %d (%v), optimum %d", res.Items, res.Profit, err, pc.opt)
				}
			})
		}
	}
}

// resumeChain runs a's search on 3 simulated ranks (every rank starting
// from a's incumbent) until a random poll suspends it, checks the
// checkpoint's incumbent, resumes it on 2 goroutine ranks until another
// random poll, and finishes it on 7 simulated ranks, both from fresh apps.
// It returns the final result.
func resumeChain(t *testing.T, rng *rand.Rand, pc parallelCase, a *App, v lbtest.Variant) Result {
	t.Helper()
	w, _ := lb.NewSim(3, lb.SimConfig{Seed: 2})
	cfg := v.Config(20, 1)
	cfg.CheckpointDue = lbtest.DueAfter(1 + rng.IntN(20))
	_, _, err := a.solveParallel(w, cfg)
	var sus *lb.Suspended
	if !errors.As(err, &sus) {
		t.Fatalf("not suspended: %v", err)
	}
	if z, _ := a.Incumbent(); !sus.HasIncumbent || sus.Incumbent < z || sus.Incumbent > pc.opt {
		t.Fatalf("the checkpoint's incumbent is %d (%v); the start %d, the optimum %d", sus.Incumbent, sus.HasIncumbent, z, pc.opt)
	}
	k := 1 + rng.IntN(10)
	err = mpi.Run(2, func(c *mpi.Comm) error {
		cfg := v.Config(20, 2)
		cfg.Resume, cfg.CheckpointDue = sus, lbtest.DueAfter(k)
		_, _, err := SolveParallel(driver.New(c), pc.in, a.search, cfg)
		var s2 *lb.Suspended
		switch {
		case errors.As(err, &s2):
			if c.Rank() == 0 {
				sus = s2
			}
		case err != nil:
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("resumed after %d nodes, %d open tasks", sus.Nodes, len(sus.Tasks))
	w, _ = lb.NewSim(7, lb.SimConfig{Seed: 3})
	cfg = v.Config(20, 3)
	cfg.Resume = sus
	res, _, err := SolveParallel(w, pc.in, a.search, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
