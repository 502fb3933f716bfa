package driver_test

import (
	"fmt"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// TestDriverEmbedded runs every balancer variant with the real driver over
// the embedded MPI world: exhaustive counts equal the sequential ones, and
// branch-and-bound and first-solution searches give the sequential answer.
func TestDriverEmbedded(t *testing.T) {
	depth, sizes := 19, []int{1, 2, 3, 7, 16}
	if testing.Short() {
		depth, sizes = 16, []int{1, 3, 7}
	}
	for _, v := range lbtest.Variants() {
		for _, p := range sizes {
			t.Run(fmt.Sprintf("%s/P=%d", v.Name, p), func(t *testing.T) {
				err := mpi.Run(p, func(c *mpi.Comm) error {
					w := driver.New(c)
					for _, mode := range []lbtest.Mode{lbtest.Count, lbtest.Bound, lbtest.First} {
						got, out, err := lb.Run(w, v.Config(64, 1), func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(4, depth, mode) })
						if err != nil {
							return err
						}
						if err := lbtest.Check(got, out, 4, depth, mode); err != nil {
							return fmt.Errorf("mode %d: %w", mode, err)
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestRankStats: per-rank statistics reach rank 0 only, and sum to the
// totals every rank gets.
func TestRankStats(t *testing.T) {
	const p = 5
	err := mpi.Run(p, func(c *mpi.Comm) error {
		cfg := lb.Config{Budget: 100, RankStats: true}
		_, out, err := lb.Run(driver.New(c), cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, 18, lbtest.Count) })
		if err != nil {
			return err
		}
		if c.Rank() != 0 {
			if out.Ranks != nil {
				return fmt.Errorf("rank %d got %d ranks' statistics", c.Rank(), len(out.Ranks))
			}
			return nil
		}
		if len(out.Ranks) != p {
			return fmt.Errorf("rank 0 got %d ranks' statistics", len(out.Ranks))
		}
		var sum lb.Stats
		for r := range out.Ranks {
			if out.Ranks[r].Rank != r {
				return fmt.Errorf("statistics %d are rank %d's", r, out.Ranks[r].Rank)
			}
			sum.Add(&out.Ranks[r])
		}
		if sum.Nodes != out.Total.Nodes || sum.MessagesSent != out.Total.MessagesSent {
			return fmt.Errorf("per-rank sums %d nodes, %d messages; totals %d, %d", sum.Nodes, sum.MessagesSent, out.Total.Nodes, out.Total.MessagesSent)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
