package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/version"
)

// ExitCheckpointed is the exit status of a run that wrote its checkpoint on
// a signal (SIGUSR1, SIGTERM, SIGINT, SIGHUP) and stopped before the search was done:
// restart it with --restart FILE. scripts/slurm/resumable.sbatch requeues
// the job on it.
const ExitCheckpointed = 3

// The checkpoint file: the magic, the format version (4 bytes, little
// endian), the payload's length (8 bytes), the payload (a gob-encoded
// Checkpoint), and the SHA-256 of everything before it. Version 2: the
// partial results of golomb, fifteen and knapsack are in their own binary
// encodings (version 1 had gob's). Version 3: the partial results carry
// the digests of the certificates and the replayed nodes (golomb, fifteen,
// uts, integrate), and a golomb --count no longer runs the steps of the
// shorter rulers first; a version 2 file would resume with a digest of
// zero for the part done, so it is refused.
// Version 4: the balancer's options are its own (lb.OptionValues by flag
// name), not one struct shared by all balancers; golomb's and fifteen's
// states are encoded once (ruler.State, parallel.State).
// Version 5: the partial results of uts and integrate are in their own
// binary encodings too (tree.Counts, quad.Result, alphatree.Result).
const (
	checkpointMagic   = "TREELBCK"
	checkpointVersion = 5
	checkpointHeader  = len(checkpointMagic) + 4 + 8
)

// Checkpoint is what a checkpoint file holds: who wrote it, the instance
// and the run's parameters, and the suspended search (lb.Suspended). The
// zero value is an empty checkpoint.
type Checkpoint struct {
	App      string // the command that wrote it ("golomb", "integrate poly"; CommandPath)
	Build    string // the build that wrote it (version.Get)
	Instance []byte // the instance, gob-encoded as the command's Spec reads it
	Balancer string
	// Options are the balancer's options that differ from its defaults,
	// by flag name, as lb.OptionValues writes them.
	Options map[string]string
	Budget  int64
	// MinBudget is the run's --min-budget (0: a fixed Δt; checkpoints
	// written before it existed decode with 0).
	MinBudget int64
	Seed      uint64
	Ranks     int    // the ranks of the run that wrote it (information)
	World     string // and its world
	Written   time.Time
	// The suspended search: the solver's state, the result so far, the open
	// tasks, the nodes so far and the incumbent; --restart resumes it.
	lb.Suspended
}

// checkpointData is a Checkpoint as its file's payload holds it: gob
// encodes it field by field (Checkpoint's own MarshalBinary makes the whole
// file).
type checkpointData Checkpoint

// MarshalBinary encodes the checkpoint as a checkpoint file's bytes.
func (c *Checkpoint) MarshalBinary() ([]byte, error) {
	var p bytes.Buffer
	if err := gob.NewEncoder(&p).Encode((*checkpointData)(c)); err != nil {
		return nil, fmt.Errorf("encoding a checkpoint: %w", err)
	}
	b := make([]byte, 0, checkpointHeader+p.Len()+sha256.Size)
	b = append(b, checkpointMagic...)
	b = binary.LittleEndian.AppendUint32(b, checkpointVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(p.Len()))
	b = append(b, p.Bytes()...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...), nil
}

// UnmarshalBinary decodes a checkpoint file's bytes. Its errors say what is
// wrong: not a checkpoint, another format version, truncated, trailing
// bytes, a checksum mismatch, or a payload that does not decode.
func (c *Checkpoint) UnmarshalBinary(b []byte) error {
	if len(b) < len(checkpointMagic) || string(b[:len(checkpointMagic)]) != checkpointMagic {
		if len(b) < len(checkpointMagic) && string(b) == checkpointMagic[:len(b)] {
			return errors.New("truncated (no header)")
		}
		return errors.New("not a treelb checkpoint")
	}
	if len(b) < checkpointHeader {
		return errors.New("truncated (no header)")
	}
	if v := binary.LittleEndian.Uint32(b[len(checkpointMagic):]); v != checkpointVersion {
		return fmt.Errorf("format version %d; this build reads version %d", v, checkpointVersion)
	}
	n := binary.LittleEndian.Uint64(b[len(checkpointMagic)+4:])
	rest := uint64(len(b) - checkpointHeader)
	// Compare without adding to n, which may be anything up to 2⁶⁴ − 1.
	switch {
	case n > MaxCheckpointBytes:
		return fmt.Errorf("the header announces a payload of %d bytes, more than the %d a checkpoint may hold", n, uint64(MaxCheckpointBytes))
	case rest < sha256.Size || rest-sha256.Size < n:
		return fmt.Errorf("truncated: %d bytes, the header announces %d", len(b), uint64(checkpointHeader)+n+sha256.Size)
	case rest-sha256.Size > n:
		return fmt.Errorf("%d bytes after the end of the checkpoint", rest-n-sha256.Size)
	}
	end := checkpointHeader + int(n)
	if sum := sha256.Sum256(b[:end]); !bytes.Equal(sum[:], b[end:]) {
		return errors.New("checksum mismatch: the file is corrupt")
	}
	var d Checkpoint
	if err := gob.NewDecoder(bytes.NewReader(b[checkpointHeader:end])).Decode((*checkpointData)(&d)); err != nil {
		return fmt.Errorf("the payload does not decode: %w", err)
	}
	if d.App == "" || d.Budget < 0 || d.MinBudget < 0 || d.Nodes < 0 {
		return errors.New("the payload is incomplete")
	}
	*c = d
	return nil
}

