package alphatree

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: the tasks of an α-tree keep lb.Task's promises
// (lbtest.TestApp), exhaustively.
func TestTaskContract(t *testing.T) {
	p := mustNew(t, 0.96, 4)
	lbtest.TestApp(t, func() lb.App { return NewApp(p) }, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult[Result](nil)})
}
