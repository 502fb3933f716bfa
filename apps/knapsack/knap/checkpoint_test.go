package knap

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
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
		for i, v := range lbtest.ShortVariants() {
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

// resumeChain runs a's search from checkpoint to checkpoint
// (lbtest.ResumeChain), the first stretch on clones of a (every rank
// starting from a's incumbent), the later ones on fresh apps, and checks
// that each checkpoint's incumbent lies between a's and the optimum.
func resumeChain(t *testing.T, rng *rand.Rand, pc parallelCase, a *App, v lbtest.Variant) Result {
	t.Helper()
	z, _ := a.Incumbent()
	return lbtest.ResumeChain(t, v, 20, rng, 20, lbtest.Chain[Result]{
		First: a.solveParallel,
		Rest: func(w lb.World, cfg lb.Config) (Result, *lb.Outcome, error) {
			return SolveParallel(w, pc.in, a.search, cfg)
		},
		Suspended: func(s *lb.Suspended) error {
			if !s.HasIncumbent || s.Incumbent < z || s.Incumbent > pc.opt {
				return fmt.Errorf("incumbent %d (%v); the start %d, the optimum %d", s.Incumbent, s.HasIncumbent, z, pc.opt)
			}
			return nil
		},
	})
}