// BalancerOptions returns the options the checkpoint records for info, its
// balancer: info's defaults with the recorded values set. It fails for an
// option the balancer does not declare and a value out of range.
func (c *Checkpoint) BalancerOptions(info lb.Info) (lb.Options, error) {
	o := info.Options
	names := make([]string, 0, len(c.Options))
	for name := range c.Options {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		var err error
		if o, err = lb.SetOption(o, name, c.Options[name]); err != nil {
			return nil, fmt.Errorf("balancer %s: %w", info.Name, err)
		}
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	return o, nil
}

// MaxCheckpointBytes is the largest checkpoint payload a restart reads
// (1 GiB): the open tasks of a suspended search are a few per rank, so a
// larger header is damage, not a checkpoint.
const MaxCheckpointBytes = 1 << 30

// readCheckpointFile returns the bytes of the checkpoint file at path,
// reading no more than its header announces: a path that is not a regular
// file (a directory, a device such as /dev/zero, a FIFO) is refused at
// once, without reading it or waiting for a writer, and so is a file whose
// size differs from its header's, or whose header announces more than
// MaxCheckpointBytes or more than the memory this process may use.
func readCheckpointFile(path string) ([]byte, error) {
	f, st, err := openRegular(path, "checkpoint file")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, checkpointHeader)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if n < checkpointHeader {
		return head[:n], nil // UnmarshalBinary says what is wrong
	}
	size := binary.LittleEndian.Uint64(head[len(checkpointMagic)+4:])
	if size > MaxCheckpointBytes || string(head[:len(checkpointMagic)]) != checkpointMagic {
		return head, nil // refused by UnmarshalBinary, from the header alone
	}
	want := int64(checkpointHeader) + int64(size) + sha256.Size
	if st.Size() != want {
		if st.Size() < want {
			return nil, fmt.Errorf("truncated: %d bytes, the header announces %d", st.Size(), want)
		}
		return nil, fmt.Errorf("%d bytes after the end of the checkpoint", st.Size()-want)
	}
	if err := CheckMemory(float64(2*want), fmt.Sprintf("reading a checkpoint of %s", FormatBytes(float64(want)))); err != nil {
		return nil, err
	}
	b := make([]byte, want)
	copy(b, head)
	if _, err := io.ReadFull(f, b[checkpointHeader:]); err != nil {
		return nil, fmt.Errorf("%w (the file shrank while it was read)", err)
	}
	return b, nil
}

// openRegular opens the file at path for reading if it is a regular one:
// another kind of file (a directory, a device, a FIFO nobody writes) is
// refused at once, without waiting for a writer (it is opened without
// blocking), with an error that names its kind and what (a "checkpoint
// file") it is not.
func openRegular(path, what string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s, not a %s", FileKind(st.Mode()), what)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// readRegularFile returns the contents of the regular file at path, a
// what, at most max bytes: another kind of file is refused at once
// (openRegular), and so is a larger one.
func readRegularFile(path, what string, max int64) ([]byte, error) {
	f, st, err := openRegular(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%s: larger than the %s such a file can be", FormatBytes(float64(st.Size())), FormatBytes(float64(max)))
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("it grew beyond %s while it was read", FormatBytes(float64(max)))
	}
	return b, err
}

// checkpointFileError is the usage error of readCheckpointFile's err on
// path: errors of the file system name the file already.
func checkpointFileError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return Usagef("--restart: %v", err)
	}
	return Usagef("--restart: checkpoint %s: %v", path, err)
}

