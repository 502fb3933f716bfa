//go:build aborttest

// Command aborttest is a job that must end: it checks that one failing rank
// ends the whole job, in the embedded world and under mpirun (-tags mpi),
// instead of hanging it. The mpi package's TestAbortUnderMpirun runs it
// with mpirun -np 3. It builds only with -tags aborttest, so that go
// install ./... leaves this test program out.
//
//	aborttest -mode error|panic|abort|pending|late [-np N]
//
// In modes error, panic and abort, rank 1 returns an error, panics, or calls
// Abort(7), while every other rank blocks in a receive no one will ever
// match; the exit status is non-zero. In mode pending every rank returns
// with receives still in flight, never matched, which Finalize must cancel;
// the exit status is 0. In mode late (MPI only) every rank initialises MPI
// but rank 1 enters mpi.RunWith a minute late, after the others' start-up
// deadline of 3 s: rank 0 must name rank 1 and end the job (ExitStartup).
// In mode stall (MPI only) every rank runs two searches of lb's driver
// with a stall timeout of 2 s, but rank 1 sleeps a minute after the first
// instead of starting the second, as a rank stopped between searches
// would: the others, in the barrier that starts the second search, must
// say so and end the job with the watchdog's status (driver.ExitStall).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

func main() {
	mode := flag.String("mode", "error", "how rank 1 fails: error, panic or abort; or pending, late or stall")
	np := flag.Int("np", 3, "number of ranks in the embedded world (0 under mpirun)")
	flag.Parse()
	if mpi.WorldName == "mpi" {
		*np = 0
	}
	if *mode == "late" {
		if err := mpi.Init(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if mpi.DetectLauncher(os.Getenv).Rank == 1 {
			time.Sleep(time.Minute)
		}
		err := mpi.RunWith(*np, mpi.Options{StartupTimeout: 3 * time.Second}, func(*mpi.Comm) error { return nil })
		fmt.Fprintln(os.Stderr, "aborttest: every rank started:", err)
		os.Exit(3)
	}
	if *mode == "stall" {
		os.Exit(stall(*np))
	}
	if *mode == "pending" {
		if err := mpi.Run(*np, pending); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	err := mpi.Run(*np, func(c *mpi.Comm) error {
		if c.Rank() == 1 || c.Size() == 1 {
			switch *mode {
			case "panic":
				panic("aborttest: rank 1 panics")
			case "abort":
				return c.Abort(7)
			default:
				return errors.New("aborttest: rank 1 fails")
			}
		}
		_, err := c.Recv(make([]byte, 8), mpi.AnySource, 99)
		return err
	})
	if err == nil {
		fmt.Fprintln(os.Stderr, "aborttest: no rank failed")
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, err)
	code := 1
	var ec mpi.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		code = ec.ExitCode()
	}
	os.Exit(code)
}

// pending leaves two receives in flight that no rank will ever match: one
// from any source and one from the next rank.
func pending(c *mpi.Comm) error {
	if _, err := c.Irecv(make([]byte, 8), mpi.AnySource, 42); err != nil {
		return err
	}
	_, err := c.Irecv(make([]byte, 100000), (c.Rank()+1)%c.Size(), 43)
	return err
}

// stall runs mode stall and returns the exit status: 3 if both searches
// ended, which they must not.
func stall(np int) int {
	err := mpi.Run(np, func(c *mpi.Comm) error {
		w := driver.NewWith(c, driver.Options{StallTimeout: 2 * time.Second})
		for search := range 2 {
			if search == 1 && c.Rank() == 1 {
				time.Sleep(time.Minute)
			}
			if _, _, err := lb.Run(w, lb.Config{Seed: 1, Budget: 50}, func() lb.Reducer[lbtest.TreeResult] {
				return lbtest.NewTree(3, 8, lbtest.Count)
			}); err != nil {
				return err
			}
		}
		return nil
	})
	fmt.Fprintln(os.Stderr, "aborttest: both searches ended:", err)
	return 3
}
