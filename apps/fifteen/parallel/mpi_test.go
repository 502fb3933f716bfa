package parallel

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// TestUnderMpirun is the test of the MPI build, run by scripts/mpi-test.sh
// as mpirun -np N on the test binary built with -tags mpi: on the ranks mpirun
// gave, the 10 easiest Korf instances under every balancer, with and without
// fast initialisation, give the optimal lengths, solutions that reach the
// goal, and failing iterations with the sequential node counts exactly. In
// the embedded world it runs the same on 2 ranks (on the 3 easiest
// instances under -short).
func TestUnderMpirun(t *testing.T) {
	k := 10
	if testing.Short() && mpi.WorldName == "embedded" {
		k = 3
	}
	ins := easiest(t, k)
	seq := make([]Result, len(ins))
	for i, in := range ins {
		seq[i] = sequential(t, in)
	}
	n := 0 // mpirun's size
	if mpi.WorldName == "embedded" {
		n = 2
	}
	err := mpi.Run(n, func(c *mpi.Comm) error {
		for _, info := range lb.Balancers() {
			for _, fast := range []bool{false, true} {
				for i, in := range ins {
					cfg := lb.Config{Balancer: info.New, Options: lbtest.WithOption(info, nil, "fast-init", strconv.FormatBool(fast)), Seed: uint64(i)}
					got, _, err := Solve(driver.New(c), in.State, cfg)
					if err == nil {
						err = checkResult(in, got, seq[i])
					}
					if err != nil {
						return fmt.Errorf("%s fast=%v P=%d: %w", info.Name, fast, c.Size(), err)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
