package driver_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// TestStallWatchdog: rank 3 of 4 joins the start of the run and then hangs
// (as a rank stopped by SIGSTOP would: it answers nothing, so requests to
// it get no answer and no termination wave passes it). The other ranks'
// watchdogs (Options.StallTimeout) notice that they hear nothing, and the
// run ends with a *StallError that says a running rank's state and has
// exit status ExitStall, within a few timeouts, instead of hanging.
func TestStallWatchdog(t *testing.T) {
	for _, mode := range []driver.Pool{driver.PoolNever, driver.PoolAlways} {
		t.Run(fmt.Sprintf("pool=%d", mode), func(t *testing.T) { testStallWatchdog(t, mode) })
	}
}

func testStallWatchdog(t *testing.T, mode driver.Pool) {
	const timeout = 200 * time.Millisecond
	start := time.Now()
	err := mpi.Run(4, func(c *mpi.Comm) error {
		if c.Rank() == 3 {
			// The driver's agreement that starts the search (ok, the least
			// fingerprint, minus the greatest), with a contribution that
			// leaves the others' as they are.
			if err := mpi.Allreduce(c, []int64{1, math.MaxInt64, math.MaxInt64}, make([]int64, 3), mpi.Min); err != nil {
				return err
			}
			_, err := c.Probe(0, mpi.MaxTag) // a message nobody sends: ends when the world is aborted
			return err
		}
		w := driver.NewWith(c, driver.Options{StallTimeout: timeout, Pool: mode})
		_, _, err := lb.Run(w, lb.Config{Seed: 1, Budget: 50}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, 12, lbtest.Count) })
		return err
	})
	took := time.Since(start)
	var se *driver.StallError
	if !errors.As(err, &se) {
		t.Fatalf("after %v: %v, want a stall", took, err)
	}
	if took > 10*timeout+time.Second { // a hang would be for ever
		t.Errorf("the stall took %v to detect with a timeout of %v", took, timeout)
	}
	if se.State.Rank == 3 || se.State.Size != 4 || se.Quiet < timeout || se.Timeout != timeout {
		t.Errorf("stall state %+v, quiet %v", se.State, se.Quiet)
	}
	if se.ExitCode() != driver.ExitStall {
		t.Errorf("exit status %d, want %d", se.ExitCode(), driver.ExitStall)
	}
	msg := err.Error()
	for _, want := range []string{"stalled", "--stall-timeout 200ms", "of 4: idle", "termination: "} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	t.Log(msg)
}

// TestStallWatchdogQuiet: a healthy run with the watchdog on ends with its
// count; idle ranks hear answers and waves all along.
func TestStallWatchdogQuiet(t *testing.T) {
	want := lbtest.Sequential(3, 14, lbtest.Count).Nodes
	err := mpi.Run(5, func(c *mpi.Comm) error {
		w := driver.NewWith(c, driver.Options{StallTimeout: 2 * time.Second})
		got, _, err := lb.Run(w, lb.Config{Seed: 1, Budget: 50}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, 14, lbtest.Count) })
		if err == nil && got.Nodes != want {
			t.Errorf("rank %d: %d nodes, want %d", c.Rank(), got.Nodes, want)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