// FileKind names the kind of a file ("a character device", "a file"), for
// messages that refuse it.
func FileKind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a file"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSymlink != 0:
		return "a symbolic link"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// ReadCheckpoint reads the checkpoint file at path written by the command
// app. Every failure is a *UsageError (exit status 2) naming the file and
// what is wrong with it, including a checkpoint of another command.
func ReadCheckpoint(path, app string) (*Checkpoint, error) {
	b, err := readCheckpointFile(path)
	if err != nil {
		return nil, checkpointFileError(path, err)
	}
	c := new(Checkpoint)
	if err := c.UnmarshalBinary(b); err != nil {
		return nil, Usagef("--restart: checkpoint %s: %v", path, err)
	}
	if c.App != app {
		return nil, Usagef("--restart: checkpoint %s: written by %s, not %s", path, c.App, app)
	}
	return c, nil
}

// WriteCheckpoint writes c to path atomically: to a temporary file in the
// same directory, synced, then renamed over path, and the directory synced.
// A crash at any moment leaves path as it was or holds the new checkpoint
// whole.
func WriteCheckpoint(path string, c *Checkpoint) error {
	b, err := c.MarshalBinary()
	if err != nil {
		return err
	}
	if err := writeAtomic(path, b, 0, nil); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return nil
}

// writeAtomic writes data to path as WriteCheckpoint says (the --trace file
// too), with permissions mode (0: CreateTemp's, 0600); wrap, when not nil,
// wraps the temporary file's writer (tests crash in it). A symbolic link at
// path is replaced, not written through.
func writeAtomic(path string, data []byte, mode os.FileMode, wrap func(io.Writer) io.Writer) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	var w io.Writer = f
	if wrap != nil {
		w = wrap(f)
	}
	if _, err = w.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if mode != 0 {
		if err = f.Chmod(mode); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("syncing the directory: %w", err)
	}
	return nil
}

// checkpointFlags are the flags of checkpoint and restart, which every
// command with a balancer takes.
func checkpointFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "checkpoint", Usage: "on SIGUSR1, SIGTERM, Ctrl-C (SIGINT) or SIGHUP, suspend the search at a consistent cut, write it to `FILE` (atomically, checksummed) and exit with status 3 (a second Ctrl-C ends the run at once); see --restart"},
		&cli.DurationFlag{Name: "checkpoint-every", Usage: "with --checkpoint, also write the checkpoint every `DURATION` (say 30m) and go on; never more often than a checkpoint takes"},
		&cli.StringFlag{Name: "restart", Usage: "resume the search checkpointed in `FILE`: the instance (with the app's own flags), balancer and options come from it; the common flags given explicitly override them (an instance given beside it must be the checkpoint's, whole); --np and --world may differ"},
		&cli.Int64Flag{Name: "max-nodes", Usage: "stop once this run has done `N` nodes: rank 0 checks every tenth of a second or so, so a fast search overshoots by what it does in that time (millions of nodes); print the nodes done, write the checkpoint with --checkpoint, and exit with status 4; 0: no bound"},
		&cli.DurationFlag{Name: "time-limit", Usage: "stop after `DURATION` of this run (say 23h30m): print the nodes done, write the checkpoint with --checkpoint, and exit with status 4; 0: no limit"},
		&cli.DurationFlag{Name: "startup-timeout", Value: DefaultStartupTimeout, Usage: "under mpirun or srun: fail (exit status 69) when not every rank has started within `DURATION` (the ranks still in MPI_Init say so; past it, rank 0 names the ranks missing), and (exit status 2) when standard input read as - delivers nothing within it or 30 s; 0: wait for ever"},
		&cli.DurationFlag{Name: "stall-timeout", Usage: "end the run (exit status 75, every rank under mpirun or srun) when a rank has done no work and heard no news of the search (an answer, a task, a wave of termination) for `DURATION`, or under MPI has waited that long in a collective around a search (its start, its result); a rank that notices prints its state (idle or working, the request it waits for, the termination phase). It must exceed the longest work slice, and with static placement the longest share. Default 0: off, since no value suits every search (a static share may rightly take hours) and a false alarm would kill a healthy run; say 10m for batch jobs"},
	}
}

// DefaultStartupTimeout is the default of --startup-timeout.
const DefaultStartupTimeout = 3 * time.Minute

// limitFlags are the flags that stop a search early, which need a balancer.
var limitFlags = []string{"max-nodes", "time-limit"}

