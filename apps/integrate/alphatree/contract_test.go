package alphatree

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: the tasks of an α-tree keep lb.Task's promises
// (lbtest.TestApp), exhaustively. As quad's, a task holding one node does
// not split before it is expanded, so the root does not split: NoHalving.
func TestTaskContract(t *testing.T) {
	p := mustNew(t, 0.96, 4)
	lbtest.TestApp(t, func() lb.App { return NewApp(p) }, lbtest.AppOptions{Exhaustive: true, NoHalving: true})
}
