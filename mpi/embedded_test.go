//go:build !mpi

package mpi_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/treelb/treelb/mpi"
)

var testSizes = []int{1, 2, 3, 4, 7, 16}

func TestRunRejectsNoRanks(t *testing.T) {
	if err := mpi.Run(0, func(*mpi.Comm) error { return nil }); err == nil {
		t.Fatal("Run(0) succeeded")
	}
	// A nil function is an error that says so, not a panic on every rank.
	if err := mpi.Run(2, nil); err == nil || !strings.Contains(err.Error(), "f is nil") {
		t.Fatalf("Run(2, nil): %v", err)
	}
}

// TestAbort: one rank aborts while the others block in a receive; every rank
// returns and Run reports the abort with its code.
func TestAbort(t *testing.T) {
	err := mpi.Run(8, func(c *mpi.Comm) error {
		if c.Rank() == 5 {
			return c.Abort(3)
		}
		_, err := c.Recv(make([]byte, 8), mpi.AnySource, mpi.AnyTag)
		if !mpi.IsAborted(err) {
			t.Errorf("rank %d: blocked receive ended with %v", c.Rank(), err)
		}
		return err
	})
	var ae *mpi.AbortError
	if !errors.As(err, &ae) || ae.Code != 3 || ae.Rank != 5 || ae.ExitCode() != 3 {
		t.Fatalf("Run returned %v, want rank 5's abort with code 3", err)
	}
}

// TestRankFailure: a rank's error or panic ends Run with that error while the
// others wait in probes, collectives and non-blocking waits.
func TestRankFailure(t *testing.T) {
	for _, panicking := range []bool{false, true} {
		err := mpi.Run(6, func(c *mpi.Comm) error {
			switch c.Rank() {
			case 2:
				if panicking {
					panic("boom")
				}
				return errors.New("boom")
			case 0:
				_, err := c.Probe(mpi.AnySource, mpi.AnyTag)
				return err
			case 1:
				r, err := c.Irecv(make([]byte, 1), 3, 0)
				if err != nil {
					return err
				}
				_, err = r.Wait()
				return err
			default:
				return c.Barrier()
			}
		})
		if err == nil || !strings.Contains(err.Error(), "rank 2") || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("panic=%v: Run returned %v", panicking, err)
		}
	}
}

// rankErr is an error that names its rank, as lb.RankError does.
type rankErr int

func (e rankErr) Error() string   { return fmt.Sprintf("lb: rank %d: bad", int(e)) }
func (e rankErr) FailedRank() int { return int(e) }

// TestRankNamedOnce: Run names the rank of a rank's error, once: an error
// that names its own rank (a FailedRank method) keeps its message, where
// it read "rank 2: lb: rank 2: …"; any other error is prefixed, but in a
// world of one rank.
func TestRankNamedOnce(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{rankErr(2), "lb: rank 2: bad"},
		{rankErr(1), "rank 2: lb: rank 1: bad"},
		{fmt.Errorf("step 3: %w", rankErr(2)), "rank 2: step 3: lb: rank 2: bad"},
		{errors.New("bad"), "rank 2: bad"},
	} {
		err := mpi.Run(3, func(comm *mpi.Comm) error {
			if comm.Rank() == 2 {
				return c.err
			}
			return nil
		})
		if err == nil || err.Error() != c.want {
			t.Errorf("Run returned %v, want %q", err, c.want)
		}
	}
	// A world of one rank (the sequential solver's) names none: "rank 0:"
	// told nothing, before a message about standard output.
	if err := mpi.Run(1, func(*mpi.Comm) error { return errors.New("bad") }); err == nil || err.Error() != "bad" {
		t.Errorf("Run(1) returned %v, want %q", err, "bad")
	}
	// Nor does an error that is the command's (package runner's usage and
	// output errors), wrapped or not: "golomb: rank 0: writing standard
	// output" named a rank the user never chose.
	for _, e := range []error{commandError{}, fmt.Errorf("wrapped: %w", commandError{})} {
		err := mpi.Run(3, func(c *mpi.Comm) error {
			if c.Rank() == 0 {
				return e
			}
			return nil
		})
		if err == nil || err.Error() != e.Error() {
			t.Errorf("Run returned %v, want %q", err, e)
		}
	}
}

