package lockstep_test

import (
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/lockstep"
)

// TestSteps: on one rank, a range of n nodes in slices of b takes ⌈n/b⌉
// steps, one slice a step; on 4 ranks of random polling the count is exact
// and takes fewer steps.
func TestSteps(t *testing.T) {
	run := func(p int) *lb.Outcome {
		t.Helper()
		w, err := lockstep.New(p, lockstep.Config{StepSeconds: 1})
		if err != nil {
			t.Fatal(err)
		}
		got, out, err := lb.Run(w, lb.Config{Budget: 10}, func() lb.Reducer[int64] { return lbtest.NewRange(1000) })
		if err != nil {
			t.Fatal(err)
		}
		if got != 1000 || out.Total.Nodes != 1000 {
			t.Fatalf("P=%d: %d nodes (statistics %d), want 1000", p, got, out.Total.Nodes)
		}
		return out
	}
	if out := run(1); out.Seconds != 100 || out.Total.Slices != 100 {
		t.Errorf("one rank: %g steps, %d slices; want 100 each", out.Seconds, out.Total.Slices)
	}
	if out := run(4); out.Seconds >= 100 {
		t.Errorf("four ranks: %g steps, no fewer than one rank's 100", out.Seconds)
	}
}

// stuck is a balancer that never has work and never ends.
type stuck struct{ st lb.Stats }

func (*stuck) Start(lb.Task)      {}
func (*stuck) Deliver(lb.Msg)     {}
func (*stuck) Tick(int64)         {}
func (*stuck) Task() lb.Task      { return nil }
func (*stuck) Outbox() []lb.Msg   { return nil }
func (*stuck) Done() bool         { return false }
func (s *stuck) Stats() *lb.Stats { return &s.st }

// TestDeadlock: ranks with neither work nor messages that are not done
// are an error, not a hang.
func TestDeadlock(t *testing.T) {
	w, _ := lockstep.New(3, lockstep.Config{})
	_, _, err := lb.Run(w, lb.Config{Balancer: func(lb.Env) (lb.Balancer, error) { return &stuck{}, nil }},
		func() lb.Reducer[int64] { return lbtest.NewRange(10) })
	if err == nil || !strings.Contains(err.Error(), "deadlock") {
		t.Fatalf("a stuck run: %v", err)
	}
}
