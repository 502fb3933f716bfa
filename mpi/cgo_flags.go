//go:build mpi && mpiflags

package mpi

// With -tags mpi,mpiflags the MPI library's compiler and linker flags come
// from the environment, CGO_CFLAGS and CGO_LDFLAGS, instead of pkg-config:
// any MPI-3.0 library builds this way (Intel MPI, MVAPICH, Cray MPICH, an
// MPI with no .pc file). scripts/mpi-build.sh (make mpi) sets them from
// pkg-config, the MPI compiler wrapper (mpicc -show, Open MPI's
// -showme:compile and -showme:link, or $MPICC) or the caller's own, e.g.
//
//	CGO_CFLAGS="$(mpicc -showme:compile)" CGO_LDFLAGS="$(mpicc -showme:link)" \
//		go build -tags mpi,mpiflags ./apps/golomb
//
// Which library it is the binary reads at run time (Implementation).

import "C"
