// Package mpi is treelb's thin message-passing layer: one Go API over two
// worlds chosen at build time.
//
// The default build (no tag) is the embedded world: Run(n, f) starts n ranks
// as goroutines in one process, exchanging messages through an in-process
// matching engine with MPI's semantics (FIFO order per sender, receiver and
// context; AnySource/AnyTag matching; blocking and non-blocking probe, send
// and receive; collectives in a context of their own). It needs no installed
// MPI and scales to thousands of ranks in one process.
//
// With -tags mpi the same API is a cgo binding over the system MPI (Open MPI;
// -tags mpi,mpich for MPICH; -tags mpi,mpiflags for any MPI-3.0 library,
// with its flags in CGO_CFLAGS and CGO_LDFLAGS: see cgo_flags.go), run under
// mpirun or srun. Implementation names the library from the library itself
// (MPI_Get_library_version), for --version and the launch checks. One goroutine,
// locked to its OS thread, makes every MPI call; every return code is
// checked and turned into an *Error carrying the MPI error class and string.
// Unlike the embedded world's, a Send there may block until the receiver
// posts its receive (large messages do): use Isend where that could
// deadlock.
//
// Run checks the launch in both worlds: a process that mpirun or srun
// started as one of several tasks but that finds itself alone (a build for
// the other MPI, srun with the wrong --mpi plugin, the embedded build under
// a launcher) stops with a *LaunchError, exit code 2, that names the fix
// (DetectLauncher reads the launcher's environment). Under MPI a waiting
// rank spins in MPI's blocking calls or yields its core, as Comm.SetIdle or
// TREELB_IDLE say (see Idle); by default it yields when its node runs more
// ranks than it has CPUs.
//
// A *Comm belongs to the rank function Run started: like an MPI process, it is
// not safe for concurrent use by several goroutines. Buffers are byte slices;
// typed reductions are the generic functions Reduce and Allreduce over int64
// and float64.
package mpi

import (
	"errors"
	"fmt"
	"unsafe"
)

// AnySource and AnyTag are wildcards for the source and tag of a receive or
// probe, like MPI_ANY_SOURCE and MPI_ANY_TAG.
const (
	AnySource = -1
	AnyTag    = -1
)

// MaxTag is the largest tag every world accepts (the smallest MPI_TAG_UB the
// MPI standard allows). Tags run from 0 to MaxTag.
const MaxTag = 32767

// Status describes a received or probed message: its source, tag and length
// in bytes. The zero value describes no message.
type Status struct {
	Source int
	Tag    int
	Count  int
}

// ErrorClass is the class of an *Error, the portable part of an MPI error
// code (MPI_Error_class). The zero value is ClassOther.
type ErrorClass int

// The error classes treelb distinguishes; every other MPI class maps to
// ClassOther.
const (
	ClassOther ErrorClass = iota
	ClassRank
	ClassTag
	ClassTruncate
	ClassCount
	ClassBuffer
	ClassRoot
	ClassArg
	ClassAborted
	ClassInit
)

var classNames = [...]string{"MPI_ERR_OTHER", "MPI_ERR_RANK", "MPI_ERR_TAG", "MPI_ERR_TRUNCATE",
	"MPI_ERR_COUNT", "MPI_ERR_BUFFER", "MPI_ERR_ROOT", "MPI_ERR_ARG", "aborted", "MPI_ERR_INIT"}

// String returns the MPI name of the class.
func (c ErrorClass) String() string {
	if c >= 0 && int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("ErrorClass(%d)", int(c))
}

// Error is an MPI failure: the call that failed, the error class and the
// implementation's error string. errors.Is(err, ErrTruncate) and the other
// class sentinels match on the class alone.
type Error struct {
	Func  string     // the MPI call, e.g. "MPI_Recv"
	Class ErrorClass // portable class
	Code  int        // the implementation's error code (0 in the embedded world)
	Msg   string     // the implementation's error string
}

func (e *Error) Error() string {
	return fmt.Sprintf("mpi: %s: %s (%v)", e.Func, e.Msg, e.Class)
}

// Is reports whether target is an *Error of the same class with no Func, as
// the sentinels are.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Func == "" && t.Class == e.Class
}

// Sentinels for errors.Is: each matches any *Error of its class.
var (
	ErrRank     = &Error{Class: ClassRank, Msg: "invalid rank"}
	ErrTag      = &Error{Class: ClassTag, Msg: "invalid tag"}
	ErrTruncate = &Error{Class: ClassTruncate, Msg: "message truncated"}
	ErrCount    = &Error{Class: ClassCount, Msg: "invalid count"}
	ErrBuffer   = &Error{Class: ClassBuffer, Msg: "invalid buffer"}
	ErrRoot     = &Error{Class: ClassRoot, Msg: "invalid root"}
	ErrAborted  = &Error{Class: ClassAborted, Msg: "world aborted"}
)

// AbortError is what Run returns in the embedded world after a rank called
// Abort; under real MPI, Abort ends the whole job and never returns.
type AbortError struct {
	Rank int
	Code int
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("mpi: rank %d called Abort(%d)", e.Rank, e.Code)
}

// ExitCoder is implemented by errors that choose a process exit code. Run in
// the MPI world passes it to MPI_Abort when one rank fails.
type ExitCoder interface {
	ExitCode() int
}

