package hashtable

import (
	"testing"

	"github.com/treelb/treelb/mpi"
)

// forSizes runs f on a world of every test size and fails t on any error.
// It assumes nothing about the world: under -tags mpi it runs on the ranks
// mpirun started.
func forSizes(t *testing.T, f func(c *mpi.Comm) error) {
	t.Helper()
	for _, n := range testSizes {
		if err := mpi.Run(n, f); err != nil {
			t.Fatalf("%d ranks: %v", n, err)
		}
	}
}
