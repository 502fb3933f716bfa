package runner_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// fakeEnv, set in the environment of this test binary, makes it the fake
// app (TestMain) instead of running the tests: a command built on
// runner.Action like every app, for the checkpoint scenario that every
// app shares.
const fakeEnv = "TREELB_CMDUTIL_FAKE_APP"

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		runner.Main(newFakeApp())
		return
	}
	os.Exit(m.Run())
}

// fakeInstance is the fake app's instance: a synthetic tree (lbtest.Tree)
// of the given seed and depth.
type fakeInstance struct {
	Seed  uint64
	Depth int
}

// fakeRecord is what the fake app prints with --json.
type fakeRecord struct {
	Nodes  int64
	Digest uint64
}

// newFakeApp is the fake app: "fake DEPTH [--tree-seed S]" counts the
// synthetic tree exhaustively and prints its nodes and the digest of its
// leaves. With --signal-after N, rank 0 sends its own process SIGUSR1
// once it has worked N nodes, as Slurm's --signal does at a moment of its
// own: the test needs no timer.
func newFakeApp() *cli.App {
	return &cli.App{
		Name:      "fake",
		Usage:     "count a synthetic tree (runner's checkpoint scenario)",
		ArgsUsage: "DEPTH",
		Flags: append(runner.Flags(),
			&cli.Uint64Flag{Name: "tree-seed", Value: 1, Usage: "the tree's seed `S`"},
			&cli.Int64Flag{Name: "signal-after", Usage: "rank 0 sends SIGUSR1 to its process after `N` nodes"},
			&cli.StringFlag{Name: "signal", Value: "USR1", Usage: "what --signal-after sends: USR1, INT, HUP, or INT2 (SIGINT twice)"},
			&cli.BoolFlag{Name: "term-in-read", Usage: "send the process SIGTERM while the instance is read, then wait 5 s (slow input)"}),
		Action: runner.Action(runner.Spec[fakeInstance]{App: "fake", Read: fakeRead, Solve: fakeSolve, Resumable: os.Getenv(fakeNoResumeEnv) == ""}),
	}
}

// fakeNoResumeEnv makes the fake app one without Spec.Resumable.
const fakeNoResumeEnv = "TREELB_FAKE_NO_RESUME"

func fakeRead(c *cli.Context, _ runner.Common) (fakeInstance, error) {
	if c.NArg() != 1 {
		return fakeInstance{}, runner.Usagef("give the tree's DEPTH")
	}
	d, err := strconv.Atoi(c.Args().First())
	if err != nil || d < 1 || d > 40 {
		return fakeInstance{}, runner.Usagef("DEPTH %q: not a depth in 1..40", c.Args().First())
	}
	if c.Bool("term-in-read") {
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		time.Sleep(5 * time.Second)
	}
	return fakeInstance{Seed: c.Uint64("tree-seed"), Depth: d}, nil
}

// signalling is a Tree whose rank 0 signals its process once it has worked
// after nodes.
type signalling struct {
	*lbtest.Tree
	after int64
	sig   string
	sent  *atomic.Bool
}

func (a signalling) Root() lb.Task { return signallingTask{a.Tree.Root(), a} }

func (a signalling) Unmarshal(b []byte) (lb.Task, error) {
	t, err := a.Tree.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return signallingTask{t, a}, nil
}

type signallingTask struct {
	lb.Task
	app signalling
}

func (t signallingTask) Work(budget int64) int64 {
	n := t.Task.Work(budget)
	if t.app.after > 0 && t.app.Nodes() >= t.app.after && t.app.sent.CompareAndSwap(false, true) {
		switch t.app.sig {
		case "INT":
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		case "HUP":
			syscall.Kill(os.Getpid(), syscall.SIGHUP)
		case "INT2": // a user pressing Ctrl-C again while the checkpoint is due
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			time.Sleep(100 * time.Millisecond)
			syscall.Kill(os.Getpid(), syscall.SIGINT)
			time.Sleep(5 * time.Second) // the second ends the process first
		default:
			syscall.Kill(os.Getpid(), syscall.SIGUSR1)
		}
	}
	return n
}

func (t signallingTask) Split() lb.Task {
	if p := t.Task.Split(); p != nil {
		return signallingTask{p, t.app}
	}
	return nil
}

