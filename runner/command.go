package runner

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/internal/gobcheck"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/version"
)

// Spec says what a command (or subcommand) does with an instance of type I.
// I travels from rank 0 to the other ranks with encoding/gob, so its fields
// must be exported: a command whose I has an unexported field anywhere
// (but in a type that encodes itself) exits with ExitInternal at once, in
// every world, naming the field.
type Spec[I any] struct {
	// App names the app in the output's header ("golomb").
	App string
	// Read parses the positional arguments and the app's flags and reads
	// the instance (files, stdin). It runs on rank 0 only; its error ends
	// the run on every rank with the exit status it carries: 2 for bad
	// input (return Usagef, or wrap a *UsageError), 1 for an error that
	// carries none (a failure, not the user's mistake).
	Read func(c *cli.Context, cm Common) (I, error)
	// Solve solves the instance. It runs on every rank (on rank 0 alone
	// with --balancer seq, and once for all ranks in the simulator) and
	// prints with Run.Print, which writes on rank 0 only.
	Solve func(r *Run, in I) error
	// Resumable says that Solve supports checkpoints: it runs its searches
	// with Run.Config (or a Config whose Resume it chose from Run.Resume),
	// returns a search's *lb.Suspended error with its own State, and
	// resumes from Run.Resume's State. Without it, --checkpoint and
	// --restart are usage errors.
	Resumable bool
	// Sample, when not nil, returns an app of the instance's sequential
	// search whose root --calibrate works for a short time to measure the
	// cost of a node on this machine (Calibrate), and whose tasks it splits,
	// encodes and decodes (CalibrateApp). It should hold at least 10⁵
	// nodes.
	Sample func(in I) (lb.App, error)
	// NodeCosts are the app's node costs on the machine models of lb's
	// catalogue (--world sim --machine NAME); a model's own node cost
	// stands for those it does not give.
	NodeCosts lb.NodeCosts
}

// Run is one rank's view of a command's run: the parsed flags, the world
// and where to print. It belongs to the rank's goroutine.
type Run struct {
	Common
	App string
	// World runs lb computations; nil with --balancer seq and in commands
	// without balancers.
	World lb.World
	// Comm is the rank's communicator in the embedded and MPI worlds, for
	// commands that exchange data themselves; nil in the simulator.
	Comm *mpi.Comm
	// Context is the command line.
	Context *cli.Context

	progress  *progressPrinter // rank 0's, when progress lines are on
	traceRuns int              // reports written to the --trace file
	traceText bytes.Buffer     // the --trace file's text so far
	ckpt      *ckpt            // with --checkpoint or --restart
	costs     lb.NodeCosts     // Spec.NodeCosts
	resumable bool             // Spec.Resumable
}

// Resume returns the suspended search the run continues (--restart, or
// the last periodic checkpoint), nil when there is none. Run.Config puts it
// in lb.Config.Resume; solvers of several searches read its State to find
// the suspended one.
func (r *Run) Resume() *lb.Suspended {
	if r.ckpt == nil {
		return nil
	}
	return r.ckpt.resume
}

// ringRanks is the largest ring that the ring schedulers serve without
// --fast-init: seed 003 measured up to 16 PEs and advises against more.
const ringRanks = 16

// warnRing tells the user, on rank 0 unless --quiet, that koso and
// koso-star on more than ringRanks ranks without --fast-init keep few of
// them busy: work moves one rank per split (lb's TestKOSOPlacement).
func (r *Run) warnRing() {
	if r.Quiet || r.World == nil || r.Rank() != 0 || r.Ranks() <= ringRanks || r.FastInit() ||
		(r.Balancer != "koso" && r.Balancer != "koso-star") {
		return
	}
	fmt.Fprintf(errWriter(r.Context.App), "%s: warning: %s on %d ranks without --fast-init: work moves one rank per split, so only a"+
		" few ranks near rank 0 get any (a speedup near 5-15 whatever P; the rings are for up to %d ranks, seed 003);"+
		" --fast-init starts every rank with a piece of the root\n", r.App, r.Balancer, r.Ranks(), ringRanks)
}

// endProgressLine ends the progress line on rank 0 with the totals so
// far, when one was printed since the last result, so that a message or a
// result printed next starts a line of its own.
func (r *Run) endProgressLine() {
	if r.progress != nil {
		r.progress.finish()
	}
}

