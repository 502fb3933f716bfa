package mpitest

import (
	"fmt"
	"os"
	"testing"

	"github.com/treelb/treelb/mpi"
)

// Sizes returns the world sizes a distributed test runs on: the given ones in
// the embedded world, and 0 (the launcher's size) under MPI.
func Sizes(embedded ...int) []int {
	if mpi.WorldName == "mpi" {
		return []int{0}
	}
	return embedded
}

// ForSizes runs f on a world of every size in sizes and fails t on the first
// error.
func ForSizes(t testing.TB, sizes []int, f func(c *mpi.Comm) error) {
	t.Helper()
	for _, n := range sizes {
		if err := mpi.Run(n, f); err != nil {
			t.Fatalf("size %d: %v", n, err)
		}
	}
}

// Main is a TestMain for packages whose tests call mpi.Run many times: it
// initialises MPI once (nothing to do in the embedded world), runs setup,
// runs the tests and finalises, then exits.
func Main(m *testing.M, setup ...func() error) {
	if err := mpi.Init(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, f := range setup {
		if err := f(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	if err := mpi.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}

// AgreeN checks that every rank runs a benchmark with the same b.N. Under
// MPI each process picks b.N itself, and without -test.benchtime=Nx they
// would disagree and deadlock; this reports it instead. Collective.
func AgreeN(c *mpi.Comm, n int) error {
	v, lo, hi := []int64{int64(n)}, []int64{0}, []int64{0}
	if err := mpi.Allreduce(c, v, lo, mpi.Min); err != nil {
		return err
	}
	if err := mpi.Allreduce(c, v, hi, mpi.Max); err != nil {
		return err
	}
	if lo[0] != hi[0] {
		return fmt.Errorf("ranks disagree on b.N (%d to %d): run with -test.benchtime=Nx", lo[0], hi[0])
	}
	return nil
}