func fakeSolve(r *runner.Run, in fakeInstance) error {
	var res lbtest.TreeResult
	if r.Seq() {
		res = lbtest.Sequential(in.Seed, in.Depth, lbtest.Count)
	} else {
		sent := new(atomic.Bool)
		after := r.Context.Int64("signal-after")
		var err error
		res, _, err = lb.Run(r.World, r.Config(), func() lb.Reducer[lbtest.TreeResult] {
			a := signalling{Tree: lbtest.NewTree(in.Seed, in.Depth, lbtest.Count), sig: r.Context.String("signal"), sent: sent}
			if r.Rank() == 0 {
				a.after = after
			}
			return a
		})
		if err != nil {
			return err
		}
	}
	return r.Print(fakeRecord{res.Nodes, res.Digest}, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, res.Nodes, res.Digest)
		return err
	})
}

// fakeBin returns the command that runs this test binary as the fake app.
func fakeBin(t *testing.T) string {
	t.Helper()
	if mpi.WorldName != "embedded" {
		t.Skip("runs the fake app in its own embedded worlds")
	}
	t.Setenv(fakeEnv, "1")
	bin, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return bin
}

// TestCheckpointScenario is the checkpoint scenario of every app, on the
// fake app: a count on 3 goroutine ranks with --checkpoint gets SIGUSR1
// (Slurm's --signal=B:USR1) part way, exits with status 3, prints nothing
// on standard output and says how to resume; the file holds part of the
// count and open tasks; restarts from the file alone on 7 goroutine ranks
// and on 5 simulated ranks under another balancer find the sequential
// count, nodes and digest exactly; a truncated or damaged file, another
// instance, --balancer seq and --checkpoint-every without --checkpoint are
// exit status 2 with a message. The apps test what is their own (their
// instances, their search's state) in their own tests and in
// runnertest.Invariant's checkpoint chains.
func TestCheckpointScenario(t *testing.T) {
	bin := fakeBin(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.ckpt")
	const depth = "22"
	decode := func(what, stdout string) fakeRecord {
		t.Helper()
		var r fakeRecord
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s: %v: %q", what, err, stdout)
		}
		return r
	}
	stdout, stderr, code := runnertest.Run(t, bin, depth, "--json", "-b", "seq")
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, stderr)
	}
	want := decode("seq", stdout)
	if want.Nodes < 1e5 {
		t.Fatalf("the tree has %d nodes: too few to be interrupted", want.Nodes)
	}

	stdout, stderr, code = runnertest.Run(t, bin, depth, "--json", "--np", "3", "--budget", "100",
		"--checkpoint", file, "--signal-after", strconv.FormatInt(want.Nodes/50, 10))
	if code != runner.ExitCheckpointed || stdout != "" || !strings.Contains(stderr, "resume with: fake --restart "+file) {
		t.Fatalf("after SIGUSR1: exit %d, stdout %q, stderr %q; want exit %d", code, stdout, stderr, runner.ExitCheckpointed)
	}
	k, err := runner.ReadCheckpoint(file, "fake")
	if err != nil {
		t.Fatal(err)
	}
	if k.Nodes <= 0 || k.Nodes >= want.Nodes || len(k.Tasks) == 0 {
		t.Fatalf("the checkpoint holds %d nodes and %d open tasks of %d nodes", k.Nodes, len(k.Tasks), want.Nodes)
	}
	for _, extra := range [][]string{{"--np", "7"}, {"--world", "sim", "--np", "5", "-b", "koso"}} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"--restart", file, "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("restart %q: exit %d: %s", extra, code, stderr)
		}
		if got := decode("restart", stdout); got != want {
			t.Fatalf("restart %q: %+v, sequential %+v", extra, got, want)
		}
	}

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.ckpt")
	bad := filepath.Join(dir, "bad.ckpt")
	if err := os.WriteFile(cut, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restart", cut}, "truncated"},
		{[]string{"--restart", bad}, "checksum mismatch"},
		{[]string{"--restart", file, "21"}, "another instance"},
		{[]string{"--restart", file, depth, "--tree-seed", "2"}, "flags, --tree-seed differ"},
		{[]string{"--restart", file, "--tree-seed", "2"}, "--restart with --tree-seed: the instance and its flags come from the checkpoint"},
		{[]string{"--restart", file, "-b", "seq"}, "only searches with a balancer"},
		{[]string{"--restart", file + ".none"}, "no such file"},
		{[]string{depth, "--checkpoint-every", "1s"}, "needs --checkpoint"},
		{[]string{depth, "-b", "seq", "--checkpoint", file}, "only searches with a balancer"},
	} {
		runnertest.Refuses(t, bin, tc.want, tc.args...)
	}
}

