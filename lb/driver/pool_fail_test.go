//go:build !mpi

package driver_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// slowPanic is a tree whose rank 2 sleeps in its first slice and whose
// rank 1 panics in a slice while rank 2 sleeps.
type slowPanic struct {
	slowStarted, slowEnded, panicked atomic.Bool
}

type slowPanicApp struct {
	*lbtest.Tree
	rank int
	sp   *slowPanic
}

type slowPanicTask struct {
	lb.Task
	a *slowPanicApp
}

func (a *slowPanicApp) Root() lb.Task { return &slowPanicTask{a.Tree.Root(), a} }

func (a *slowPanicApp) Unmarshal(b []byte) (lb.Task, error) {
	t, err := a.Tree.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return &slowPanicTask{t, a}, nil
}

func (t *slowPanicTask) Split() lb.Task {
	if s := t.Task.Split(); s != nil {
		return &slowPanicTask{s, t.a}
	}
	return nil
}

func (t *slowPanicTask) Work(budget int64) int64 {
	sp := t.a.sp
	switch t.a.rank {
	case 2:
		if sp.slowStarted.CompareAndSwap(false, true) {
			time.Sleep(300 * time.Millisecond)
			sp.slowEnded.Store(true)
		}
	case 1:
		if sp.slowStarted.Load() && sp.panicked.CompareAndSwap(false, true) {
			panic("boom")
		}
	}
	return t.Task.Work(budget)
}

// TestPoolFailWaitsForTurns: when a rank's turn on the pool fails (rank 1
// panics) while another worker runs rank 2's slice, mpi.Run returns only
// after that slice: no worker runs a rank's app after the run has returned
// (found by a concurrency review: the failed session told rank 2's
// goroutine at once, and Run returned with rank 2's Work still running).
func TestPoolFailWaitsForTurns(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for try := range 5 {
		sp := new(slowPanic)
		err := mpi.Run(4, func(c *mpi.Comm) error {
			w := driver.NewWith(c, driver.Options{Pool: driver.PoolAlways})
			_, _, err := lb.Run(w, lb.Config{Seed: uint64(try), Budget: 50}, func() lb.Reducer[lbtest.TreeResult] {
				return &slowPanicApp{lbtest.NewTree(3, 22, lbtest.Count), c.Rank(), sp}
			})
			return err
		})
		if !sp.panicked.Load() {
			continue // rank 2 got no work before the search ended
		}
		if err == nil {
			t.Fatalf("try %d: rank 1 panicked and the run returned no error", try)
		}
		if !sp.slowEnded.Load() {
			t.Fatalf("try %d: mpi.Run returned (%v) while rank 2's slice still ran on a worker", try, err)
		}
		return
	}
	t.Skip("rank 2 never got work in 5 tries: nothing checked")
}

// TestPoolAutoOnePerWorld: the ranks of a world decide PoolAuto alike even
// while GOMAXPROCS changes as they leave the barrier (a runtime.GOMAXPROCS
// call, or the runtime's own update of it): ranks that decided apart, some
// on the pool and some in their own loops, waited for each other's
// messages for ever (found by a concurrency review).
func TestPoolAutoOnePerWorld(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for try := range 10 {
		var stop atomic.Bool
		flipped := make(chan struct{})
		go func() {
			defer close(flipped)
			for n := 0; !stop.Load(); n++ {
				runtime.GOMAXPROCS(2 + 4*(n%2)) // 2 or 6, around the 4 ranks
				time.Sleep(20 * time.Microsecond)
			}
		}()
		res := make(chan error, 1)
		go func() {
			res <- mpi.Run(4, func(c *mpi.Comm) error {
				w := driver.NewWith(c, driver.Options{StallTimeout: 5 * time.Second})
				_, _, err := lb.Run(w, lb.Config{Seed: uint64(try), Budget: 50}, func() lb.Reducer[lbtest.TreeResult] {
					return lbtest.NewTree(3, 12, lbtest.Count)
				})
				return err
			})
		}()
		var err error
		select {
		case err = <-res:
		case <-time.After(20 * time.Second):
			err = errors.New("the run did not end within 20 s")
		}
		stop.Store(true)
		<-flipped
		if err != nil {
			t.Fatalf("try %d: %v", try, err)
		}
	}
}
