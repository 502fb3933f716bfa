//go:build mpi && mpich

package mpi

// MPICH is chosen with -tags mpi,mpich.

// #cgo pkg-config: mpich
import "C"
