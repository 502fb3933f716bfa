package tree

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: the tasks of a small binomial and a small geometric
// tree keep lb.Task's promises (lbtest.TestApp), exhaustively; Work
// generates whole batches of up to 16 nodes, so up to 15 more than its
// budget.
func TestTaskContract(t *testing.T) {
	for _, name := range []string{"T1", "T3"} {
		t.Run(name, func(t *testing.T) {
			tr := smallSample(t, name)
			lbtest.TestApp(t, func() lb.App { return NewApp(tr) }, lbtest.AppOptions{Exhaustive: true, Overshoot: lanes - 1, Result: lbtest.SameResult[Counts](nil)})
		})
	}
}

// smallSample returns a small tree of the sample's kind for the contract
// tests: T3's rule with 60 root children, T1's cut at depth 5.
func smallSample(t *testing.T, name string) *Tree {
	t.Helper()
	s, ok := SampleNamed(name)
	if !ok {
		t.Fatalf("no sample tree %s", name)
	}
	p := s.Params()
	if p.Type == Binomial {
		p.B = 60
	} else {
		p.Depth = 5
	}
	tr, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}
