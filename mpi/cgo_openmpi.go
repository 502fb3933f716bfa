//go:build mpi && !mpich && !mpiflags

package mpi

// Open MPI is the default library of the MPI world (-tags mpi), found by
// pkg-config (ompi-c.pc). See cgo_flags.go for other MPIs.

// #cgo pkg-config: ompi-c
import "C"
