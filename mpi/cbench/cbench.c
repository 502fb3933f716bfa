/*
 * cbench: the MPI measurements of mpi/bench_test.go, in plain C, as the
 * baseline of the Go binding. Build with an implementation's mpicc and run
 * with 2 ranks:
 *
 *     mpicc -O2 -o cbench mpi/cbench/cbench.c
 *     mpirun -np 2 ./cbench 20000
 *
 * Rank 0 prints one line per benchmark in the format of go test -bench,
 * under the same names, so that scripts/mpi-bench.sh (or benchstat) can put
 * them beside the Go figures.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void check(int err, const char *what) {
	if (err != MPI_SUCCESS) {
		char msg[MPI_MAX_ERROR_STRING];
		int n = 0;
		MPI_Error_string(err, msg, &n);
		fprintf(stderr, "cbench: rank %d: %s: %s\n", rank, what, msg);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* ping_pong runs n round trips of len bytes between ranks 0 and 1. */
static void ping_pong(char *buf, int len, long n) {
	for (long i = 0; i < n; i++) {
		if (rank == 0) {
			check(MPI_Send(buf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD), "MPI_Send");
			check(MPI_Recv(buf, len, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
		} else if (rank == 1) {
			check(MPI_Recv(buf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
			check(MPI_Send(buf, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD), "MPI_Send");
		}
	}
}

static void bench_ping_pong(const char *name, int len, long n) {
	char *buf = calloc(len, 1);
	ping_pong(buf, len, n < 100 ? n : 100);
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	double t = now();
	ping_pong(buf, len, n);
	t = now() - t;
	if (rank == 0) {
		printf("%s\t%ld\t%.1f ns/op\t%.2f MB/s\t%.1f ns/oneway\n", name, n, t * 1e9 / n,
		       2.0 * len * n / t / 1e6, t * 1e9 / (2 * n));
	}
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	free(buf);
}

static void iprobe(long n) {
	MPI_Status st;
	int flag;
	for (long i = 0; i < n; i++) {
		check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
		if (flag) {
			fprintf(stderr, "cbench: Iprobe found a message\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
}

static void bench_iprobe(long n) {
	if (rank == 0) {
		iprobe(n < 100 ? n : 100);
	}
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	if (rank == 0) {
		double t = now();
		iprobe(n);
		t = now() - t;
		printf("BenchmarkIprobeEmpty\t%ld\t%.2f ns/op\n", n, t * 1e9 / n);
	}
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
}

static void allreduce(long n) {
	int64_t send = rank, recv = 0;
	for (long i = 0; i < n; i++) {
		check(MPI_Allreduce(&send, &recv, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
	}
	if (recv != (int64_t)size * (size - 1) / 2) {
		fprintf(stderr, "cbench: wrong Allreduce sum\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void bench_allreduce(long n) {
	allreduce(n < 100 ? n : 100);
	check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	double t = now();
	allreduce(n);
	t = now() - t;
	if (rank == 0) {
		printf("BenchmarkAllreduceInt64\t%ld\t%.1f ns/op\n", n, t * 1e9 / n);
	}
}

int main(int argc, char **argv) {
	int provided;
	long n = argc > 1 ? atol(argv[1]) : 20000;
	if (n < 1) {
		fprintf(stderr, "usage: cbench [iterations]\n");
		return 2;
	}
	check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
	check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
	check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
	check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
	if (size < 2) {
		if (rank == 0) {
			fprintf(stderr, "cbench: needs at least 2 ranks\n");
		}
		MPI_Finalize();
		return 2;
	}
	bench_ping_pong("BenchmarkPingPong8", 8, n);
	bench_ping_pong("BenchmarkPingPong64K", 64 << 10, n);
	bench_iprobe(n);
	bench_allreduce(n);
	check(MPI_Finalize(), "MPI_Finalize");
	return 0;
}
