package tree

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestCheckpointResume counts T3 with 200 children of the root (2.7·10⁶
// nodes, depth 1572: deep and narrow) under every balancer variant from
// checkpoint to checkpoint: suspended at a random poll on 3 simulated
// ranks, resumed on 2 goroutine ranks and suspended again, finished on 7
// simulated ranks (lbtest.ResumeVariants). The nodes, depth and leaves are
// the sequential count's exactly.
func TestCheckpointResume(t *testing.T) {
	s, _ := SampleNamed("T3")
	p := s.Params()
	p.B = 200
	tr, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	want := tr.Count()
	run := func(w lb.World, cfg lb.Config) (Counts, *lb.Outcome, error) {
		return lb.Run(w, cfg, func() lb.Reducer[Counts] { return NewApp(tr) })
	}
	lbtest.ResumeVariants(t, 1000, 100, 0x75, lbtest.Chain[Counts]{First: run}, func(t *testing.T, got Counts) {
		if got != want {
			t.Fatalf("%+v after checkpoints, sequential %+v", got, want)
		}
	})
}