// parseLimits reads --max-nodes, --time-limit, --startup-timeout and
// --stall-timeout into
// cm and checks them.
func parseLimits(c *cli.Context, cm *Common) error {
	if defines(c, "max-nodes") {
		cm.MaxNodes = c.Int64("max-nodes")
	}
	if defines(c, "time-limit") {
		cm.TimeLimit = c.Duration("time-limit")
	}
	cm.StartupTimeout = DefaultStartupTimeout
	if defines(c, "startup-timeout") {
		cm.StartupTimeout = c.Duration("startup-timeout")
	}
	if defines(c, "stall-timeout") {
		cm.StallTimeout = c.Duration("stall-timeout")
	}
	switch {
	case cm.MaxNodes < 0:
		return Usagef("--max-nodes %d: need 0 (no bound) or more nodes", cm.MaxNodes)
	case cm.TimeLimit < 0:
		return Usagef("--time-limit %v: must not be negative (0: no limit)", cm.TimeLimit)
	case cm.StartupTimeout < 0:
		return Usagef("--startup-timeout %v: must not be negative (0: wait for ever)", cm.StartupTimeout)
	case cm.StallTimeout < 0:
		return Usagef("--stall-timeout %v: must not be negative (0: no watchdog)", cm.StallTimeout)
	}
	if cm.Balancer == Seq || cm.Balancer == "" {
		for _, name := range limitFlags {
			if defines(c, name) && c.IsSet(name) {
				return Usagef("--%s: only searches with a balancer can stop early and resume (not --balancer %s)", name, cm.Balancer)
			}
		}
	}
	return nil
}

// ckpt is one rank's part in checkpointing, with --checkpoint or --restart.
// It belongs to the rank's goroutine but for signal, which the process's
// signal handler sets.
type ckpt struct {
	file   string
	every  time.Duration
	signal *atomic.Bool // a checkpoint signal arrived (shared by the process)
	last   time.Time    // rank 0: the start, or the last checkpoint
	// rank 0: when the period made the checkpoint due (zero while it is
	// not), and how long the last one took from then to the search going
	// on: the period is at least that, so that a period shorter than a
	// checkpoint (--checkpoint-every 1ns) leaves the search at least half
	// the time to search instead of checkpointing for ever at 0 nodes.
	dueAt  time.Time
	took   time.Duration
	resume *lb.Suspended // the search to continue, nil for none
	// rank 0, for the file: the instance's encoding, and the parameters.
	instance []byte

	// The limits of --max-nodes and --time-limit, on rank 0: the nodes
	// of this run so far (from the progress snapshots), the deadline, and
	// once one is reached, which (the flag and its value).
	maxNodes  int64
	nodes     int64
	deadline  time.Time
	timeLimit time.Duration
	limit     string
}

// due reports whether the search must be suspended: a signal arrived,
// --checkpoint-every passed since the last checkpoint, or a limit was
// reached.
func (k *ckpt) due() bool {
	if k.reached() || k.file != "" && k.signal.Load() {
		return true
	}
	if k.file == "" || k.every <= 0 || time.Since(k.last) < max(k.every, k.took) {
		return false
	}
	if k.dueAt.IsZero() {
		k.dueAt = time.Now()
	}
	return true
}

// reached reports whether --max-nodes or --time-limit is reached, and
// remembers which.
func (k *ckpt) reached() bool {
	if k.limit == "" {
		switch {
		case k.maxNodes > 0 && k.nodes >= k.maxNodes:
			k.limit = fmt.Sprintf("--max-nodes %d", k.maxNodes)
		case !k.deadline.IsZero() && !time.Now().Before(k.deadline):
			k.limit = "--time-limit " + k.timeLimit.String()
		}
	}
	return k.limit != ""
}

// MetaEarlySignal is the key in cli.App.Metadata of Main's SIGUSR1
// channel (a chan os.Signal), which the run's signal catcher reads: a
// signal on it, even one that came before the command parsed its flags,
// is a checkpoint request (tests that call Execute put one there).
const MetaEarlySignal = "treelb.earlysignal"

// limited reports whether the run has a limit that may suspend it.
func (k *ckpt) limited() bool { return k.maxNodes > 0 || !k.deadline.IsZero() }

