package quad

import (
	"math"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: the tasks of adaptive integration keep lb.Task's
// promises (lbtest.TestApp), exhaustively (the tree of intervals depends
// only on the function and the rule): the named functions under the
// absolute rule, and a random polynomial under the relative one.
func TestTaskContract(t *testing.T) {
	problems := map[string]*Problem{}
	for _, fn := range Funcs() {
		p, err := New(fn.F, 0, 1, Options{ThetaA: 1e-9, ThetaR: SeedThetaR})
		if err != nil {
			t.Fatal(err)
		}
		problems[fn.Name] = p
	}
	p, err := New(RandomPoly(7).Eval, 0, 1, Options{ThetaA: 1e-9, ThetaR: SeedThetaR, Rule: Relative})
	if err != nil {
		t.Fatal(err)
	}
	problems["poly7-relative"] = p
	for name, p := range problems {
		t.Run(name, func(t *testing.T) {
			lbtest.TestApp(t, func() lb.App { return NewApp(p) }, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult(sameQuad)})
		})
	}
}

// sameQuad compares the results of a whole integration and of its parts:
// the same tree (nodes, leaves, height, digest) and the same value bit for
// bit (the leaves' values are summed exactly); the replayed intervals are
// the splits' overhead.
func sameQuad(w, p Result) bool {
	return w.Nodes == p.Nodes && w.Leaves == p.Leaves && w.Height == p.Height && w.Digest == p.Digest &&
		math.Float64bits(w.Sum.Value()) == math.Float64bits(p.Sum.Value())
}
