package hashtable

import (
	"testing"

	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/mpi/mpitest"
)

// forSizes runs f on a world of every test size and fails t on any error.
// It assumes nothing about the world: under -tags mpi it runs on the ranks
// mpirun started.
func forSizes(t *testing.T, f func(c *mpi.Comm) error) {
	t.Helper()
	mpitest.ForSizes(t, testSizes, f)
}
