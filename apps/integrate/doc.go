// Command integrate runs the two workloads of Barrows, Gregory, Gao,
// Rosenberg and Cohen, "An empirical study of dynamic scheduling on rings of
// processors" (seed 003 of docs/papers.md), §4, as tree-shaped
// computations, sequentially or with a load balancer on many ranks:
// goroutines in the default build (--np), MPI processes when built with
// -tags mpi and started by mpirun or srun, or simulated ranks (--world sim).
//
//	integrate poly                              # the random polynomial of --poly-seed 1, absolute rule
//	integrate poly --poly-seed 7 --rule relative --theta-a 1e-8
//	integrate poly --roots 0.25,0.5 --factor 2 --interval -1,1
//	integrate func help                         # the named functions and their exact integrals
//	integrate func gauss -b koso --np 8 --json
//	integrate alpha --alpha 0.97 --tree-seed 3 -b koso-star
//	integrate alpha --alpha 0.97 --np 8 -b koso --world sim --machine unit --budget 1   # the paper's step model
//	mpirun -np 2 bin/openmpi/integrate alpha --json
//
// poly and func integrate by the adaptive trapezoid rule (package
// apps/integrate/quad) and print the value, the exact integral where it is
// known, and the tree (nodes, leaves, height); alpha expands the synthetic
// α-tree (package apps/integrate/alphatree) and prints the tree and its
// digest. The leaves are summed exactly, so the value, the tree and the
// digest are the same bit for bit under every balancer, rank count and
// world. --poly-seed and --tree-seed choose the workload, --seed only the
// ranks' random sources. Bad input is exit status 2 on every rank; a search
// checkpointed and not finished exits 3.
//
// The flags every command shares are in docs/usage.md; the application in
// docs/apps/integrate.md, the paper's tables in docs/seed003.md.
package main
