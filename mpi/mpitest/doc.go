// Package mpitest helps tests run on either world of package mpi: the same
// test runs at several sizes in the embedded world and once at mpirun's size
// under -tags mpi.
//
// A distributed test asks Sizes for the world sizes to run on (the ones it
// names in the embedded world; 0, the launcher's size, under MPI) and runs
// its rank function on each with ForSizes. Under -tags mpi the package's
// test binary is started by mpirun (scripts/mpi-test.sh builds it with go
// test -c and runs it at several -np), MPI is initialised once for the
// whole binary by Main, used as TestMain, and every rank runs every test.
// AgreeN checks that every rank runs a benchmark with the same b.N (under
// MPI each process picks b.N itself), so that a mismatch is reported instead
// of a deadlock.
package mpitest