// catchSignals makes SIGUSR1, SIGTERM, SIGINT (Ctrl-C) and SIGHUP (the
// terminal gone) set the returned flag instead of ending the process,
// until stop is called. Only runs with --checkpoint catch them: without,
// SIGTERM, SIGINT and SIGHUP end the job at once and SIGUSR1 is ignored,
// as in any Go program. A second SIGINT or SIGHUP, the user insisting,
// ends the process at once by that signal, checkpoint or not. A signal on
// early (Main's SIGUSR1 channel, nil in tests that call Execute) counts
// too, including one that came before this call. Until begin is called
// (the instance read, the search about to start) there is nothing to
// checkpoint: SIGTERM, SIGINT and SIGHUP then end the process at once,
// with 128 + the signal's number and a line on stderr naming name (they
// waited for standard input to deliver, then checkpointed a search of 0
// nodes), calling release first (the checkpoint's lock: os.Exit skips the
// deferred calls, and the lock file stayed behind).
func catchSignals(early <-chan os.Signal, name string, errw io.Writer, release func()) (flag *atomic.Bool, begin, stop func()) {
	flag = new(atomic.Bool)
	var begun atomic.Bool
	speaks := mpi.DetectLauncher(os.Getenv).Speaks()
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				if sig != syscall.SIGUSR1 && !begun.Load() {
					if speaks {
						// Under a launcher every task gets the signal:
						// the one it numbers 0 says so (MPICH's Hydra
						// showed the line once per rank).
						fmt.Fprintf(errw, "%s: %v before the search began: nothing to checkpoint\n", name, sig)
					}
					release()
					os.Exit(128 + int(sig.(syscall.Signal)))
				}
				if again := flag.Swap(true); again && (sig == syscall.SIGINT || sig == syscall.SIGHUP) {
					signal.Reset(sig)
					syscall.Kill(os.Getpid(), sig.(syscall.Signal))
				}
			case <-early:
				flag.Store(true)
			case <-done:
				return
			}
		}
	}()
	return flag, func() { begun.Store(true) }, func() {
		signal.Stop(ch)
		close(done)
	}
}

// loadRestart reads the checkpoint of --restart and its instance, on rank
// 0. When the command line names an instance too (positional arguments or
// the command's own flags), it must be the checkpoint's.
func loadRestart[I any](c *cli.Context, cm Common, spec Spec[I], size int) (I, *Checkpoint, error) {
	var in I
	k, err := ReadCheckpoint(cm.Restart, CommandPath(c))
	if err != nil {
		return in, nil, err
	}
	if err := gob.NewDecoder(bytes.NewReader(k.Instance)).Decode(&in); err != nil {
		return in, nil, Usagef("--restart: checkpoint %s: the instance does not decode: %v", cm.Restart, err)
	}
	budget, minBudget := k.Budget, k.MinBudget // the Δt the restart takes, as setCheckpointing sets it
	if c.IsSet("budget") {
		budget = cm.Budget
	}
	if c.IsSet("min-budget") {
		minBudget = cm.MinBudget
	}
	if err := checkBudget(budget, minBudget); err != nil {
		return in, nil, Usagef("--restart: checkpoint %s: its Δt of %d nodes, adaptive from %d: %v", cm.Restart, budget, minBudget, err)
	}
	if err := checkRestart(k, cm, c, size); err != nil {
		return in, nil, Usagef("--restart: checkpoint %s: %v", cm.Restart, err)
	}
	if given := appFlagsSet(c); c.NArg() > 0 || len(given) > 0 {
		// An instance on the command line too must be the checkpoint's,
		// and whole: the checkpoint's is not merged with part of one.
		other, err := spec.Read(c, cm)
		var ue *UsageError
		if errors.As(err, &ue) {
			if c.NArg() == 0 {
				// Only the app's flags: they are part of the instance,
				// which is the checkpoint's.
				return in, nil, Usagef("--restart with %s: the instance and its flags come from the checkpoint; give --restart alone, or the whole instance (the checkpoint's) with them: %v",
					strings.Join(given, " "), ue.Err)
			}
			return in, nil, Usagef("--restart with an instance on the command line (it must be the checkpoint's, whole; or give --restart alone): %v", ue.Err)
		}
		if err != nil {
			return in, nil, err
		}
		b, err := encodeInstance(other)
		if err != nil {
			return in, nil, err
		}
		if !bytes.Equal(b, k.Instance) {
			return in, nil, Usagef("--restart: checkpoint %s: written for another instance of %s than the command line's (its arguments or flags%s differ, a flag not given counting at its default; give --restart alone to resume it)", cm.Restart, CommandPath(c), flagList(given))
		}
	}
	return in, k, nil
}

