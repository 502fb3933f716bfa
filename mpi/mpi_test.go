//go:build mpi

package mpi_test

// The MPI world's test binary: build it with go test -c -tags mpi (or
// mpi,mpich) and run it under mpirun at any size; scripts/mpi-test.sh does
// that at sizes 1, 2 and 4 for both implementations.

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/mpi/mpitest"
)

// testSizes: under MPI, every Run takes the size mpirun gave.
var testSizes = []int{0}

// benchSize: benchmarks run at mpirun's size too (use -np 2).
const benchSize = 0

var quietRanks = flag.Bool("quiet-ranks", false, "send the standard output of every rank but 0 to /dev/null (for benchmarks)")

// TestMain initialises MPI once for all tests, which then call mpi.Run
// many times, and finalises it at the end.
func TestMain(m *testing.M) {
	flag.Parse()
	mpitest.Main(m, func() error {
		if !*quietRanks {
			return nil
		}
		return mpi.Run(0, func(c *mpi.Comm) error {
			if c.Rank() == 0 {
				return nil
			}
			null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			os.Stdout = null
			return err
		})
	})
}

func TestWorldName(t *testing.T) {
	if mpi.WorldName != "mpi" {
		t.Fatalf("WorldName = %q in the MPI build", mpi.WorldName)
	}
}

// TestRunSizeMismatch: asking for another size than mpirun gave is a clear
// error, the same on every rank, and f does not run.
func TestRunSizeMismatch(t *testing.T) {
	size := 0
	if err := mpi.Run(0, func(c *mpi.Comm) error { size = c.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	err := mpi.Run(size+1, func(*mpi.Comm) error { return errors.New("f ran") })
	want := fmt.Sprintf("mpirun gave %d ranks but %d were asked", size, size+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run(%d) under mpirun -np %d: %v, want an error saying %q", size+1, size, err, want)
	}
	if err := mpi.Run(size, func(*mpi.Comm) error { return nil }); err != nil {
		t.Fatalf("Run(%d) at the right size: %v", size, err)
	}
}

// TestGoRuntimeSignals: MPI's own signal handlers must leave the Go
// runtime's in place, so a nil dereference is still a recoverable panic.
func TestGoRuntimeSignals(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) (err error) {
		defer func() {
			if p := recover(); p == nil {
				err = errors.New("no panic from a nil dereference")
			}
		}()
		var p *int
		*p = c.Rank()
		return nil
	})
}

// TestSizeOneError: with one rank, an error from f comes back from Run
// (with more ranks it aborts the job; mpi/internal/aborttest checks that).
func TestSizeOneError(t *testing.T) {
	size := 0
	_ = mpi.Run(0, func(c *mpi.Comm) error { size = c.Size(); return nil })
	if size != 1 {
		t.Skipf("needs mpirun -np 1, have %d ranks", size)
	}
	err := mpi.Run(0, func(*mpi.Comm) error { return errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), "rank 0: boom") {
		t.Fatalf("Run returned %v, want rank 0's error", err)
	}
	err = mpi.Run(0, func(*mpi.Comm) error { panic("bang") })
	if err == nil || !strings.Contains(err.Error(), "rank 0: panic: bang") {
		t.Fatalf("Run returned %v, want rank 0's panic", err)
	}
}
