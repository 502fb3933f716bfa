package parallel

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: an IDA* iteration's tasks keep lb.Task's promises
// (lbtest.TestApp): a failing iteration (the easiest Korf instance, two
// steps below its optimal length) exhaustively, and the last iteration,
// which stops at the first solution.
func TestTaskContract(t *testing.T) {
	in := easiest(t, 1)[0]
	for _, tc := range []struct {
		name       string
		threshold  int
		exhaustive bool
	}{{"failing", in.Optimal - 4, true}, {"last", in.Optimal, false}} {
		t.Run(tc.name, func(t *testing.T) {
			lbtest.TestApp(t, func() lb.App {
				it, err := NewIteration(in.State, tc.threshold)
				if err != nil {
					t.Fatal(err)
				}
				return it
			}, lbtest.AppOptions{Exhaustive: tc.exhaustive, Result: lbtest.SameResult(func(w, p Outcome) bool {
				if !tc.exhaustive { // the first solution found: one of the optimal length
					return w.Found && p.Found && len(w.Moves) == len(p.Moves)
				}
				return w.Nodes == p.Nodes && w.Digest == p.Digest && w.MinExceeded == p.MinExceeded && !p.Found
			})})
		})
	}
}
