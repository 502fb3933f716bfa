package alphatree

import (
	"testing"

	"github.com/treelb/treelb/lb/lbtest"
)

// TestCheckpointResume expands the α-tree of α = 0.97, seed 1 (3.6·10⁴
// nodes) under every balancer variant from checkpoint to checkpoint:
// suspended at a random poll on 3 simulated ranks, resumed on 2 goroutine
// ranks and suspended again, finished on 7 simulated ranks
// (lbtest.ResumeVariants). The nodes, leaves, height and digest are the
// sequential expansion's exactly.
func TestCheckpointResume(t *testing.T) {
	p := mustNew(t, 0.97, 1)
	want := p.Solve()
	lbtest.ResumeVariants(t, 20, 100, 0xa1, lbtest.Chain[Result]{First: p.SolveParallel}, func(t *testing.T, got Result) {
		if got != want {
			t.Fatalf("%+v after checkpoints, sequential %+v", got, want)
		}
	})
}
