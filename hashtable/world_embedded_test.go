//go:build !mpi

package hashtable

// testSizes are the world sizes the distributed tests run on: in the
// embedded world, every size the issue names, each a fresh mpi.Run.
var testSizes = []int{1, 2, 3, 7, 16}

// benchRanks is the world size of the dispatch benchmarks: p = 2.
const benchRanks = 2
