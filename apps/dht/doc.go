// Command dht runs the distributed chained hash table of Ichiyoshi and
// Kimura, "Asymptotic load balance of distributed hash tables" (seed 004 of
// docs/papers.md): rounds of its four phases (generate, dispatch, search,
// insert) on --np goroutine ranks, or on MPI processes when built with
// -tags mpi and started by mpirun or srun, reporting per phase the load
// balance factor η of the essential work, the time and the throughput.
// "dht sim" runs the counting model of the paper's §4.5 and reproduces its
// Fig. 1 and Table 1; "dht mesh" replays the dispatch phase on a simulated
// 2-D mesh (§5).
//
//	dht --np 64 -Q 36 --rounds 10                  # q = 36 buckets per rank, α = β = 4
//	dht --np 64 -Q 6 --alloc modular --json
//	dht sim --out results/dht-sim                  # Fig. 1 and Table 1, with the CSVs and the plot
//	dht mesh --machine gcel --max-p 1024 --out DIR # the dispatch on a mesh
//	mpirun -np 16 bin/openmpi/dht -Q 36
//
// Work counts are identical in every world for the same --seed. Bad input
// (q < 1, a negative load factor, an unknown allocation, --rounds 0) is exit
// status 2 on every rank.
//
// The flags every command shares are in docs/usage.md; the table, the
// phases and the measurements in docs/apps/dht.md, the paper's results in
// docs/seed004.md.
package main
