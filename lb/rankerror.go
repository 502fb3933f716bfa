package lb

import "fmt"

// RankError is an error of one rank's search, which names the rank: its
// message reads "lb: rank R: …". The embedded and MPI worlds name the rank
// of an error that a rank's function returns, unless the error is a
// RankError of that very rank, so the rank is named once.
type RankError struct {
	Rank int
	Err  error
}

// RankErrorf returns a *RankError of rank whose Err is fmt.Errorf(format,
// args...).
func RankErrorf(rank int, format string, args ...any) error {
	return &RankError{Rank: rank, Err: fmt.Errorf(format, args...)}
}

func (e *RankError) Error() string { return fmt.Sprintf("lb: rank %d: %v", e.Rank, e.Err) }

// Unwrap returns Err.
func (e *RankError) Unwrap() error { return e.Err }

// FailedRank returns Rank: the worlds read it (package mpi's Run) to name
// the rank once.
func (e *RankError) FailedRank() int { return e.Rank }
