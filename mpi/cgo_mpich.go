//go:build mpi && mpich

package mpi

// MPICH is chosen with -tags mpi,mpich.

// #cgo pkg-config: mpich
import "C"

// Implementation names the MPI library this binary was built for:
// "embedded", "openmpi" or "mpich".
const Implementation = "mpich"