// TestCheckpointEveryScenario: periodic checkpoints (--checkpoint-every
// 1ms) suspend and resume the count many times within one run, in the
// embedded and the simulated world, and the count is the sequential one
// exactly; the last checkpoint is left behind, whole. A period shorter
// than a checkpoint takes (1ns) is stretched to it: the run still ends
// (it checkpointed for ever at 0 nodes).
func TestCheckpointEveryScenario(t *testing.T) {
	bin := fakeBin(t)
	file := filepath.Join(t.TempDir(), "f.ckpt")
	stdout, _, _ := runnertest.Run(t, bin, "20", "--json", "-b", "seq")
	var want, got fakeRecord
	if err := json.Unmarshal([]byte(stdout), &want); err != nil {
		t.Fatal(err)
	}
	for _, run := range [][2]string{{"embedded", "1ms"}, {"sim", "1ms"}, {"embedded", "1ns"}, {"sim", "1ns"}} {
		world := run[0] + " every " + run[1]
		stdout, stderr, code := runnertest.Run(t, bin, "20", "--json", "--world", run[0], "--np", "4", "--budget", "100", "--min-budget", "10",
			"--checkpoint", file, "--checkpoint-every", run[1])
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", world, code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got != want || want.Nodes == 0 {
			t.Fatalf("%s: %+v, sequential %+v", world, got, want)
		}
		if _, err := runner.ReadCheckpoint(file, "fake"); err != nil {
			t.Fatalf("%s: %v", world, err)
		}
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		// Without --json each checkpoint says so on stderr: many of them.
		_, stderr, code = runnertest.Run(t, bin, "20", "--world", run[0], "--np", "4", "--budget", "100", "--min-budget", "10",
			"--checkpoint", file, "--checkpoint-every", run[1])
		if n := strings.Count(stderr, "checkpoint "+file+": "); code != 0 || n < 2 {
			t.Fatalf("%s: exit %d, %d checkpoints written, want several: %s", world, code, n, stderr)
		}
		if err := os.Remove(file); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
	}
}

// TestSignalBeforeSearch: with --checkpoint, SIGTERM while the instance
// is still read (standard input that has not delivered) ends the run at
// once with 128 + 15, writes nothing and removes its lock file (it waited
// for the input, then checkpointed a search of 0 nodes and exited 3).
func TestSignalBeforeSearch(t *testing.T) {
	bin := fakeBin(t)
	file := filepath.Join(t.TempDir(), "f.ckpt")
	start := time.Now()
	_, stderr, code := runnertest.Run(t, bin, "20", "--np", "2", "--checkpoint", file, "--term-in-read")
	if code != 128+int(syscall.SIGTERM) || time.Since(start) > 4*time.Second || !strings.Contains(stderr, "before the search began") {
		t.Errorf("exit %d after %v, stderr %q; want %d at once", code, time.Since(start), stderr, 128+int(syscall.SIGTERM))
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a checkpoint was written (%v)", err)
	}
	// Its lock goes too (the exit skipped the release: an audit found
	// the lock file left, naming a process that was gone).
	if _, err := os.Stat(file + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the checkpoint's lock file was left behind (%v)", err)
	}
}

