package ruler

import (
	"slices"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: a Search keeps lb.Task's promises (lbtest.TestApp):
// exhaustively when counting the 8-mark rulers up to length 40, and so
// does the search for the shortest 8-mark ruler, whose pruning depends on
// the order. The parts' results combine to the whole's: the same count
// and digest, the same shortest ruler.
func TestTaskContract(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			p, err := NewProblem(8, shorter(t, 8), Count, 40)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult(func(w, p Outcome) bool {
			return w.Nodes == p.Nodes && w.Solutions == p.Solutions && w.Digest == p.Digest
		})})
	})
	t.Run("shortest", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			p, err := NewProblem(8, shorter(t, 8), Shortest, 40)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, lbtest.AppOptions{Result: lbtest.SameResult(func(w, p Outcome) bool { return slices.Equal(w.Ruler, p.Ruler) })})
	})
}
