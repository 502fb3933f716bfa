package cmdutil

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

	"github.com/treelb/treelb/internal/version"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/mpi"
)

// ExitCheckpointed is the exit status of a run that wrote its checkpoint on
// a signal (SIGUSR1, SIGTERM) and stopped before the search was done:
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
const (
	checkpointMagic   = "TREELBCK"
	checkpointVersion = 3
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
	Options  lb.Options
	Budget   int64
	Seed     uint64
	Ranks    int    // the ranks of the run that wrote it (information)
	World    string // and its world
	Written  time.Time
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
	switch {
	case rest < n+sha256.Size:
		return fmt.Errorf("truncated: %d bytes, the header announces %d", len(b), uint64(checkpointHeader)+n+sha256.Size)
	case rest > n+sha256.Size:
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
	if d.App == "" || d.Budget < 0 || d.Nodes < 0 {
		return errors.New("the payload is incomplete")
	}
	*c = d
	return nil
}

// ReadCheckpoint reads the checkpoint file at path written by the command
// app. Every failure is a *UsageError (exit status 2) naming the file and
// what is wrong with it, including a checkpoint of another command.
func ReadCheckpoint(path, app string) (*Checkpoint, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, Usagef("checkpoint: %v", err)
	}
	c := new(Checkpoint)
	if err := c.UnmarshalBinary(b); err != nil {
		return nil, Usagef("checkpoint %s: %v", path, err)
	}
	if c.App != app {
		return nil, Usagef("checkpoint %s: written by %s, not %s", path, c.App, app)
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
	return writeAtomic(path, b, nil)
}

// writeAtomic writes data to path as WriteCheckpoint says; wrap, when not
// nil, wraps the temporary file's writer (tests crash in it).
func writeAtomic(path string, data []byte, wrap func(io.Writer) io.Writer) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
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
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer d.Close()
	if err = d.Sync(); err != nil {
		return fmt.Errorf("checkpoint %s: syncing the directory: %w", path, err)
	}
	return nil
}

// checkpointFlags are the flags of checkpoint and restart, which every
// command with a balancer takes.
func checkpointFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "checkpoint", Usage: "on SIGUSR1 or SIGTERM, suspend the search at a consistent cut, write it to `FILE` (atomically, checksummed) and exit with status 3; see --restart"},
		&cli.DurationFlag{Name: "checkpoint-every", Usage: "with --checkpoint, also write the checkpoint every `DURATION` (say 30m) and go on"},
		&cli.StringFlag{Name: "restart", Usage: "resume the search checkpointed in `FILE`: the instance, balancer and options come from it (flags given explicitly override them); --np and --world may differ"},
	}
}

// ckpt is one rank's part in checkpointing, with --checkpoint or --restart.
// It belongs to the rank's goroutine but for signal, which the process's
// signal handler sets.
type ckpt struct {
	file   string
	every  time.Duration
	signal *atomic.Bool  // a checkpoint signal arrived (shared by the process)
	last   time.Time     // rank 0: the start, or the last checkpoint
	resume *lb.Suspended // the search to continue, nil for none
	// rank 0, for the file: the instance's encoding, and the parameters.
	instance []byte
}

// due reports whether a checkpoint is due: a signal arrived, or
// --checkpoint-every passed since the last one.
func (k *ckpt) due() bool {
	return k.signal.Load() || k.every > 0 && time.Since(k.last) >= k.every
}

// catchSignals makes SIGUSR1 and SIGTERM set the returned flag instead of
// ending the process, until stop is called. Only runs with --checkpoint
// catch them: without, a signal ends the job at once as it always did.
func catchSignals() (flag *atomic.Bool, stop func()) {
	flag = new(atomic.Bool)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				flag.Store(true)
			case <-done:
				return
			}
		}
	}()
	return flag, func() {
		signal.Stop(ch)
		close(done)
	}
}

