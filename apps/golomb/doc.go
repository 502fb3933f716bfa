// Command golomb finds a shortest Golomb ruler with MARKS marks and proves
// it optimal, sequentially or with a load balancer on many ranks: goroutines
// in the default build (--np), MPI processes when built with -tags mpi and
// started by mpirun or srun, or simulated ranks (--world sim, on a machine
// model: --machine help lists them). It is the first application of
// Sanders, "Randomized receiver initiated load balancing algorithms for tree
// shaped computations" (seed 002 of docs/papers.md), §6.1.
//
//	golomb 12                                  # random polling on every CPU
//	golomb -b seq 12                           # the sequential solver, the baseline of every speedup
//	golomb --np 4 -b ps --stats 12             # poll-and-shuffle, per-rank statistics
//	golomb --count 85 12                       # count the rulers of length ≤ 85: exhaustive
//	golomb --world sim --machine gcel --np 1024 --budget 1000 --count 75 12 --seq-nodes 17882903
//	golomb 16 --checkpoint g.ckpt --checkpoint-every 30m
//	mpirun -np 64 bin/openmpi/golomb 14
//
// The search (package apps/golomb/ruler) solves the shortest rulers with
// 2, 3, … marks one after the other, each step a load-balanced
// branch-and-bound search bounded by the steps before it; --count L then
// counts every ruler of length at most L, a search whose node count is the
// same under every balancer and rank count. It prints the ruler, its
// length and the nodes (--json: one object with every step, the messages
// by kind and the run's provenance). Bad input is exit status 2 on every
// rank; a search checkpointed and not finished exits 3.
//
// The flags every command shares are in docs/usage.md; the application in
// docs/apps/golomb.md.
package main