// startProgress turns progress lines on for rank 0 when the flags ask for
// them, and returns the function that ends them: --progress, or stderr a
// terminal and none of -q, --json and --progress=false.
func (r *Run) startProgress() func() {
	on := r.Progress || (!r.Quiet && !r.JSON && !r.Context.IsSet("progress") && IsTerminal(os.Stderr))
	if !on || r.Rank() != 0 || r.World == nil {
		return func() {}
	}
	r.progress = &progressPrinter{w: errWriter(r.Context.App), start: time.Now()}
	if IsTerminal(os.Stderr) {
		r.progress.width = func() int { return terminalWidth(os.Stderr) }
	}
	return r.progress.finish
}

// Action returns the action of a command that reads its instance and
// solves it as spec says, in the world the flags choose.
//
// The world starts before anything is read, so that every verdict is
// collective: each rank checks its flags, then the ranks agree that all of
// them accepted theirs and that their command lines and builds are the same
// (a hash in one reduction), then rank 0 alone reads the instance and
// broadcasts it, or its error. A rejection ends every rank with status 2 and
// one message (printed by rank 0) instead of leaving ranks waiting.
func Action[I any](spec Spec[I]) cli.ActionFunc {
	return func(c *cli.Context) error {
		if spec.Read == nil || spec.Solve == nil {
			// The app's bug, not the user's, and no panic's stack.
			return &exitError{fmt.Errorf("runner: the Spec of %q lacks Read or Solve (both are needed)", spec.App), ExitInternal}
		}
		if c.App.Metadata == nil {
			c.App.Metadata = map[string]any{}
		}
		c.App.Metadata[metaCosts] = spec.NodeCosts
		if err := gobcheck.Exported(reflect.TypeFor[I](), "the instance type"); err != nil {
			// The app's bug, not the user's: the same verdict on every rank.
			return &exitError{fmt.Errorf("runner: %w", err), ExitInternal}
		}
		cm, perr := Parse(c)
		if errors.Is(perr, errHelpShown) {
			return perr
		}
		if perr == nil && (cm.Checkpoint != "" || cm.Restart != "") && !spec.Resumable {
			perr = Usagef("--checkpoint, --restart: %s cannot checkpoint its searches", spec.App)
		}
		if c.Bool("check") {
			return checkOnly(c, cm, spec, perr)
		}
		// Rank 0's lock on the checkpoint path, held until the command
		// ends (released on every path out of here, and by a signal that
		// ends the process before the search; a crash releases the flock
		// with the process).
		lock := new(heldLock)
		defer lock.Release()
		var signalled *atomic.Bool
		begin := func() {} // the search starts: a signal then checkpoints it
		if perr == nil && cm.Checkpoint != "" {
			var stop func()
			early, _ := c.App.Metadata[MetaEarlySignal].(chan os.Signal)
			signalled, begin, stop = catchSignals(early, c.App.Name, errWriter(c.App), lock.Release)
			defer stop()
		}
		prepare := func() error {
			if cm.Checkpoint == "" {
				return nil
			}
			l, err := prepareCheckpoint(cm.Checkpoint, strings.Join(argsOf(c), " "))
			lock.set(l)
			return err
		}
		wk, werr := lookupWorld(cm.World) // Parse checked it
		sampleOf := func(in I) func() (lb.App, error) {
			if spec.Sample == nil {
				return nil
			}
			return func() (lb.App, error) { return spec.Sample(in) }
		}
		if perr == nil && werr == nil && wk.oneProcess {
			// One process: nothing to agree on.
			r := &Run{Common: cm, App: spec.App, Context: c, costs: spec.NodeCosts, resumable: spec.Resumable}
			var in I
			var k *Checkpoint
			err := prepare()
			if err == nil && cm.Restart != "" {
				in, k, err = loadRestart(c, cm, spec, cm.NP)
			} else if err == nil {
				in, err = spec.Read(c, r.Common)
			}
			if err != nil {
				return &rejected{err}
			}
			begin()
			setCheckpointing(r, signalled, k, in)
			if cm.Balancer != Seq && cm.Balancer != "" {
				if r.World, err = wk.open(r, nil, sampleOf(in)); err != nil {
					return &rejected{err}
				}
			}
			r.warnRing()
			stop := r.startProgress()
			err = badCheckpoint(cm, solveCheckpointed(r, spec, in))
			stop()
			if err != nil {
				var q *quietError
				if errors.As(err, &q) {
					return err
				}
				return &rejected{err}
			}
			return nil
		}
		if perr != nil && mpi.WorldName != "mpi" {
			return perr // one process: nothing to agree on
		}
		n := cm.NP
		if cm.Balancer == Seq && mpi.WorldName != "mpi" {
			n = 1
		}
		if perr != nil && mpi.WorldName == "mpi" {
			// The flags were refused before --np was settled (its default
			// is the CPUs, which under mpirun is one core a rank): the
			// launcher's world agrees on the refusal.
			n = 0
		}
		var verdict error
		stopGC := func() {}
		if mpi.WorldName != "mpi" { // the ranks share the heap
			hugeHeapFor(c.App.Metadata, n)
			stopGC = gcFloorFor(c.App.Metadata, n)
		}
		err := mpi.RunWith(n, mpi.Options{StartupTimeout: cm.StartupTimeout}, func(comm *mpi.Comm) (err error) {
			defer recoverRank(CommandPath(c), comm.Rank(), &err)
			comm.SetIdle(cm.Idle)
			r := &Run{Common: cm, App: spec.App, Comm: comm, Context: c, costs: spec.NodeCosts, resumable: spec.Resumable}
			local := perr
			if local == nil {
				local = cm.checkSize(comm.Size())
			}
			var loaded *Checkpoint // rank 0's, with --restart
			in, err := agreeOnInput(comm, c, local, func() (I, error) {
				var in I
				if err := prepare(); err != nil {
					return in, err
				}
				if mpi.WorldName == "mpi" {
					c.App.Reader = stdinWithin(c.App.Reader, min(cm.StartupTimeout, stdinFirstByte))
				}
				rc := cm
				if rc.NP == 0 {
					// Under a launcher without --np: its size, which
					// Read's estimates are for (golomb's time, dht's
					// memory read "--np 0" and "on 1 ranks").
					rc.NP = comm.Size()
				}
				if cm.Restart == "" {
					return spec.Read(c, rc)
				}
				in, k, err := loadRestart(c, rc, spec, comm.Size())
				loaded = k
				return in, err
			})
			if err == nil && cm.Restart != "" {
				loaded, err = shareCheckpoint(comm, loaded)
			}
			if err != nil {
				if !errors.Is(err, errRejected) {
					return err
				}
				if comm.Rank() == 0 || mpi.WorldName == "mpi" {
					verdict = err // every process's own; one of the goroutine ranks'
				}
				return announce(comm, c.App, err)
			}
			begin()
			setCheckpointing(r, signalled, loaded, in)
			if cm.calibrate {
				return r.calibrateWorld(sampleOf(in))
			}
			switch cm.Balancer {
			case Seq:
				if comm.Rank() != 0 {
					return nil
				}
			case "":
			default:
				if r.World, err = wk.open(r, comm, nil); err != nil {
					return err
				}
			}
			r.warnRing()
			defer r.startProgress()()
			err = badCheckpoint(cm, solveCheckpointed(r, spec, in))
			var q *quietError
			if errors.As(err, &q) && q.verdict {
				if comm.Rank() == 0 || mpi.WorldName == "mpi" {
					verdict = err
				}
				return nil
			}
			return err
		})
		stopGC()
		if err != nil {
			return err
		}
		if verdict != nil {
			// Rank 0 printed why; every rank exits with the same status.
			return &quietError{code: exitCode(verdict)}
		}
		return nil
	}
}

