//go:build mpi && mpich && !mpiflags

package mpi

// MPICH is chosen with -tags mpi,mpich, found by pkg-config (mpich.pc).

// #cgo pkg-config: mpich
import "C"