// commandError is an error of the command's, not a rank's.
type commandError struct{}

func (commandError) Error() string      { return "writing standard output: no space left on device" }
func (commandError) CommandError() bool { return true }

// TestScale: 1024 ranks in one process, a ring pass and an Allreduce.
func TestScale(t *testing.T) {
	const n = 1024
	err := mpi.Run(n, func(c *mpi.Comm) error {
		me := c.Rank()
		if err := c.Send([]byte{byte(me)}, (me+1)%n, 0); err != nil {
			return err
		}
		b := make([]byte, 1)
		if _, err := c.Recv(b, (me-1+n)%n, 0); err != nil {
			return err
		}
		got := make([]int64, 1)
		if err := mpi.Allreduce(c, []int64{int64(b[0])}, got, mpi.Sum); err != nil {
			return err
		}
		if got[0] != int64(n/256*(255*256/2)) {
			t.Errorf("sum %d", got[0])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRunUnderLauncher: the embedded build started by a launcher as one of
// several tasks stops before any rank runs, with exit code 2; as the only
// task it runs.
func TestRunUnderLauncher(t *testing.T) {
	t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
	ran := false
	err := mpi.Run(2, func(*mpi.Comm) error { ran = true; return nil })
	var le *mpi.LaunchError
	if !errors.As(err, &le) || le.ExitCode() != 2 || ran || !strings.Contains(err.Error(), "the embedded build (goroutine ranks, no MPI), started by Open MPI's mpirun -np 2") {
		t.Fatalf("Run under mpirun -np 2: %v (f ran: %v), want a *LaunchError naming the launch", err, ran)
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "1")
	if err := mpi.Run(2, func(*mpi.Comm) error { return nil }); err != nil {
		t.Fatalf("Run under mpirun -np 1: %v", err)
	}
}

// TestIdleEnv: a bad TREELB_IDLE is an error of exit code 2 in the embedded
// world too; a good one changes nothing there.
func TestIdleEnv(t *testing.T) {
	t.Setenv(mpi.IdleEnv, "sleep")
	err := mpi.Run(2, func(*mpi.Comm) error { return nil })
	var le *mpi.LaunchError
	if !errors.As(err, &le) || le.ExitCode() != 2 {
		t.Fatalf("Run with %s=sleep: %v, want a *LaunchError", mpi.IdleEnv, err)
	}
	t.Setenv(mpi.IdleEnv, "spin")
	err = mpi.Run(2, func(c *mpi.Comm) error {
		c.SetIdle(mpi.IdleSpin)
		if c.Idle() != mpi.IdleYield {
			return fmt.Errorf("Idle() = %v, want yield (goroutines block)", c.Idle())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLocalAndAborted: every rank of a world gets the one value Local made
// under a key (another world gets its own), and Aborted is closed once a
// rank fails, not before.
func TestLocalAndAborted(t *testing.T) {
	type key struct{}
	var first *int
	for range 2 {
		var got [4]*int
		err := mpi.Run(4, func(c *mpi.Comm) error {
			got[c.Rank()] = c.Local(key{}, func() any { return new(int) }).(*int)
			select {
			case <-c.Aborted():
				return errors.New("aborted before any rank failed")
			default:
			}
			if err := c.Barrier(); err != nil {
				return err
			}
			if c.Rank() == 3 {
				return errors.New("boom")
			}
			<-c.Aborted() // ends because rank 3 failed
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "rank 3: boom") {
			t.Fatalf("Run returned %v, want rank 3's error", err)
		}
		for r, p := range got {
			if p == nil || p != got[0] {
				t.Fatalf("rank %d got %p, rank 0 %p", r, p, got[0])
			}
		}
		if got[0] == first {
			t.Fatal("two worlds share a Local value")
		}
		first = got[0]
	}
}
