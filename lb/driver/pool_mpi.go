//go:build mpi

package driver

import "github.com/treelb/treelb/mpi"

// pooled reports false: every MPI rank is a process of its own, and the
// pool is the embedded world's (pool.go).
func pooled(*mpi.Comm, Options) bool { return false }

// runPooled is never called in the MPI world.
func runPooled(*mpi.Comm, *pace, [][]byte) error { panic("driver: no pool in the MPI world") }