// ExitCode returns the exit code of the abort.
func (e *AbortError) ExitCode() int { return e.Code }

// ExitPanic is the exit code of a rank that panicked (sysexits.h's
// EX_SOFTWARE: an internal error).
const ExitPanic = 70

// PanicError is a panic that Run recovered in a rank function: the value
// and the stack of the goroutine that panicked. Its exit code is ExitPanic.
type PanicError struct {
	Rank  int
	Value any
	Stack []byte
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v\n%s", e.Value, e.Stack) }

// nameRank returns err of rank's function named by its rank ("rank R: …"),
// unless it names that rank already: an error with a FailedRank method
// that returns it (lb.RankError, "lb: rank R: …") is returned as it is, and
// so is the error of a world of one rank (the sequential solver's), where
// the name tells nothing, and an error that is the command's rather than
// a rank's, one with a CommandError method that returns true (package
// runner's usage and output errors: every rank's alike, or rank 0's for
// the output only it writes; "golomb: rank 0: writing standard output"
// named a rank the user never chose).
func nameRank(rank, size int, err error) error {
	var cmd interface{ CommandError() bool }
	if size == 1 || errors.As(err, &cmd) && cmd.CommandError() {
		return err
	}
	if named, ok := err.(interface{ FailedRank() int }); ok && named.FailedRank() == rank {
		return err
	}
	return fmt.Errorf("rank %d: %w", rank, err)
}

// ExitCode is ExitPanic.
func (e *PanicError) ExitCode() int { return ExitPanic }

// Op is a predefined reduction operation for Reduce and Allreduce.
type Op int

// The predefined reductions.
const (
	Sum Op = iota
	Min
	Max
)

// Number is the element type of typed reductions.
type Number interface {
	int64 | float64
}

type kind int

const (
	kindInt64 kind = iota
	kindFloat64
)

func kindOf[T Number]() kind {
	var z T
	if _, ok := any(z).(float64); ok {
		return kindFloat64
	}
	return kindInt64
}

func asBytes[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8)
}

// Reduce combines send of every rank element-wise with op into recv on root;
// recv is used on root only and must be as long as send. O(log P) rounds.
func Reduce[T Number](c *Comm, send, recv []T, op Op, root int) error {
	if c.Rank() == root && len(recv) != len(send) {
		return &Error{Func: "MPI_Reduce", Class: ClassCount, Msg: fmt.Sprintf("recv has %d elements, send %d", len(recv), len(send))}
	}
	return c.reduceNum(asBytes(send), asBytes(recv), kindOf[T](), op, root)
}

// Allreduce combines send of every rank element-wise with op into recv on
// every rank; recv must be as long as send. O(log P) rounds.
func Allreduce[T Number](c *Comm, send, recv []T, op Op) error {
	if len(recv) != len(send) {
		return &Error{Func: "MPI_Allreduce", Class: ClassCount, Msg: fmt.Sprintf("recv has %d elements, send %d", len(recv), len(send))}
	}
	return c.reduceNum(asBytes(send), asBytes(recv), kindOf[T](), op, -1)
}

// checkAlias refuses a send buffer that overlaps recv (on the ranks that
// use recv: all of an Allreduce, the root of a Reduce), as the MPI standard
// does (MPI_IN_PLACE is its way to reduce in place): MPICH refuses it at
// run time ("Buffers must not be aliased"), Open MPI let it pass, and
// the embedded world would too, so a program tested on one world failed on
// another. Every build gives the same error now.
func checkAlias(fn string, send, recv []byte) error {
	if len(send) == 0 || len(recv) == 0 {
		return nil
	}
	s, r := uintptr(unsafe.Pointer(&send[0])), uintptr(unsafe.Pointer(&recv[0]))
	if s < r+uintptr(len(recv)) && r < s+uintptr(len(send)) {
		return &Error{Func: fn, Class: ClassBuffer, Msg: "send and recv overlap: MPI forbids aliased buffers (give recv a buffer of its own)"}
	}
	return nil
}

// CombineFunc is a user-defined reduction over byte buffers of equal length:
// it sets inout to in ∘ inout. It must be associative and commutative.
type CombineFunc func(inout, in []byte)

func checkOp(fn string, op Op) error {
	if op < Sum || op > Max {
		return &Error{Func: fn, Class: ClassArg, Msg: fmt.Sprintf("unknown op %d", int(op))}
	}
	return nil
}

// IsAborted reports whether err says the world was aborted because another
// rank failed; such errors are consequences, not causes.
func IsAborted(err error) bool { return errors.Is(err, ErrAborted) }

// checkV validates the counts and displacements of a v-collective against a
// buffer of n bytes.
func checkV(fn string, size, n int, counts, displs []int) error {
	if len(counts) != size || len(displs) != size {
		return &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("%d counts and %d displacements for %d ranks", len(counts), len(displs), size)}
	}
	for r := range size {
		// Not displs[r]+counts[r] > n: the sum can wrap around.
		if counts[r] < 0 || displs[r] < 0 || counts[r] > n || displs[r] > n-counts[r] {
			return &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("block %d (displacement %d, count %d) outside a buffer of %d bytes", r, displs[r], counts[r], n)}
		}
	}
	return nil
}
