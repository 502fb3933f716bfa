package driver_test

import (
	"fmt"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// TestAlone: a rank of a world of two runs a job alone, as a run of one
// rank does, while the other waits: every node of the range, in slices of
// the budget (the last one shorter), and a job that resumes a search is
// refused.
func TestAlone(t *testing.T) {
	const n, budget = 12345, 100
	err := mpi.Run(2, func(c *mpi.Comm) error {
		if c.Rank() == 0 {
			for _, b := range []string{"rp", "static", "ps"} {
				info, err := lb.Lookup(b)
				if err != nil {
					return err
				}
				job := lb.Job{Config: lb.Config{Balancer: info.New, Budget: budget},
					NewApp: func() lb.App { return lbtest.NewRange(n) }}
				st, err := driver.Alone(c, job)
				if err != nil {
					return fmt.Errorf("%s: %w", b, err)
				}
				if st.Nodes != n || st.Slices != (n+budget-1)/budget || st.MessagesSent != 0 {
					return fmt.Errorf("%s: %d nodes in %d slices, %d messages; want %d in %d, none", b, st.Nodes, st.Slices,
						st.MessagesSent, n, (n+budget-1)/budget)
				}
			}
			job := lb.Job{Config: lb.Config{Resume: &lb.Suspended{}}, NewApp: func() lb.App { return lbtest.NewRange(n) }}
			if _, err := driver.Alone(c, job); err == nil {
				return fmt.Errorf("a resumed search alone: no error")
			}
		}
		return c.Barrier()
	})
	if err != nil {
		t.Fatal(err)
	}
}
