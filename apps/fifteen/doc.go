// Command fifteen solves 15-puzzle instances optimally by iterative-deepening
// A* with the Manhattan distance, sequentially or with a load balancer on
// many ranks: goroutines in the default build (--np), MPI processes when
// built with -tags mpi and started by mpirun or srun, or simulated ranks
// (--world sim, on a machine model: --machine help lists them). Every
// iteration of the deepening is one tree-shaped computation, as in Sanders,
// "Randomized receiver initiated load balancing algorithms for tree shaped
// computations" (seed 002 of docs/papers.md), §6.2.
//
//	fifteen --korf 12                       # Korf's instance 12, random polling on every CPU
//	fifteen -b seq --korf 1-10 --json       # ten instances, sequential, one JSON object per line
//	fifteen --np 2 --fast-init 0 12 9 2 15 11 8 14 3 7 1 6 5 4 13 10
//	fifteen --file apps/fifteen/boards.txt  # one board per line
//	mpirun -np 2 bin/openmpi/fifteen --korf 5 --json
//
// Per instance it prints the optimal length, the moves of the blank and one
// line per iteration (threshold, nodes, seconds); --json writes one object
// per instance and line. A length that disagrees with Korf's table, which
// is built in, is exit status 1 after printing; bad input (a wrong count of
// numbers, a repeated tile, an unsolvable board) is exit status 2 on every
// rank; a search checkpointed and not finished exits 3.
//
// The flags every command shares are in docs/usage.md; the input forms,
// the output and the packages (apps/fifteen/puzzle, apps/fifteen/parallel)
// in docs/apps/fifteen.md.
package main