// TestCheckpointInterrupt: with --checkpoint, Ctrl-C (SIGINT) and a lost
// terminal (SIGHUP) save the search as SIGUSR1 and SIGTERM do, exit 3 and
// leave no lock behind (they ended the run at once, saving nothing, the
// lock file left); a second Ctrl-C ends the run at once, by the signal.
func TestCheckpointInterrupt(t *testing.T) {
	bin := fakeBin(t)
	const depth = "24"
	for _, sig := range []string{"INT", "HUP", "INT2"} {
		file := filepath.Join(t.TempDir(), "f.ckpt")
		start := time.Now()
		stdout, stderr, code := runnertest.Run(t, bin, depth, "--json", "--np", "3", "--budget", "100",
			"--checkpoint", file, "--signal-after", "20000", "--signal", sig)
		if sig == "INT2" {
			if code != -1 || time.Since(start) > 4*time.Second {
				t.Errorf("SIGINT twice: exit %d after %v, stderr %q; want the run ended by the signal at once", code, time.Since(start), stderr)
			}
			continue
		}
		if code != runner.ExitCheckpointed || stdout != "" || !strings.Contains(stderr, "resume with: fake --restart "+file) {
			t.Errorf("SIG%s: exit %d, stdout %q, stderr %q; want exit %d and the checkpoint", sig, code, stdout, stderr, runner.ExitCheckpointed)
			continue
		}
		if _, err := runner.ReadCheckpoint(file, "fake"); err != nil {
			t.Errorf("SIG%s: %v", sig, err)
		}
		if _, err := os.Stat(file + ".lock"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("SIG%s: the lock file is left behind (%v)", sig, err)
		}
	}
}

