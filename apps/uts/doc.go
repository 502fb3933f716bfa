// Command uts counts a tree of the Unbalanced Tree Search benchmark (UTS
// 1.1: Olivier et al., LCPC 2006), sequentially or with a load balancer on
// many ranks: goroutines in the default build (--np), MPI processes when
// built with -tags mpi and started by mpirun or srun, or simulated ranks
// (--world sim). Every run counts exactly the reference's nodes, depth and
// leaves (package apps/uts/tree).
//
//	uts --tree T1                                   # a sample tree, random polling on every CPU
//	uts --tree help                                 # the sample trees and their published sizes
//	uts --ref "-t 0 -b 2000 -q 0.124875 -m 8 -r 42" -b koso --json
//	uts --tree-type binomial --branching 2000 --prob 0.2 --children 5 --root-seed 7
//	uts --np 2 -- $T3L                              # after . sample_trees.sh
//	mpirun -np 2 bin/openmpi/uts --tree T1L --json
//
// The tree is given by the reference's flags (-t -b -r -m -q -d -a -f -g),
// as one string with --ref, after --, or one by one by long names; --tree
// starts from a sample tree. It prints the counts as the reference does,
// and the time and rate (--json: one object). A sample tree counted other
// than published is exit status 1; bad parameters are exit status 2; a
// count checkpointed and not finished exits 3. --kernel picks the SHA-1
// kernel (avx512, avx2 or crypto/sha1; the default is the fastest the
// processor has).
//
// The flags every command shares are in docs/usage.md; the benchmark and
// its results in docs/apps/uts.md.
package main
