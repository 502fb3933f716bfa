//go:build mpi && !mpich

package mpi

// Open MPI is the default implementation of the MPI world (-tags mpi).

// #cgo pkg-config: ompi-c
import "C"

// Implementation names the MPI library this binary was built for:
// "embedded", "openmpi" or "mpich".
const Implementation = "openmpi"
