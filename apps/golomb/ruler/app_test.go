package ruler

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: a Search keeps lb.Task's promises (lbtest.TestApp):
// exhaustively when counting the 8-mark rulers up to length 40, and so
// does the search for the shortest 8-mark ruler, whose pruning depends on
// the order.
func TestTaskContract(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			p, err := NewProblem(8, shorter(t, 8), Count, 40)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, lbtest.AppOptions{Exhaustive: true})
	})
	t.Run("shortest", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			p, err := NewProblem(8, shorter(t, 8), Shortest, 40)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, lbtest.AppOptions{})
	})
}
