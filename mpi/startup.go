package mpi

import (
	"fmt"
	"strings"
	"time"
)

// Options tune a Run (RunWith). The zero value is Run's: no start-up
// deadline.
type Options struct {
	// StartupTimeout bounds the start of an MPI world, counted from the
	// call of RunWith: every rank must have returned from MPI_Init and
	// entered RunWith within it. A rank still in MPI_Init then prints that
	// not every rank started and exits with ExitStartup (the launcher ends
	// the others); after MPI_Init, rank 0 prints which ranks never arrived
	// and calls MPI_Abort. It costs each rank one message to rank 0 and a
	// non-blocking barrier (MPI_Ibarrier, polled): O(1) per rank, O(P) on
	// rank 0 only. 0 waits for ever. The embedded world, whose ranks are
	// goroutines of one process, ignores it.
	StartupTimeout time.Duration
}

// ExitStartup is the exit code of a rank that ends because not every rank
// started within Options.StartupTimeout (sysexits.h's EX_UNAVAILABLE).
const ExitStartup = 69

// rankRanges formats the ranks r with missing(r) true among 0..size-1 as
// ranges ("3, 5-7, 12"), at most limit of them, then how many more.
func rankRanges(size int, missing func(r int) bool, limit int) (string, int) {
	var parts []string
	more, count := 0, 0
	for r := 0; r < size; r++ {
		if !missing(r) {
			continue
		}
		lo := r
		for r+1 < size && missing(r+1) {
			r++
		}
		count += r - lo + 1
		if len(parts) == limit {
			more++
			continue
		}
		if lo == r {
			parts = append(parts, fmt.Sprint(lo))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", lo, r))
		}
	}
	s := strings.Join(parts, ", ")
	if more > 0 {
		s += fmt.Sprintf(" and %d more ranges", more)
	}
	return s, count
}