// checkOnly is --check: the launch (mpi.CheckLaunch), the command line
// (perr, Parse's verdict), the world's size, the checkpoint's path and the
// instance (or --restart's checkpoint) are checked as a run checks them
// before its search, and then nothing runs: no world starts (under MPI,
// no MPI_Init) and no file is written. A batch script or the campaign
// runner asks it before a long run, so that a mistake shows at once, not
// when the run's turn comes. Under a launcher the task it numbers 0 alone
// speaks. Not inlined: it stays out of Action's frame, which golomb's
// 8-KB stacks hold.
//
//go:noinline
func checkOnly[I any](c *cli.Context, cm Common, spec Spec[I], perr error) error {
	err := func() error {
		if perr != nil {
			return perr
		}
		n := 0 // the launcher's size, under MPI unless --np asks for another
		if mpi.WorldName == "mpi" {
			n = cm.NP
		}
		if err := mpi.CheckLaunch(n); err != nil {
			return err
		}
		if mpi.WorldName != "mpi" {
			if err := cm.checkSize(max(cm.NP, 1)); err != nil {
				return err
			}
		}
		if cm.Checkpoint != "" {
			if err := checkCheckpointPath(cm.Checkpoint); err != nil {
				return err
			}
		}
		if cm.Restart != "" {
			_, _, err := loadRestart(c, cm, spec, max(cm.NP, 1))
			return err
		}
		_, err := spec.Read(c, cm)
		return err
	}()
	speaks := mpi.DetectLauncher(os.Getenv).Speaks()
	if err != nil && !speaks {
		// Under a launcher every task checks alike, and the task it
		// numbers 0 says why (no world elects a rank 0).
		return &quietError{code: exitCode(err)}
	}
	if err != nil {
		return &rejected{err}
	}
	if cm.Quiet || cm.JSON || !speaks {
		return nil
	}
	_, err = fmt.Fprintf(errWriter(c.App), "%s: --check: the command line and the instance are good; nothing ran\n", CommandPath(c))
	return err
}

