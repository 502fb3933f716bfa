//go:build mpi

package mpi_test

// The MPI world's test binary: build it with go test -c -tags mpi (or
// mpi,mpich) and run it under mpirun at any size; scripts/mpi-test.sh does
// that at sizes 1, 2 and 4 for both implementations.

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/treelb/treelb/internal/benchratio"
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
	want := fmt.Sprintf("%d ranks were asked for, but the world has %d (", size+1, size)
	var le *mpi.LaunchError
	if !errors.As(err, &le) || le.ExitCode() != 2 || !strings.Contains(err.Error(), want) {
		t.Fatalf("Run(%d) under mpirun -np %d: %v, want a *LaunchError saying %q", size+1, size, err, want)
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
	if err == nil || err.Error() != "boom" { // a world of one names no rank
		t.Fatalf("Run returned %v, want rank 0's error as it is", err)
	}
	err = mpi.Run(0, func(*mpi.Comm) error { panic("bang") })
	if err == nil || !strings.HasPrefix(err.Error(), "panic: bang") {
		t.Fatalf("Run returned %v, want rank 0's panic", err)
	}
}

// TestStartFails: an Isend or Irecv that MPI cannot start (here a count
// over MPI's int) returns no request with its error: a request returned
// beside the error, never started, made a later Wait pass MPI a null
// handle, and Open MPI died of SIGSEGV. The slice is 2 GiB long over one
// byte of memory; the count is refused before anything reads it.
func TestStartFails(t *testing.T) {
	err := mpi.Run(0, func(c *mpi.Comm) error {
		var b [1]byte
		huge := unsafe.Slice(&b[0], math.MaxInt32+1)
		if r, err := c.Isend(huge, c.Rank(), 1); r != nil || !errors.Is(err, mpi.ErrCount) {
			return fmt.Errorf("Isend of 2 GiB: %v, %v; want no request and a count error", r, err)
		}
		if r, err := c.Irecv(huge, c.Rank(), 1); r != nil || !errors.Is(err, mpi.ErrCount) {
			return fmt.Errorf("Irecv of 2 GiB: %v, %v; want no request and a count error", r, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLibraryVersion: the MPI library says what it is, and Implementation
// names it; TREELB_WANT_MPI (the test scripts set it) says which it must be.
func TestLibraryVersion(t *testing.T) {
	v, impl := mpi.LibraryVersion(), mpi.Implementation()
	if impl == mpi.Unknown || impl == "embedded" {
		t.Fatalf("Implementation() = %q for the library %q", impl, v)
	}
	if want := os.Getenv("TREELB_WANT_MPI"); want != "" && impl != want {
		t.Fatalf("Implementation() = %q for the library %q, want %s", impl, v, want)
	}
}

// TestSetIdle: SetIdle chooses the policy, and each Run starts again from
// TREELB_IDLE's (auto when unset: spin unless the node is crowded).
func TestSetIdle(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		for _, p := range []mpi.Idle{mpi.IdleSpin, mpi.IdleYield} {
			c.SetIdle(p)
			if c.Idle() != p {
				return fmt.Errorf("SetIdle(%v): Idle() = %v", p, c.Idle())
			}
		}
		c.SetIdle(mpi.IdleAuto)
		if p := c.Idle(); p != mpi.IdleSpin && p != mpi.IdleYield {
			return fmt.Errorf("SetIdle(auto): Idle() = %v", p)
		}
		return nil
	})
	env, err := mpi.ParseIdle(os.Getenv(mpi.IdleEnv))
	if err != nil || env == mpi.IdleDefault || env == mpi.IdleAuto {
		return
	}
	forSizes(t, func(c *mpi.Comm) error {
		if c.Idle() != env {
			return fmt.Errorf("with %s=%v, Run starts with Idle() = %v", mpi.IdleEnv, env, c.Idle())
		}
		return nil
	})
}

// TestIdleYields: under IdleYield a rank that waits in Probe, Recv, Wait or
// a collective for a message that comes 300 ms later uses little CPU time,
// where MPI's blocking calls (IdleSpin) keep a core busy. Rank 0 sleeps,
// then serves every other rank; the others measure the CPU time of their
// process (all its threads) over the wait.
func TestIdleYields(t *testing.T) {
	const delay = 300 * time.Millisecond
	waits := []struct {
		name string
		wait func(c *mpi.Comm) error
	}{
		{"Probe", func(c *mpi.Comm) error {
			st, err := c.Probe(0, 5)
			if err == nil {
				_, err = c.Recv(make([]byte, st.Count), 0, 5)
			}
			return err
		}},
		{"Recv", func(c *mpi.Comm) error { _, err := c.Recv(make([]byte, 8), 0, 5); return err }},
		{"Wait", func(c *mpi.Comm) error {
			r, err := c.Irecv(make([]byte, 8), 0, 5)
			if err == nil {
				_, err = r.Wait()
			}
			return err
		}},
		{"Barrier", func(c *mpi.Comm) error { return c.Barrier() }},
		{"Allreduce", func(c *mpi.Comm) error { return mpi.Allreduce(c, []int64{1}, make([]int64, 1), mpi.Sum) }},
	}
	forSizes(t, func(c *mpi.Comm) error {
		if c.Size() < 2 {
			return nil
		}
		c.SetIdle(mpi.IdleYield)
		for _, w := range waits {
			collective := w.name == "Barrier" || w.name == "Allreduce"
			if c.Rank() == 0 {
				time.Sleep(delay)
				if collective {
					if err := w.wait(c); err != nil {
						return err
					}
				} else {
					for r := 1; r < c.Size(); r++ {
						if err := c.Send(make([]byte, 8), r, 5); err != nil {
							return err
						}
					}
				}
			} else {
				cpu0, t0 := benchratio.CPUTime(), time.Now()
				if err := w.wait(c); err != nil {
					return err
				}
				cpu, wall := benchratio.CPUTime()-cpu0, time.Since(t0)
				t.Logf("rank %d, %s: %v of CPU in %v", c.Rank(), w.name, cpu, wall)
				if wall < delay/2 {
					return fmt.Errorf("%s returned after %v, before rank 0 sent", w.name, wall)
				}
				if cpu > wall/4 {
					return fmt.Errorf("%s under IdleYield used %v of CPU in %v", w.name, cpu, wall)
				}
			}
			// Start the next wait together.
			c.SetIdle(mpi.IdleSpin)
			if err := c.Barrier(); err != nil {
				return err
			}
			c.SetIdle(mpi.IdleYield)
		}
		return nil
	})
}