// checkRestart checks the run parameters of a checkpoint k that a restart
// on size ranks takes from it (all but the balancer and its options when
// the command line c gives a balancer): a balancer of this build, valid
// options with the option flags of c over them (c nil: none), and the
// leaves of --levels on size ranks.
func checkRestart(k *Checkpoint, cm Common, c *cli.Context, size int) error {
	if c != nil && c.IsSet("balancer") {
		return nil
	}
	info, err := lb.Lookup(k.Balancer)
	if err != nil {
		return fmt.Errorf("balancer %q: this build does not have it", k.Balancer)
	}
	o, err := k.BalancerOptions(info)
	if err != nil {
		return err
	}
	if c != nil {
		if o, err = restartOptions(c, info, o); err != nil {
			return err
		}
	}
	cm.Balancer, cm.info, cm.Options = k.Balancer, info, o
	if err := cm.checkSize(size); err != nil {
		return err
	}
	return nil
}

// restartCommand returns args with the subcommand that wrote the checkpoint
// of --restart FILE inserted after the program's name, when app has
// subcommands and args name none ("integrate --restart k.ckpt" runs as
// "integrate poly --restart k.ckpt"), a usage error naming FILE when FILE
// is no checkpoint of the app or one of them, and args unchanged
// otherwise (also when the app itself, not a subcommand, wrote FILE). It reads
// FILE: O(size of FILE).
func restartCommand(app *cli.App, args []string) ([]string, error) {
	if len(app.Commands) == 0 || len(args) < 2 {
		return args, nil
	}
	file, given := "", false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if app.Command(a) != nil {
			return args, nil // a subcommand is named (or a flag's value is one)
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "restart" {
			given = true
			if hasValue {
				file = value
			} else if i+1 < len(args) {
				file = args[i+1]
			}
		}
	}
	if !given || strings.TrimSpace(file) == "" {
		return args, nil // cli says what is wrong
	}
	b, err := readCheckpointFile(file)
	if err != nil {
		return args, checkpointFileError(file, err)
	}
	var k Checkpoint
	if err := k.UnmarshalBinary(b); err != nil {
		return args, Usagef("--restart: checkpoint %s: %v", file, err)
	}
	if k.App == app.Name {
		return args, nil // the app itself wrote it (knapsack, beside its gen)
	}
	sub, ok := strings.CutPrefix(k.App, app.Name+" ")
	if !ok || app.Command(sub) == nil {
		return args, Usagef("--restart: checkpoint %s: written by %s, not by a subcommand of %s", file, k.App, app.Name)
	}
	return append([]string{args[0], sub}, args[1:]...), nil
}

// CommandPath returns the name of the command c runs as checkpoints
// record it: the app's name, then the subcommand's, if any ("golomb",
// "integrate poly"). A checkpoint resumes only in the command that wrote
// it: subcommands of one app solve different problems.
func CommandPath(c *cli.Context) string {
	var names []string
	for _, x := range c.Lineage() {
		if x.Command != nil && x.Command.Name != "" && x.Command.Name != c.App.Name {
			names = append(names, x.Command.Name)
		}
	}
	names = append(names, c.App.Name)
	slices.Reverse(names)
	return strings.Join(names, " ")
}

// resumeHint is the command line that resumes a search from the
// checkpoint file: the command's path (golomb, integrate func), and in the
// MPI world under a launcher the launcher's words and this binary's path
// as it was started (mpirun -np 4 bin/openmpi/golomb), since the bare
// command is the embedded build; any number of ranks may resume it.
func resumeHint(c *cli.Context, world, binary string, getenv func(string) string, file string) string {
	cmd := CommandPath(c)
	if world == "mpi" {
		if launch := mpi.DetectLauncher(getenv).Command(); launch != "" {
			cmd = launch + " " + binary + strings.TrimPrefix(cmd, c.App.Name)
		}
	}
	return cmd + " --restart " + file
}

// appFlagsSet returns the flags of the command's own (not common ones)
// set on the command line, as written in messages (--theta-a).
func appFlagsSet(c *cli.Context) []string {
	common := map[string]bool{}
	for _, f := range Flags() {
		for _, n := range f.Names() {
			common[n] = true
		}
	}
	var set []string
	for _, name := range c.FlagNames() {
		if !common[name] && c.IsSet(name) {
			set = append(set, dashed(name))
		}
	}
	return set
}

// flagList is ", --a, --b" for flags, "" for none.
func flagList(flags []string) string {
	if len(flags) == 0 {
		return ""
	}
	return ", " + strings.Join(flags, ", ")
}

func encodeInstance[I any](in I) ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&in); err != nil {
		return nil, fmt.Errorf("encoding the instance: %w", err)
	}
	return b.Bytes(), nil
}