// argsOf returns the command line of c, as Execute received it.
func argsOf(c *cli.Context) []string {
	args, _ := c.App.Metadata[metaArgs].([]string)
	return args
}

// badCheckpoint turns the error of a search resumed from a checkpoint whose
// tasks, partial result or solver's state do not decode (lb.ErrBadTasks,
// lb.ErrBadState) into a usage error naming the file: the file is
// malformed although its checksum is right. Other errors pass unchanged.
func badCheckpoint(cm Common, err error) error {
	if err == nil || cm.Restart == "" || !(errors.Is(err, lb.ErrBadTasks) || errors.Is(err, lb.ErrBadState)) {
		return err
	}
	return Usagef("--restart: checkpoint %s: malformed (its checksum is right, but it does not decode): %v", cm.Restart, err)
}

// announce prints a collective verdict on rank 0 and waits until it is
// printed before any rank goes on to exit: a launcher may kill the job as
// soon as one process exits with a failure.
func announce(comm *mpi.Comm, app *cli.App, err error) error {
	if comm.Rank() == 0 {
		fmt.Fprintf(errWriter(app), "%s: %v\n", app.Name, err)
	}
	return comm.Barrier()
}

// errRejected matches a *rejected error.
var errRejected = errors.New("rejected")

// rejected wraps a verdict every rank agreed on (or the error of a world
// with one process), which ends the command with its exit code.
type rejected struct{ err error }

func (e *rejected) Error() string { return e.err.Error() }
func (e *rejected) Unwrap() error { return e.err }
func (e *rejected) Is(target error) bool {
	return target == errRejected
}

// quietError ends a rank with an exit code and no message: rank 0 prints
// the message of a collective verdict.
type quietError struct {
	code    int
	verdict bool // every rank reached it together (solveCheckpointed's)
}

func (e *quietError) Error() string { return fmt.Sprintf("exit status %d (rank 0 says why)", e.code) }
func (e *quietError) ExitCode() int { return e.code }

// started reports whether err is a verdict reached after the world
// started, so that run does not start one again to agree on it.
func started(err error) bool {
	var r *rejected
	var q *quietError
	return errors.As(err, &r) || errors.As(err, &q)
}

// exitCode returns the exit code an error chooses, 1 by default.
func exitCode(err error) int {
	var ec mpi.ExitCoder
	if errors.As(err, &ec) && ec.ExitCode() != 0 {
		return ec.ExitCode()
	}
	return 1
}

// agreeOnInput is the start of every rank: the ranks agree on their flags
// (local, this rank's parse error) and command lines, then rank 0 reads the
// instance with read and broadcasts it. A *rejected error is a verdict all
// ranks share.
func agreeOnInput[I any](comm *mpi.Comm, c *cli.Context, local error, read func() (I, error)) (I, error) {
	var in I
	if err := agree(comm, local, identityOf(c)); err != nil {
		return in, err
	}
	var payload []byte
	if comm.Rank() == 0 {
		v, err := read()
		if err != nil {
			payload = append([]byte{byte(exitCode(err))}, err.Error()...)
		} else {
			b, err := marshalInput(v)
			if err != nil {
				return in, fmt.Errorf("sending the instance: %w", err)
			}
			payload = append([]byte{0}, b...)
		}
	}
	payload, err := driver.Bcast(comm, payload, 0)
	if err != nil {
		return in, err
	}
	if code := int(payload[0]); code != 0 {
		msg := errors.New(string(payload[1:]))
		if code == 2 {
			return in, &rejected{&UsageError{Err: msg}}
		}
		return in, &rejected{&exitError{msg, code}}
	}
	if err := unmarshalInput(payload[1:], &in); err != nil {
		return in, fmt.Errorf("receiving the instance: %w", err)
	}
	return in, nil
}