// TestCheck: --check reads the command line and the instance (or
// --restart's checkpoint) as a run would and exits without running: 0 and
// one line on stderr (none with -q or --json, nothing on stdout), 2 with
// the run's own message for a bad instance, balancer option, world size,
// checkpoint path or restart file, and it writes no checkpoint and no lock.
func TestCheck(t *testing.T) {
	bin := fakeBin(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.ckpt")
	stdout, stderr, code := runnertest.Run(t, bin, "--check", "--np", "3", "--checkpoint", file, "18")
	if code != 0 || stdout != "" || stderr != "fake: --check: the command line and the instance are good; nothing ran\n" {
		t.Errorf("--check: exit %d, stdout %q, stderr %q; want 0 and one line on stderr", code, stdout, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("--check wrote %d files in the checkpoint's directory", len(ents))
	}
	for _, quiet := range []string{"-q", "--json"} {
		if stdout, stderr, code := runnertest.Run(t, bin, "--check", quiet, "18"); code != 0 || stdout != "" || stderr != "" {
			t.Errorf("--check %s: exit %d, stdout %q, stderr %q; want 0 and nothing", quiet, code, stdout, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"99"}, `DEPTH "99"`},
		{[]string{}, "give the tree's DEPTH"},
		{[]string{"-b", "rp", "--pair-sync", "18"}, "balancer rp does not use it"},
		{[]string{"--np", "0", "18"}, "--np 0"},
		{[]string{"--checkpoint", dir, "18"}, "a directory; need a regular file"},
		{[]string{"--restart", file}, "no such file"},
	} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"--check"}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.msg) {
			t.Errorf("--check %q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, tc.msg)
		}
	}
	// A checkpoint to restart from: --check reads it and runs nothing.
	if _, stderr, code := runnertest.Run(t, bin, "--np", "2", "--budget", "100", "--checkpoint", file, "--signal-after", "2000", "20"); code != runner.ExitCheckpointed {
		t.Fatalf("a run checkpointed at SIGUSR1: exit %d, %s", code, stderr)
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runnertest.Run(t, bin, "--check", "--restart", file, "--checkpoint", file); code != 0 {
		t.Errorf("--check --restart: exit %d, %s", code, stderr)
	}
	if after, err := os.ReadFile(file); err != nil || !bytes.Equal(after, before) {
		t.Errorf("--check --restart changed the checkpoint (%v)", err)
	}
	if _, stderr, code := runnertest.Run(t, bin, "--check", "--restart", file, "21"); code != 2 || !strings.Contains(stderr, "--restart") {
		t.Errorf("--check --restart with another instance: exit %d, %s; want 2", code, stderr)
	}
}

// TestRestartOptions: a restart without --balancer takes the checkpoint's
// balancer and options, with the option flags given over them
// (docs/checkpoint.md): rp-local's --growth is taken, not refused as rp's,
// and an option the checkpoint's balancer lacks (--fast-init) is refused,
// not dropped; with --balancer the command line's options alone count.
func TestRestartOptions(t *testing.T) {
	bin := fakeBin(t)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.ckpt"), filepath.Join(dir, "b.ckpt")
	interrupt := []string{"--np", "2", "--budget", "100", "--signal-after", "2000"}
	if _, stderr, code := runnertest.Run(t, bin, append(interrupt, "-b", "rp-local", "--growth", "3", "--checkpoint", first, "20")...); code != runner.ExitCheckpointed {
		t.Fatalf("the first run: exit %d, %s", code, stderr)
	}
	growth := func(file string) (string, string) {
		t.Helper()
		k, err := runner.ReadCheckpoint(file, "fake")
		if err != nil {
			t.Fatal(err)
		}
		info, err := lb.Lookup(k.Balancer)
		if err != nil {
			t.Fatal(err)
		}
		o, err := k.BalancerOptions(info)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := lb.OptionValue(o, "growth")
		return k.Balancer, v
	}
	if b, g := growth(first); b != "rp-local" || g != "3" {
		t.Fatalf("the first checkpoint: balancer %s, --growth %s; want rp-local and 3", b, g)
	}
	// The whole instance again, as --signal-after is one of its flags.
	if _, stderr, code := runnertest.Run(t, bin, append(interrupt, "--restart", first, "--growth", "4", "--checkpoint", second, "20")...); code != runner.ExitCheckpointed {
		t.Fatalf("restart --growth 4: exit %d, %s", code, stderr)
	}
	if b, g := growth(second); b != "rp-local" || g != "4" {
		t.Errorf("restart --growth 4: balancer %s, --growth %s; want rp-local and 4", b, g)
	}
	if _, stderr, code := runnertest.Run(t, bin, "--restart", first, "--fast-init"); code != 2 || !strings.Contains(stderr, "--fast-init: the checkpoint's balancer rp-local does not use it") {
		t.Errorf("restart --fast-init of an rp-local checkpoint: exit %d, %q; want 2 and the reason", code, stderr)
	}
	if _, stderr, code := runnertest.Run(t, bin, "--restart", first, "-b", "rp", "--fast-init"); code != 0 {
		t.Errorf("restart -b rp --fast-init: exit %d, %s", code, stderr)
	}
}

// TestMachineOfOtherApp: a calibrated model names the command whose search
// it timed (its "app"), and another command loading it says that the node
// cost is not its own (golomb ran at uts's node cost without a word); the
// same command, --json and --node-ns say nothing.
func TestMachineOfOtherApp(t *testing.T) {
	bin := fakeBin(t)
	dir := t.TempDir()
	for app, want := range map[string]bool{"uts": true, "fake": false, "": false} {
		file := filepath.Join(dir, "m.json")
		if err := os.WriteFile(file, []byte(`{"name": "m", "app": "`+app+`", "node_ns": 20, "latency_ns": 1500}`), 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runnertest.Run(t, bin, "--world", "sim", "--np", "4", "--machine", file, "12")
		if got := strings.Contains(stderr, "was calibrated on uts's search: its node cost, 20 ns, is that search's, not fake's"); code != 0 || got != want {
			t.Errorf("a model of %q: exit %d, stderr %q; want the note: %v", app, code, stderr, want)
		}
		for _, quiet := range [][]string{{"--json"}, {"--node-ns", "30"}} {
			_, stderr, code := runnertest.Run(t, bin, append([]string{"--world", "sim", "--np", "4", "--machine", file, "12"}, quiet...)...)
			if code != 0 || strings.Contains(stderr, "note:") {
				t.Errorf("a model of %q with %q: exit %d, stderr %q; want no note", app, quiet, code, stderr)
			}
		}
	}
}

// TestLimitNotResumable: an app without Spec.Resumable stops at
// --max-nodes with exit 4 and says it cannot checkpoint, not to give
// --checkpoint (which it refuses); --max-nodes and --time-limit need no
// Resumable.
func TestLimitNotResumable(t *testing.T) {
	bin := fakeBin(t)
	t.Setenv(fakeNoResumeEnv, "1")
	_, stderr, code := runnertest.Run(t, bin, "--np", "2", "--max-nodes", "1000", "24")
	if code != runner.ExitLimit || !strings.Contains(stderr, "it is not saved (fake cannot checkpoint its searches)") || strings.Contains(stderr, "give --checkpoint") {
		t.Errorf("--max-nodes: exit %d, %q; want %d and no advice to give --checkpoint", code, stderr, runner.ExitLimit)
	}
	if _, stderr, code := runnertest.Run(t, bin, "--checkpoint", filepath.Join(t.TempDir(), "f.ckpt"), "12"); code != 2 || !strings.Contains(stderr, "fake cannot checkpoint its searches") {
		t.Errorf("--checkpoint: exit %d, %q; want 2", code, stderr)
	}
}