// shareCheckpoint broadcasts the checkpoint rank 0 read, but for its open
// tasks, which stay on rank 0 (lb deals them), and returns it on every
// rank. It is collective.
func shareCheckpoint(comm *mpi.Comm, k *Checkpoint) (*Checkpoint, error) {
	var b []byte
	if comm.Rank() == 0 {
		head := *k
		head.Tasks, head.Instance = nil, nil
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode((*checkpointData)(&head)); err != nil {
			return nil, fmt.Errorf("sending the checkpoint: %w", err)
		}
		b = buf.Bytes()
	}
	b, err := driver.Bcast(comm, b, 0)
	if err != nil {
		return nil, err
	}
	if comm.Rank() == 0 {
		return k, nil
	}
	head := new(Checkpoint)
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode((*checkpointData)(head)); err != nil {
		return nil, fmt.Errorf("receiving the checkpoint: %w", err)
	}
	return head, nil
}

// setCheckpointing prepares the run for --checkpoint and --restart: the
// signal flag, the parameters and search of a checkpoint k (the
// command line's explicit flags win: --balancer with its options,
// --budget, --seed), and rank 0's encoding of the instance.
func setCheckpointing[I any](r *Run, signalled *atomic.Bool, k *Checkpoint, in I) {
	if r.Checkpoint == "" && k == nil && r.MaxNodes == 0 && r.TimeLimit == 0 {
		return
	}
	r.ckpt = &ckpt{file: r.Checkpoint, every: r.CheckpointEvery, signal: signalled, last: time.Now(), maxNodes: r.MaxNodes}
	if r.TimeLimit > 0 {
		r.ckpt.deadline, r.ckpt.timeLimit = time.Now().Add(r.TimeLimit), r.TimeLimit
	}
	if r.ckpt.signal == nil {
		r.ckpt.signal = new(atomic.Bool)
	}
	if k != nil {
		c := r.Context
		if !c.IsSet("balancer") {
			r.Balancer = k.Balancer
			r.info, _ = lb.Lookup(k.Balancer)        // checked by loadRestart
			r.Options, _ = k.BalancerOptions(r.info) // so are these
			r.Options, _ = restartOptions(c, r.info, r.Options)
		}
		if !c.IsSet("budget") {
			r.Budget = k.Budget
		}
		if !c.IsSet("min-budget") {
			r.MinBudget = k.MinBudget
		}
		if !c.IsSet("seed") {
			r.Seed = k.Seed
		}
		r.ckpt.resume = &k.Suspended
		r.ckpt.instance = k.Instance
	}
	if r.Rank() == 0 && r.ckpt.instance == nil {
		r.ckpt.instance, _ = encodeInstance(in) // every app's instance encodes with gob: its checkpoint tests write it
	}
}

// solveCheckpointed runs spec.Solve, and with --checkpoint writes the
// checkpoint of a suspended search on rank 0: after a signal the run then
// ends with ExitCheckpointed, after --checkpoint-every Solve goes on from
// the checkpoint. The verdict is collective: rank 0 broadcasts it.
func solveCheckpointed[I any](r *Run, spec Spec[I], in I) error {
	for {
		err := spec.Solve(r, in)
		var s *lb.Suspended
		if r.ckpt == nil || (r.ckpt.file == "" && !r.ckpt.limited()) || !errors.As(err, &s) {
			return err
		}
		if r.Comm != nil && r.WorldName() == "mpi" && r.ckpt.file != "" {
			// Which ranks' processes caught a signal: any of them makes
			// this checkpoint a signal's (the end of the run), not one of
			// --checkpoint-every.
			mine, caught := []int64{0}, []int64{0}
			if r.ckpt.signal.Load() {
				mine[0] = 1
			}
			if err := mpi.Allreduce(r.Comm, mine, caught, mpi.Max); err != nil {
				return err
			}
			if caught[0] != 0 {
				r.ckpt.signal.Store(true)
			}
		}
		code, msg := 0, ""
		if r.Rank() == 0 {
			code, msg = r.suspended(s)
		}
		if r.Comm != nil {
			b, err := driver.Bcast(r.Comm, append([]byte{byte(code)}, msg...), 0)
			if err != nil {
				return err
			}
			code, msg = int(b[0]), string(b[1:])
		}
		switch code {
		case 0:
			r.ckpt.resume, r.ckpt.last = s, time.Now()
			if !r.ckpt.dueAt.IsZero() {
				r.ckpt.took, r.ckpt.dueAt = r.ckpt.last.Sub(r.ckpt.dueAt), time.Time{}
			}
		case ExitCheckpointed, ExitLimit:
			if r.Rank() == 0 {
				r.endProgressLine()
				fmt.Fprintf(errWriter(r.Context.App), "%s: %s\n", r.Context.App.Name, msg)
				if r.JSON && code == ExitLimit {
					if err := writeRecord(r.Out(), r.stopRecord(s), version.Collect(r.WorldName())); err != nil {
						return err
					}
				}
			}
			return &quietError{code: code, verdict: true}
		default:
			// A failure to write the checkpoint, rank 0's: said once,
			// by rank 0, and every rank exits with its status.
			if r.Rank() == 0 {
				r.endProgressLine()
				fmt.Fprintf(errWriter(r.Context.App), "%s: %s\n", r.Context.App.Name, msg)
			}
			return &quietError{code: code, verdict: true}
		}
	}
}