// The encodings of an instance that rank 0 sends the others, by the first
// byte of the encoding.
const (
	instanceJSON = 'j'
	instanceGob  = 'g'
)

// jsonInstanceMax is the longest JSON encoding of an instance sent as JSON.
const jsonInstanceMax = 4096

// marshalInput encodes v for unmarshalInput: as JSON when that is short
// and gives v back exactly (checked here, once), otherwise with gob. Every
// rank decodes the instance, and a gob decoder compiles the type first,
// which cost an embedded rank 60 to 125 µs of CPU, a tenth of a run of
// golomb 10 on 65536 ranks, and grew every rank's goroutine stack (issue
// 23); JSON's type information is compiled once a process. gob keeps what
// JSON loses (fields that encode themselves only in binary, NaNs), and
// decodes large instances (knapsack's items) faster.
func marshalInput[I any](v I) ([]byte, error) {
	if j, err := json.Marshal(v); err == nil && len(j) <= jsonInstanceMax {
		var back I
		if json.Unmarshal(j, &back) == nil && reflect.DeepEqual(back, v) {
			return append([]byte{instanceJSON}, j...), nil
		}
	}
	var b bytes.Buffer
	b.WriteByte(instanceGob)
	if err := gob.NewEncoder(&b).Encode(&v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// unmarshalInput decodes an encoding of marshalInput into in.
func unmarshalInput[I any](b []byte, in *I) error {
	if len(b) == 0 {
		return errors.New("an empty encoding")
	}
	switch b[0] {
	case instanceJSON:
		return json.Unmarshal(b[1:], in)
	case instanceGob:
		return gob.NewDecoder(bytes.NewReader(b[1:])).Decode(in)
	}
	return fmt.Errorf("an encoding of kind %q", b[0])
}

// exitError is an error with an exit code other than 2.
type exitError struct {
	err  error
	code int
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }
func (e *exitError) ExitCode() int { return e.code }

// identity is what must be the same on every rank: the build (balancers,
// MPI world, command) and the command line (without the program's path).
type identity struct {
	build, args uint64
	argv        []string
}

// identityOf hashes the build and the command line of this rank.
func identityOf(c *cli.Context) identity {
	args, _ := c.App.Metadata[metaArgs].([]string)
	if len(args) > 0 {
		args = args[1:]
	}
	// Plain writes, not fmt: fmt's reflection grows every rank goroutine's
	// stack, which a world of 65536 goroutine ranks keeps (issue 23).
	b := fnv.New64a()
	for _, s := range []string{strings.Join(lb.Names(), ","), mpi.WorldName, c.App.Name, version.Version} {
		io.WriteString(b, s)
		b.Write([]byte{0})
	}
	a := fnv.New64a()
	for _, s := range args {
		io.WriteString(a, strconv.Quote(s))
		a.Write([]byte{0})
	}
	return identity{build: b.Sum64(), args: a.Sum64(), argv: args}
}

const metaArgs = "treelb.args"

// agree is the collective verdict on every rank's flags: it fails on every
// rank, with the first failing rank's message, when any rank rejected its
// flags, and when the ranks' builds or command lines differ, naming the
// first rank whose command line differs from rank 0's. One reduction when
// all is well (and a broadcast or two of the message when not).
func agree(comm *mpi.Comm, local error, id identity) error {
	size := int64(comm.Size())
	first := size
	if local != nil {
		first = int64(comm.Rank())
	}
	hb, ha := int64(id.build>>1), int64(id.args>>1)
	vals := []int64{first, hb, -hb, ha, -ha}
	out := make([]int64, len(vals))
	if err := mpi.Allreduce(comm, vals, out, mpi.Min); err != nil {
		return err
	}
	if out[0] < size {
		var msg []byte
		if int64(comm.Rank()) == out[0] {
			msg = []byte(local.Error())
		}
		msg, err := driver.Bcast(comm, msg, int(out[0]))
		if err != nil {
			return err
		}
		text := string(msg)
		if out[0] != 0 {
			text = fmt.Sprintf("rank %d: %s", out[0], text)
		}
		return &rejected{&UsageError{Err: errors.New(text)}}
	}
	if out[1] != -out[2] {
		return &rejected{Usagef("the ranks run different builds (version, MPI library or balancer set); start every rank with the same binary")}
	}
	if out[3] != -out[4] {
		return mismatchedArgs(comm, id.argv)
	}
	return nil
}

// mismatchedArgs is the verdict when the command lines differ: it names
// rank 0's and the first other rank's. Collective.
func mismatchedArgs(comm *mpi.Comm, argv []string) error {
	line := func(args []string) []byte { return []byte(strings.Join(args, "\x00")) }
	zero, err := driver.Bcast(comm, line(argv), 0)
	if err != nil {
		return err
	}
	differs := int64(comm.Size())
	if !bytes.Equal(zero, line(argv)) {
		differs = int64(comm.Rank())
	}
	out := []int64{0}
	if err := mpi.Allreduce(comm, []int64{differs}, out, mpi.Min); err != nil {
		return err
	}
	if out[0] >= int64(comm.Size()) { // the hashes differ, the lines do not: cannot happen
		return &rejected{Usagef("the ranks were started with different command lines")}
	}
	other, err := driver.Bcast(comm, line(argv), int(out[0]))
	if err != nil {
		return err
	}
	show := func(b []byte) string {
		if len(b) == 0 {
			return "no arguments"
		}
		return fmt.Sprintf("%q", strings.Split(string(b), "\x00"))
	}
	return &rejected{Usagef("the ranks were started with different command lines: rank 0 has %s, rank %d has %s; start every rank with the same command line",
		show(zero), out[0], show(other))}
}

// failTogether takes part in the collective verdict of a rank whose command
// line was rejected before its world started (under MPI), so that the other
// ranks do not wait for it; it returns the error to exit with.
func failTogether(app *cli.App, local error) error {
	err := mpi.RunWith(0, mpi.Options{StartupTimeout: DefaultStartupTimeout}, func(comm *mpi.Comm) error {
		return announce(comm, app, agree(comm, local, identity{}))
	})
	if err != nil {
		return errors.Join(local, err)
	}
	return &quietError{code: 2}
}

// Verdict ends the command with err, an error every rank reaches alike (a
// check of the answer, say), and its exit status (1 if it names none):
// rank 0 says it once, without a rank's name ("fifteen: rank 1: korf 2:
// length 55, ..." named whichever rank returned first). nil is nil.
func (r *Run) Verdict(err error) error {
	if err == nil {
		return nil
	}
	if r.Rank() == 0 {
		r.endProgressLine()
		fmt.Fprintf(errWriter(r.Context.App), "%s: %v\n", r.Context.App.Name, err)
	}
	return &quietError{code: exitCode(err), verdict: true}
}

// Seq reports whether the run is the sequential solver's.
func (r *Run) Seq() bool { return r.Balancer == Seq }

// Rank is the rank of this program: 0 in the simulator and under seq.
func (r *Run) Rank() int {
	if r.Comm == nil {
		return 0
	}
	return r.Comm.Rank()
}

// Ranks is the number of ranks the run uses: 1 under seq.
func (r *Run) Ranks() int {
	if r.World == nil {
		return 1
	}
	return r.World.Size()
}

// WorldName is the world the run uses: "embedded", "mpi" or "sim".
func (r *Run) WorldName() string {
	if r.World == nil {
		return r.Common.World
	}
	return r.World.Name()
}

// Header returns the header of the run's output.
func (r *Run) Header() Header {
	return Header{App: r.App, Balancer: r.Balancer, Ranks: r.Ranks(), World: r.WorldName()}
}

// Out is where rank 0 prints.
func (r *Run) Out() io.Writer { return r.Context.App.Writer }

// Print writes one record on rank 0: as one line of JSON with --json,
// otherwise by calling human (which may look at --quiet and --stats). Other
// ranks print nothing.
func (r *Run) Print(record any, human func(w io.Writer) error) error {
	if r.Rank() != 0 {
		return nil
	}
	r.endProgressLine() // the last progress line, then the result
	var err error
	if r.JSON {
		err = writeRecord(r.Out(), record, version.Collect(r.WorldName()))
	} else {
		err = human(r.Out())
	}
	// A printer may ignore the errors of its writes; the writer keeps the
	// first.
	if werr := writeError(r.Out()); werr != nil {
		return werr
	}
	return err
}

// StatsOf returns the statistics part of the JSON output of an outcome when
// --stats asked for it, otherwise nil.
func (r *Run) StatsOf(o *lb.Outcome) *Stats {
	if !r.Common.Stats || o == nil {
		return nil
	}
	return &Stats{Total: o.Total, Ranks: o.Ranks}
}

// ReorderArgs returns args with every flag that app (or the subcommand
// named first) defines moved before the positional arguments, so that
// flags may stand anywhere on the command line, as mpirun and srun users
// write them. Flags that stand before the subcommand's name and that only
// the subcommand defines move after the name, so that commands whose
// subcommands take the common flags accept them anywhere too. A "--" ends
// the flags; what follows stays positional. A flag that wants a value but
// ends the command line is moved last, with no positional argument after
// it, so that cli reports it as missing its value rather than taking the
// argument that stood before it.
func ReorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	flags := app.Flags
	head := []string{args[0]}
	rest := args[1:]
	// A subcommand (the first argument that is neither a flag nor a flag's
	// value) brings its own flags; the app's stay before it.
	known := append(append([]cli.Flag(nil), app.Flags...), commandFlags(app)...)
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if takesValue(known, a) && !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		if cmd := app.Command(a); cmd != nil {
			own, moved := splitBefore(rest[:i], app.Flags, cmd.Flags)
			head = append(append(head, own...), a)
			rest = append(moved, rest[i+1:]...)
			flags = cmd.Flags
		}
		break
	}
	var fl, pos []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			// What follows is positional; the "--" itself goes, and comes
			// back in front of the positional arguments if one of them
			// looks like a flag (below).
			pos = append(pos, rest[i+1:]...)
			i = len(rest)
		case strings.HasPrefix(a, "-") && len(a) > 1 && !isNumber(a):
			// A flag, or what cli will reject as an unknown one.
			if takesValue(flags, a) && !strings.Contains(a, "=") {
				if i+1 == len(rest) {
					return append(append(head, fl...), a) // missing its value: cli says so
				}
				fl = append(fl, a, rest[i+1])
				i++
				continue
			}
			fl = append(fl, a)
		default:
			pos = append(pos, a)
		}
	}
	if hasNegativeNumber(pos) {
		pos = append([]string{"--"}, pos...)
	}
	return append(append(head, fl...), pos...)
}

