package ruler

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// TestCheckpointSolve suspends the whole multi-step search for 10 marks at
// a random moment on 3 simulated ranks (the fake network), resumes it on 7
// simulated ranks, suspends it again, and finishes it on 2 goroutine ranks
// of the embedded world, under every balancer variant: every step finds the
// optimal length, the steps done before a suspension are kept as they were
// (not searched again), and the rulers are as short as the sequential
// run's (a tie may pick the mirror image).
func TestCheckpointSolve(t *testing.T) {
	const n = 10
	want, err := Solve(n)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range lbtest.ShortVariants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(i), 15))
			var resume *lb.Suspended
			var suspended []int // the steps suspended, by marks
			var first []Step    // the steps done before the first suspension
			for seg, p := range []int{3, 7} {
				w, err := sim.New(p, sim.Config{Seed: uint64(seg + 1)})
				if err != nil {
					t.Fatal(err)
				}
				cfg := v.Config(200, uint64(seg))
				cfg.Resume = resume
				cfg.CheckpointDue = lbtest.DueAfter(1 + rng.IntN(3000))
				_, _, err = SolveParallel(w, n, cfg)
				var s *lb.Suspended
				if !errors.As(err, &s) {
					t.Fatalf("segment %d not suspended: %v", seg, err)
				}
				st, err := DecodeState(s.State)
				if err != nil {
					t.Fatal(err)
				}
				done := st.Steps
				suspended = append(suspended, len(done)+1)
				if seg == 0 {
					first = done
				}
				resume = s
			}
			if suspended[1] < suspended[0] {
				t.Fatalf("suspended at %d marks, then at %d", suspended[0], suspended[1])
			}
			err := mpi.Run(2, func(c *mpi.Comm) error {
				cfg := v.Config(200, 9)
				cfg.Resume = resume
				steps, _, err := SolveParallel(driver.New(c), n, cfg)
				if err != nil {
					return err
				}
				if len(steps) != len(want) {
					return fmt.Errorf("%d steps, want %d", len(steps), len(want))
				}
				for k, s := range steps {
					if l := want[k].Ruler[k]; !Valid(s.Ruler) || s.Ruler[k] != l {
						return fmt.Errorf("%d marks: %v, want length %d (suspended at %v marks)", s.Marks, s.Ruler, l, suspended)
					}
					if k < len(first) && (s.Nodes != first[k].Nodes || s.DiveNodes != first[k].DiveNodes) {
						return fmt.Errorf("%d marks, done before the suspension: %d nodes, then %d", s.Marks, first[k].Nodes, s.Nodes)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCheckpointCount suspends an exhaustive count at random moments on
// the fake network and in the embedded world, and resumes it on another
// number of ranks: the nodes and rulers are the sequential count's exactly.
func TestCheckpointCount(t *testing.T) {
	const n, maxLen = 9, 50
	want := countSeq(t, n, maxLen)
	g := shorter(t, n)
	for i, v := range lbtest.ShortVariants() {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(i), 16))
			w, _ := sim.New(3, sim.Config{Seed: 4})
			cfg := v.Config(200, 1)
			cfg.CheckpointDue = lbtest.DueAfter(1 + rng.IntN(300))
			_, _, err := CountParallel(w, n, g, maxLen, cfg)
			var s *lb.Suspended
			if !errors.As(err, &s) {
				t.Fatalf("not suspended: %v", err)
			}
			k := 1 + rng.IntN(20)
			err = mpi.Run(7, func(c *mpi.Comm) error {
				cfg := v.Config(200, 2)
				cfg.Resume = s
				cfg.CheckpointDue = lbtest.DueAfter(k)
				_, _, err := CountParallel(driver.New(c), n, g, maxLen, cfg)
				var s2 *lb.Suspended
				if !errors.As(err, &s2) {
					return fmt.Errorf("rank %d: not suspended: %v", c.Rank(), err)
				}
				if c.Rank() == 0 {
					s = s2
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			w, _ = sim.New(16, sim.Config{Seed: 5})
			cfg = v.Config(200, 3)
			cfg.Resume = s
			got, out, err := CountParallel(w, n, g, maxLen, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got.Nodes != want.Nodes || got.Solutions != want.Solutions || got.Digest != want.Digest || s.Nodes+out.Total.Nodes != want.Nodes {
				t.Fatalf("%d nodes (%d + %d) %d rulers, sequential %d nodes %d rulers",
					got.Nodes, s.Nodes, out.Total.Nodes, got.Solutions, want.Nodes, want.Solutions)
			}
		})
	}
}
