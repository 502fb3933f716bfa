package parallel

import (
	"errors"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// TestCheckpointResume suspends IDA* on the easiest Korf instance at a
// random moment on 3 simulated ranks (the fake network), resumes it on 2
// goroutine ranks of the embedded world and suspends it again, and
// finishes it on 7 simulated ranks (lbtest.ResumeChain), under every
// balancer variant: the length is optimal, the thresholds are the
// sequential ones and every failing iteration, the suspended ones
// included, has the sequential node count exactly.
func TestCheckpointResume(t *testing.T) {
	embeddedOnly(t)
	in := easiest(t, 1)[0]
	seq := sequential(t, in)
	solve := func(w lb.World, cfg lb.Config) (Result, *lb.Outcome, error) { return Solve(w, in.State, cfg) }
	lbtest.ResumeVariants(t, 1000, 300, 0x15, lbtest.Chain[Result]{First: solve}, func(t *testing.T, got Result) {
		if err := checkResult(in, got, seq); err != nil {
			t.Fatal(err)
		}
	})
}

// TestResumeOtherBoard: the state of a suspended run of one board does not
// resume another.
func TestResumeOtherBoard(t *testing.T) {
	ins := easiest(t, 2)
	w, _ := sim.New(2, sim.Config{})
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