// commandFlags returns the flags of all of app's subcommands.
func commandFlags(app *cli.App) []cli.Flag {
	var out []cli.Flag
	for _, c := range app.Commands {
		out = append(out, c.Flags...)
	}
	return out
}

// splitBefore splits the flags (with their values) that stand before a
// subcommand's name into the app's own, which stay there, and those that
// only the subcommand defines, which move after the name.
func splitBefore(before []string, appFlags, cmdFlags []cli.Flag) (own, moved []string) {
	for i := 0; i < len(before); i++ {
		a := before[i]
		dst, set := &own, appFlags
		if findFlag(appFlags, a) == nil && findFlag(cmdFlags, a) != nil {
			dst, set = &moved, cmdFlags
		}
		*dst = append(*dst, a)
		if takesValue(set, a) && !strings.Contains(a, "=") && i+1 < len(before) {
			*dst = append(*dst, before[i+1])
			i++
		}
	}
	return own, moved
}

// isNumber reports whether a is a number, such as a negative one, which is
// a positional argument however it starts.
func isNumber(a string) bool {
	_, err := strconv.ParseFloat(a, 64)
	return err == nil
}

// hasNegativeNumber reports whether a positional argument looks like a flag
// (a negative number), which cli would otherwise parse as one.
func hasNegativeNumber(pos []string) bool {
	for _, p := range pos {
		if strings.HasPrefix(p, "-") {
			return true
		}
	}
	return false
}

func flagName(a string) string {
	name := strings.TrimLeft(a, "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		name = name[:i]
	}
	return name
}

func findFlag(flags []cli.Flag, a string) cli.Flag {
	name := flagName(a)
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	if name == "help" || name == "h" || name == "version" || name == "v" {
		return &cli.BoolFlag{Name: name}
	}
	return nil
}

// takesValue reports whether the flag a names takes a value in the next
// argument (every flag but the boolean ones).
func takesValue(flags []cli.Flag, a string) bool {
	f := findFlag(flags, a)
	if f == nil {
		return false
	}
	d, ok := f.(cli.DocGenerationFlag) // every flag of cli's; false for the boolean ones
	return !ok || d.TakesValue()
}
