// Command knapsack solves 0-1 knapsack instances exactly by depth-first
// branch-and-bound, as in Sanders, "Randomized receiver initiated load
// balancing algorithms for tree shaped computations" (seed 002 of
// docs/papers.md), §6.3, sequentially or with a load balancer on many
// ranks: goroutines in the default build (--np), MPI processes when built
// with -tags mpi and started by mpirun or srun, or simulated ranks (--world
// sim). Its subcommand gen writes random instances.
//
//	knapsack gen --class sanders -m 2000 --seed 4 > s4.txt
//	knapsack s4.txt                              # random polling on every CPU
//	knapsack -b seq --search hs --json s4.txt    # the paper's search, sequential
//	knapsack gen --class strongly -m 60 | knapsack --np 4 -b koso -
//	mpirun -np 2 bin/openmpi/knapsack --json s4.txt
//
// An instance is the count of items, one "profit weight" line per item and
// the capacity (decimals with --scale). --search core (the default) is
// Pisinger's expanding-core search, --search hs the Horowitz–Sahni search
// of the paper; both start from the greedy solution, and a better solution
// found on one rank bounds every rank. It prints the optimal profit, the
// weight and the items (--json: one object). A malformed file is exit
// status 2 on every rank, naming the line; a search checkpointed and not
// finished exits 3.
//
// The flags every command shares are in docs/usage.md; the application in
// docs/apps/knapsack.md.
package main
