package parallel

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// TestCheckpointResume suspends IDA* on the easiest Korf instance at a
// random moment on 3 simulated ranks (the fake network), resumes it on 2
// goroutine ranks of the embedded world and suspends it again, and
// finishes it on 7 simulated ranks, under every balancer variant: the
// length is optimal, the thresholds are the sequential ones and every
// failing iteration, the suspended ones included, has the sequential node
// count exactly.
func TestCheckpointResume(t *testing.T) {
	embeddedOnly(t)
	in := easiest(t, 1)[0]
	seq := sequential(t, in)
	for i, v := range lbtest.Variants() {
		t.Run(v.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 0x15))
			w, _ := lb.NewSim(3, lb.SimConfig{Seed: 2})
			cfg := v.Config(1000, 1)
			cfg.CheckpointDue = lbtest.DueAfter(1 + rng.IntN(300))
			_, _, err := Solve(w, in.State, cfg)
			var s *lb.Suspended
			if !errors.As(err, &s) {
				t.Fatalf("not suspended: %v", err)
			}
			k := 1 + rng.IntN(30)
			err = mpi.Run(2, func(c *mpi.Comm) error {
				cfg := v.Config(1000, 2)
				cfg.Resume = s
				cfg.CheckpointDue = lbtest.DueAfter(k)
				got, _, err := Solve(driver.New(c), in.State, cfg)
				var s2 *lb.Suspended
				switch {
				case errors.As(err, &s2):
					if c.Rank() == 0 {
						s = s2
					}
				case err != nil:
					return err
				default: // solved before the poll: only the final iteration is left
					return checkResult(in, got, seq)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("resumed after %d nodes of %d, %d open tasks", s.Nodes, in.Nodes, len(s.Tasks))
			w, _ = lb.NewSim(7, lb.SimConfig{Seed: 3})
			cfg = v.Config(1000, 3)
			cfg.Resume = s
			got, _, err := Solve(w, in.State, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkResult(in, got, seq); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestResumeOtherBoard: the state of a suspended run of one board does not
// resume another.
func TestResumeOtherBoard(t *testing.T) {
	ins := easiest(t, 2)
	w, _ := lb.NewSim(2, lb.SimConfig{})
	cfg := lb.Config{Budget: 1000, CheckpointDue: lbtest.DueAfter(5)}
	_, _, err := Solve(w, ins[0].State, cfg)
	var s *lb.Suspended
	if !errors.As(err, &s) {
		t.Fatalf("not suspended: %v", err)
	}
	_, _, err = Solve(w, ins[1].State, lb.Config{Resume: s})
	if err == nil || errors.Is(err, lb.ErrSuspended) {
		t.Fatalf("resumed korf %d with the state of korf %d: %v", ins[1].ID, ins[0].ID, err)
	}
}
