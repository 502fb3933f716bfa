package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/mpi"
)

// ExitStatusHelp ends the "Exit status" paragraph of every search
// command's help (golomb, fifteen, knapsack, uts, integrate) after its own
// 0, 2 and 1: the statuses the commands share, as the constants below and
// docs/reliability.md give them.
const ExitStatusHelp = `Like every search command it also exits 3 when a signal checkpointed the
search (--checkpoint; resume it with --restart), 4 when --max-nodes or
--time-limit stopped it, 69 when not every MPI rank started
(--startup-timeout), 70 on an internal error (its stack in a file), 74 when
its output could not be written, and 75 when --stall-timeout ended it
(docs/reliability.md).`

// The exit statuses of every treelb command (docs/reliability.md has the
// table). 0 is success, 1 any failure not listed, 2 bad flags or input
// (UsageError), 3 checkpointed on a signal (ExitCheckpointed).
const (
	// ExitLimit: the run stopped at --max-nodes or --time-limit before the
	// search was done; it printed the nodes done, and with --checkpoint
	// the file holds the rest (resume it with --restart).
	ExitLimit = 4
	// ExitInternal: a bug (a panic) in some rank; the message names the
	// file that holds the stack. sysexits.h's EX_SOFTWARE.
	ExitInternal = 70
	// ExitOutput: the output could not be written (a full disk, a closed
	// pipe, /dev/full): the answer may be lost. sysexits.h's EX_IOERR.
	ExitOutput = 74
	// ExitStall: the stall watchdog (--stall-timeout) ended the run: a
	// rank heard nothing of the search for that long (another rank
	// stopped, hung or gone). sysexits.h's EX_TEMPFAIL.
	ExitStall = driver.ExitStall
)

// CheckedWriter is an output of a command (stdout, stderr) that keeps its
// first write error, so that a write whose error a printer ignored still
// ends the command with ExitOutput: Main checks its commands' outputs so,
// and any other command can (the campaign runner does). After the first
// error every write fails with it, an *OutputError. It is safe for
// concurrent use (goroutine ranks share the process's stderr).
type CheckedWriter struct {
	w    io.Writer
	name string // "standard output", for messages
	mu   sync.Mutex
	err  error
}

// NewCheckedWriter returns w checked, its errors naming it name ("standard
// output"); w itself when it is checked already.
func NewCheckedWriter(w io.Writer, name string) *CheckedWriter {
	if c, ok := w.(*CheckedWriter); ok {
		return c
	}
	return &CheckedWriter{w: w, name: name}
}

// Write writes p unless an earlier write failed; a failure is kept (Err)
// and returned, so that the command ends with ExitOutput.
func (c *CheckedWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		c.err = &OutputError{What: c.name, Err: err}
	}
	return n, c.err
}

// Err returns the first write error, an *OutputError, nil while every
// write succeeded.
func (c *CheckedWriter) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// writeError returns the first write error of w when it is a checked
// writer, nil otherwise.
func writeError(w io.Writer) error {
	if c, ok := w.(*CheckedWriter); ok {
		return c.Err()
	}
	return nil
}

// OutputError is a failed write of the command's output: its exit status
// is ExitOutput.
type OutputError struct {
	What string // "standard output", "--trace FILE", ...
	Err  error
}

func (e *OutputError) Error() string { return fmt.Sprintf("writing %s: %v", e.What, e.Err) }
func (e *OutputError) Unwrap() error { return e.Err }

// ExitCode is ExitOutput.
func (e *OutputError) ExitCode() int { return ExitOutput }

// CommandError is true: an output error is the command's, not a rank's to
// be named (package mpi names the failing rank of other errors).
func (e *OutputError) CommandError() bool { return true }

// InternalError is a panic in the command: a bug. Its stack went to File
// (when it could be written), not to the terminal; its exit status is
// ExitInternal.
type InternalError struct {
	Rank  int    // the rank that panicked, -1 outside the ranks
	Value string // the panic's value
	File  string // where the stack is, "" when it could not be written
}

func (e *InternalError) Error() string {
	where := ""
	if e.Rank >= 0 {
		where = fmt.Sprintf(" on rank %d", e.Rank)
	}
	stack := "the stack could not be written to a file"
	if e.File != "" {
		stack = "the stack is in " + e.File
	}
	host, _ := os.Hostname()
	if host != "" && e.File != "" {
		stack += " on " + host
	}
	return fmt.Sprintf("internal error%s: %s (a bug; %s: please report it with the command line)", where, e.Value, stack)
}

// ExitCode is ExitInternal.
func (e *InternalError) ExitCode() int { return ExitInternal }

// internalError turns a recovered panic value into an *InternalError,
// writing stack to a new file in the temporary directory.
func internalError(app string, rank int, v any, stack []byte) *InternalError {
	e := &InternalError{Rank: rank, Value: fmt.Sprint(v)}
	if i := strings.IndexByte(e.Value, '\n'); i >= 0 {
		e.Value = e.Value[:i] + " …"
	}
	name := fmt.Sprintf("treelb-%s-panic-", strings.ReplaceAll(app, " ", "-"))
	if rank >= 0 {
		name += fmt.Sprintf("rank%d-", rank)
	}
	f, err := os.CreateTemp("", name+"*.txt")
	if err != nil {
		return e
	}
	_, werr := fmt.Fprintf(f, "treelb %s: panic%s: %v\n\n%s", app, rankSuffix(rank), v, stack)
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return e
	}
	e.File = f.Name()
	return e
}

func rankSuffix(rank int) string {
	if rank < 0 {
		return ""
	}
	return fmt.Sprintf(" on rank %d", rank)
}

// recoverRank is deferred by a rank's function: a panic becomes an
// *InternalError that the world handles as any rank's error (the other
// ranks stop; under MPI, MPI_Abort with ExitInternal).
func recoverRank(app string, rank int, err *error) {
	if p := recover(); p != nil {
		*err = internalError(app, rank, p, debug.Stack())
	}
}

// panicError converts the panic that package mpi recovered in a rank (a
// *mpi.PanicError) into an *InternalError; other errors pass unchanged.
func panicError(app string, err error) error {
	var pe *mpi.PanicError
	if !errors.As(err, &pe) {
		return err
	}
	return internalError(app, pe.Rank, pe.Value, pe.Stack)
}
