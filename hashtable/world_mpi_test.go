//go:build mpi

package hashtable

import (
	"testing"

	"github.com/treelb/treelb/mpi/mpitest"
)

// testSizes: under MPI every mpi.Run takes the size mpirun gave (0), so
// every distributed test runs once on the real world.
var testSizes = []int{0}

// benchRanks: the benchmarks run at mpirun's size too (use -np 2).
const benchRanks = 0

// TestMain initialises MPI once for all the tests, which call mpi.Run many
// times, and finalises it at the end.
func TestMain(m *testing.M) { mpitest.Main(m) }
