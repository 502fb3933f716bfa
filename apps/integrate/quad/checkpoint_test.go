package quad

import (
	"math"
	"testing"

	"github.com/treelb/treelb/lb/lbtest"
)

// TestCheckpointResume integrates x·sin(30x) to θ_a = 10⁻¹² under every
// balancer variant from checkpoint to checkpoint: suspended at a random
// poll on 3 simulated ranks, resumed on 2 goroutine ranks and suspended
// again, finished on 7 simulated ranks (lbtest.ResumeVariants). The nodes,
// leaves and height are the sequential integration's exactly and the value
// is bit for bit its value: the partial result's exact sum merges exactly.
func TestCheckpointResume(t *testing.T) {
	fn, err := LookupFunc("osc")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(fn.F, 0, 1, Options{ThetaA: 1e-12, ThetaR: SeedThetaR})
	if err != nil {
		t.Fatal(err)
	}
	want := p.Solve()
	lbtest.ResumeVariants(t, 20, 100, 0x71, lbtest.Chain[Result]{First: p.SolveParallel}, func(t *testing.T, got Result) {
		if got.Nodes != want.Nodes || got.Leaves != want.Leaves || got.Height != want.Height || got.Digest != want.Digest ||
			math.Float64bits(got.Value()) != math.Float64bits(want.Value()) {
			t.Fatalf("%d nodes, %d leaves, height %d, value %.17g after checkpoints; sequential %d, %d, %d, %.17g",
				got.Nodes, got.Leaves, got.Height, got.Value(), want.Nodes, want.Leaves, want.Height, want.Value())
		}
	})
}
