package knap

import (
	"slices"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: both searches' tasks keep lb.Task's promises
// (lbtest.TestApp) on a seed 002 instance of 60 items; branch-and-bound
// prunes by an incumbent that depends on the order, so node counts are not
// checked, but the parts' results combine to the whole's optimum.
func TestTaskContract(t *testing.T) {
	in, err := Generate(GenConfig{Class: Sanders, M: 60, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Search{Core, HS} {
		t.Run(s.String(), func(t *testing.T) {
			lbtest.TestApp(t, func() lb.App {
				a, err := NewApp(in, s)
				if err != nil {
					t.Fatal(err)
				}
				return a
			}, lbtest.AppOptions{Result: lbtest.SameResult(func(w, p Result) bool {
				return w.Profit == p.Profit && w.Weight == p.Weight && slices.Equal(w.Items, p.Items)
			})})
		})
	}
}
