// Package runner is the skeleton every treelb command shares: the common
// flags (--np, --world, --balancer, --seed, --json, --stats, -q, --budget,
// the balancer options and the simulated world's machine), starting the world,
// reading the input on rank 0 and agreeing on it, the sequential guard,
// rank-0 output (human or JSON), the statistics, and the exit codes (0 success,
// 2 bad flags or input on every rank, 1 any other failure). A command's main.go is
// wiring only: it describes its flags and gives Action a Spec with how to read an
// instance and how to solve it.
//
// # A command's life
//
// Action runs the same steps in every world (goroutine ranks, MPI processes,
// the simulator):
//
//  1. The world starts before anything is read (Parse gives the common
//     flags, wherever they stand on the command line), so that every
//     verdict is collective.
//  2. Each rank checks its flags; then the ranks agree, in one reduction,
//     that all of them accepted theirs and that their command lines and
//     builds are the same (a hash), so that an MPMD job or a mix of builds
//     stops at once instead of hanging.
//  3. Rank 0 alone reads the instance (Spec.Read: files, stdin) and
//     broadcasts it, or its error. A rejection ends every rank with status 2
//     and one message, printed by rank 0, before any rank exits.
//  4. Every rank solves (Spec.Solve), in the world the flags chose, through
//     lb.Run with the Run's Config; --balancer seq runs the sequential solver
//     on rank 0 alone, and the simulator runs Solve once for all its ranks.
//  5. Rank 0 prints the result (Run.Print), as text or one JSON object per
//     answer whose header (Header) names the app, balancer, ranks and world
//     and whose last member is the run's provenance (package
//     version); --stats adds the per-rank statistics, which only
//     rank 0 gathers.
//
// With Spec.Resumable, a command takes --checkpoint, --checkpoint-every and
// --restart: on SIGUSR1, SIGTERM, SIGINT or SIGHUP, or when the period has passed, rank 0
// suspends the search at a consistent cut, and the suspended search is
// written to a checksummed file (WriteCheckpoint) that ReadCheckpoint
// verifies and any number of ranks resumes; a command checkpointed and not
// finished exits with ExitCheckpointed (docs/checkpoint.md).
//
// A run whose estimate exceeds the machine's available memory (CheckMemory)
// is refused with status 2 before it starts. Progress lines (about once a
// second on a terminal) come from the running balancers, without stopping
// them.
//
// # An app outside this module
//
// The package is public so that a search written elsewhere gets all of the
// above: examples/nqueens (a module of its own) is a complete command of
// about 80 lines over a search of package skeleton, and docs/writing-an-app.md
// walks through it, with the Task contract of a search written by hand.
//
// # Rank counts
//
// --np is the number of ranks of the embedded and simulated worlds
// (default runtime.NumCPU()). In the MPI world the launcher's size is the
// number of ranks: without --np the command passes 0 to mpi.Run, which
// takes it, and an --np that differs is an error. runtime.NumCPU() is never
// the MPI world's size: under a launcher's core binding it is 1 in every
// process.
//
// The package keeps no mutable package-level state: the ranks of the embedded
// world share the process.
package runner
