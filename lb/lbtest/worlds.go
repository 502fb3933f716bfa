package lbtest

import (
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lockstep"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// World is a world the conformance tables run every balancer in: each runs
// its ranks through lb.Rank.
type World struct {
	Name string
	// Run calls f with a world of p ranks whose network (or schedule) seed
	// is seed: once in the simulator, once on every rank, collectively, in
	// the embedded world. It returns the first error of f.
	Run func(p int, seed uint64, f func(w lb.World) error) error
}

// Worlds returns the worlds of this build that one process can start: the
// simulator on the seeded fake network, the lock-step world of seed 003's
// step model (its seed unused), and the embedded world of goroutine ranks
// (not in the MPI build, whose world mpirun starts; the MPI suite,
// scripts/mpi-test.sh, runs the commands there). The embedded world is
// there twice: as New makes it (an oversubscribed one runs its ranks on a
// pool of workers) and with each rank on its own goroutine
// (driver.PoolNever), the loop of an MPI rank.
func Worlds() []World {
	ws := []World{{Name: "sim", Run: func(p int, seed uint64, f func(lb.World) error) error {
		w, err := sim.New(p, sim.Config{Seed: seed})
		if err != nil {
			return err
		}
		return f(w)
	}}, {Name: "lockstep", Run: func(p int, _ uint64, f func(lb.World) error) error {
		w, err := lockstep.New(p, lockstep.Config{})
		if err != nil {
			return err
		}
		return f(w)
	}}}
	if mpi.WorldName == "embedded" {
		ws = append(ws, World{Name: "embedded", Run: func(p int, _ uint64, f func(lb.World) error) error {
			return mpi.Run(p, func(c *mpi.Comm) error { return f(driver.New(c)) })
		}}, World{Name: "embedded-goroutines", Run: func(p int, _ uint64, f func(lb.World) error) error {
			return mpi.Run(p, func(c *mpi.Comm) error { return f(driver.NewWith(c, driver.Options{Pool: driver.PoolNever})) })
		}})
	}
	return ws
}