// loadRestart reads the checkpoint of --restart and its instance, on rank
// 0. When the command line names an instance too (positional arguments or
// the command's own flags), it must be the checkpoint's.
func loadRestart[I any](c *cli.Context, cm Common, spec Spec[I]) (I, *Checkpoint, error) {
	var in I
	k, err := ReadCheckpoint(cm.Restart, CommandPath(c))
	if err != nil {
		return in, nil, err
	}
	if err := gob.NewDecoder(bytes.NewReader(k.Instance)).Decode(&in); err != nil {
		return in, nil, Usagef("checkpoint %s: the instance does not decode: %v", cm.Restart, err)
	}
	if _, err := lb.Lookup(k.Balancer); err != nil {
		return in, nil, Usagef("checkpoint %s: balancer %q: this build does not have it", cm.Restart, k.Balancer)
	}
	if err := k.Options.Validate(); err != nil {
		return in, nil, Usagef("checkpoint %s: %v", cm.Restart, err)
	}
	if c.NArg() > 0 || appFlagsSet(c) {
		other, err := spec.Read(c, cm)
		if err != nil {
			return in, nil, err
		}
		b, err := encodeInstance(other)
		if err != nil {
			return in, nil, err
		}
		if !bytes.Equal(b, k.Instance) {
			return in, nil, Usagef("checkpoint %s: written for another instance of %s than the command line's (give --restart alone to resume it)", cm.Restart, CommandPath(c))
		}
	}
	return in, k, nil
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
	if !given || file == "" {
		return args, nil // cli says what is wrong
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return args, Usagef("checkpoint: %v", err)
	}
	var k Checkpoint
	if err := k.UnmarshalBinary(b); err != nil {
		return args, Usagef("checkpoint %s: %v", file, err)
	}
	if k.App == app.Name {
		return args, nil // the app itself wrote it (knapsack, beside its gen)
	}
	sub, ok := strings.CutPrefix(k.App, app.Name+" ")
	if !ok || app.Command(sub) == nil {
		return args, Usagef("checkpoint %s: written by %s, not by a subcommand of %s", file, k.App, app.Name)
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

// appFlagsSet reports whether a flag of the command's own (not a common
// one) is set on the command line.
func appFlagsSet(c *cli.Context) bool {
	common := map[string]bool{}
	for _, f := range Flags() {
		for _, n := range f.Names() {
			common[n] = true
		}
	}
	for _, name := range c.FlagNames() {
		if !common[name] && c.IsSet(name) {
			return true
		}
	}
	return false
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
	if r.Checkpoint == "" && k == nil {
		return
	}
	r.ckpt = &ckpt{file: r.Checkpoint, every: r.CheckpointEvery, signal: signalled, last: time.Now()}
	if r.ckpt.signal == nil {
		r.ckpt.signal = new(atomic.Bool)
	}
	if k != nil {
		c := r.Context
		if !c.IsSet("balancer") {
			r.Balancer, r.Options = k.Balancer, k.Options
			r.info, _ = lb.Lookup(k.Balancer) // checked by loadRestart
		}
		if !c.IsSet("budget") {
			r.Budget = k.Budget
		}
		if !c.IsSet("seed") {
			r.Seed = k.Seed
		}
		r.ckpt.resume = &k.Suspended
		r.ckpt.instance = k.Instance
	}
	if r.Rank() == 0 && r.ckpt.instance == nil {
		r.ckpt.instance, _ = encodeInstance(in) // it travelled from rank 0 with gob already
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
		if r.ckpt == nil || r.ckpt.file == "" || !errors.As(err, &s) {
			return err
		}
		code, msg := 0, ""
		if r.Rank() == 0 {
			code, msg = r.writeCheckpoint(s)
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
		case ExitCheckpointed:
			if r.Rank() == 0 {
				fmt.Fprintf(errWriter(r.Context.App), "%s: %s\n", r.Context.App.Name, msg)
			}
			return &quietError{code: ExitCheckpointed}
		default:
			if r.Rank() != 0 {
				msg = "rank 0: " + msg
			}
			return errors.New(msg)
		}
	}
}

// writeCheckpoint writes the checkpoint of s on rank 0 and returns the
// verdict: 0 to go on, ExitCheckpointed to stop (a signal came), 1 on a
// failure, with the message to print.
func (r *Run) writeCheckpoint(s *lb.Suspended) (int, string) {
	k := &Checkpoint{App: CommandPath(r.Context), Build: version.Get().String(), Instance: r.ckpt.instance,
		Balancer: r.Balancer, Options: r.Options, Budget: r.Budget, Seed: r.Seed, Ranks: r.Ranks(), World: r.WorldName(),
		Written: time.Now().UTC(), Suspended: *s}
	if err := WriteCheckpoint(r.ckpt.file, k); err != nil {
		return 1, err.Error()
	}
	what := fmt.Sprintf("checkpoint %s: %d open tasks after %d nodes of the search in progress", r.ckpt.file, len(s.Tasks), s.Nodes)
	if r.ckpt.signal.Load() {
		return ExitCheckpointed, what + fmt.Sprintf("; resume with: %s --restart %s", CommandPath(r.Context), r.ckpt.file)
	}
	if !r.Quiet && !r.JSON {
		fmt.Fprintf(errWriter(r.Context.App), "%s: %s\n", r.Context.App.Name, what)
	}
	return 0, ""
}