// suspended handles a suspended search on rank 0: it writes the
// checkpoint with --checkpoint and returns the verdict: 0 to go on,
// ExitLimit to stop at --max-nodes or --time-limit, ExitCheckpointed to
// stop on a signal, 1 on a failure, with the message to print.
func (r *Run) suspended(s *lb.Suspended) (int, string) {
	limit := r.ckpt.limit
	if r.ckpt.file == "" {
		// Only a limit suspends a search without --checkpoint.
		if !r.resumable {
			// Its advice pointed at --checkpoint, which the app refuses.
			return ExitLimit, fmt.Sprintf("stopped at %s after %s, before its end; it is not saved (%s cannot checkpoint its searches)", limit, r.ckpt.done(s), r.App)
		}
		return ExitLimit, fmt.Sprintf("stopped at %s after %s, before its end; it is not saved (give --checkpoint FILE to resume it later)", limit, r.ckpt.done(s))
	}
	k := &Checkpoint{App: CommandPath(r.Context), Build: version.Get().String(), Instance: r.ckpt.instance,
		Balancer: r.Balancer, Options: lb.OptionValues(r.Options), Budget: r.Budget, MinBudget: r.MinBudget, Seed: r.Seed, Ranks: r.Ranks(), World: r.WorldName(),
		Written: time.Now().UTC(), Suspended: *s}
	if err := WriteCheckpoint(r.ckpt.file, k); err != nil {
		return 1, err.Error()
	}
	tasks := "tasks"
	if len(s.Tasks) == 1 {
		tasks = "task"
	}
	what := fmt.Sprintf("checkpoint %s: %d open %s after %s", r.ckpt.file, len(s.Tasks), tasks, r.ckpt.done(s))
	resume := "; resume with: " + resumeHint(r.Context, r.WorldName(), os.Args[0], os.Getenv, r.ckpt.file)
	if limit != "" {
		return ExitLimit, fmt.Sprintf("stopped at %s before the end of the search: %s%s", limit, what, resume)
	}
	if r.ckpt.signal.Load() {
		return ExitCheckpointed, what + resume
	}
	if !r.Quiet && !r.JSON {
		r.endProgressLine()
		fmt.Fprintf(errWriter(r.Context.App), "%s: %s\n", r.Context.App.Name, what)
	}
	return 0, ""
}

// done says the nodes done when s was suspended: those of the search in
// progress, and with --max-nodes those of the whole run by its last
// progress snapshot, when it had searches before this one (golomb's steps,
// fifteen's iterations, knapsack's phases) and so did more.
func (k *ckpt) done(s *lb.Suspended) string {
	if k.maxNodes > 0 && k.nodes > s.Nodes {
		return fmt.Sprintf("%d nodes of this run (%d of the search in progress)", k.nodes, s.Nodes)
	}
	return fmt.Sprintf("%d nodes of the search in progress", s.Nodes)
}

// stopRecord is the JSON record (--json) of a run stopped at a limit.
type stopRecord struct {
	Header
	Stopped string `json:"stopped"` // the limit: "--max-nodes 1000"
	Nodes   int64  `json:"nodes"`   // of the search in progress, over every run it was resumed from
	// RunNodes is, with --max-nodes, the nodes of this run by its last
	// progress snapshot, over all its searches (0 without --max-nodes).
	RunNodes   int64  `json:"run_nodes,omitempty"`
	Checkpoint string `json:"checkpoint"` // the file that holds the rest, "" without --checkpoint
}

func (r *Run) stopRecord(s *lb.Suspended) stopRecord {
	rec := stopRecord{Header: r.Header(), Stopped: r.ckpt.limit, Nodes: s.Nodes, Checkpoint: r.ckpt.file}
	if r.ckpt.maxNodes > 0 {
		rec.RunNodes = r.ckpt.nodes
	}
	return rec
}
