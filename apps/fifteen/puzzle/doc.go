// Package puzzle is the sequential core of the 15-puzzle application: board
// parsing and validation, the solvability test, Korf's 100 benchmark
// instances, a fast iterative-deepening A* (IDA*) solver with the Manhattan
// distance, and Search, one IDA* iteration as a resumable, splittable and
// serialisable depth-first search for the parallel load balancers.
//
// # Conventions
//
// The board is 4×4; positions are numbered 0..15 row by row and tile 0 is
// the blank. The goal has the blank at the top left and tile i at position
// i. A Move names the direction in which the blank moves. Every search tries
// the moves in the order Up, Left, Right, Down and never generates the move
// that would undo the previous one.
//
// Node counts follow Korf's table (korf100.tsv, embedded): an iteration counts
// every node it generates, including the nodes it prunes because their
// f = g + h exceeds the threshold, and stops at the first solution; the
// root, shared by all iterations, is counted once for the whole run. So
// IterStats.Nodes and Search.Nodes leave the root out, and Result.Nodes is 1
// plus their sum over the iterations.
//
// # Speed
//
// Iterate, and through it Solve, runs the depth-first search of an
// iteration with the board packed in a uint64 (4 bits per cell) and a
// recursion specialised, by go generate (gen_fast.go), for each position of
// the blank and the move that brought it there, so that legal moves, shifts
// and Manhattan distance deltas are constants. Search.Work hands the
// subtrees below its explicit stack to the same recursion, which spills its
// stack back into frames when the budget runs out; so a balancer working
// through Search runs at nearly the speed of Solve.
//
// Every exported function is safe for concurrent use; a *Search is not. The
// package keeps no mutable package-level state: its lookup tables are built
// once at initialisation and only read afterwards.
package puzzle
