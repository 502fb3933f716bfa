package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// failingWriter fails every write, as /dev/full does.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// treeSpec is a resumable command over lbtest's exhaustive tree of the
// seed given as the argument (depth 14): it prints the nodes.
func treeSpec() Spec[uint64] { return treeSpecDepth(14) }

// slowTree is lbtest's tree whose work slices each take at least a
// millisecond: a search that lasts several of --max-nodes' progress
// snapshots, with or without the race detector.
type slowTree struct{ *lbtest.Tree }

type slowTask struct{ lb.Task }

func (a slowTree) Root() lb.Task { return slowTask{a.Tree.Root()} }
func (a slowTree) Unmarshal(b []byte) (lb.Task, error) {
	t, err := a.Tree.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return slowTask{t}, nil
}
func (t slowTask) Work(budget int64) int64 {
	time.Sleep(time.Millisecond)
	return t.Task.Work(budget)
}
func (t slowTask) Split() lb.Task {
	if u := t.Task.Split(); u != nil {
		return slowTask{u}
	}
	return nil
}

// slowSpec is treeSpec over slowTree (with a balancer).
func slowSpec() Spec[uint64] {
	spec := treeSpec()
	spec.Solve = func(r *Run, seed uint64) error {
		res, _, err := lb.Run(r.World, r.Config(), func() lb.Reducer[lbtest.TreeResult] { return slowTree{lbtest.NewTree(seed, 14, lbtest.Count)} })
		if err != nil {
			return err
		}
		return r.Print(map[string]int64{"nodes": res.Nodes}, func(w io.Writer) error {
			fmt.Fprintf(w, "nodes=%d\n", res.Nodes)
			return nil
		})
	}
	return spec
}

// treeSpecDepth is treeSpec with a tree of the given depth.
func treeSpecDepth(depth int) Spec[uint64] {
	return Spec[uint64]{
		App:       "t",
		Resumable: true,
		Read: func(c *cli.Context, _ Common) (uint64, error) {
			var seed uint64
			if _, err := fmt.Sscan(c.Args().First(), &seed); err != nil {
				return 0, Usagef("need a seed")
			}
			return seed, nil
		},
		Solve: func(r *Run, seed uint64) error {
			var res lbtest.TreeResult
			if r.Seq() {
				res = lbtest.Sequential(seed, depth, lbtest.Count)
			} else {
				var err error
				if res, _, err = lb.Run(r.World, r.Config(), func() lb.Reducer[lbtest.TreeResult] {
					return lbtest.NewTree(seed, depth, lbtest.Count)
				}); err != nil {
					return err
				}
			}
			return r.Print(map[string]int64{"nodes": res.Nodes}, func(w io.Writer) error {
				fmt.Fprintf(w, "nodes=%d\n", res.Nodes)
				return nil
			})
		},
	}
}

// run3 runs an app around spec with args, stdout and stderr apart.
func run3(spec Spec[uint64], stdout io.Writer, args ...string) (code int, out, errOut string) {
	app := testApp(Action(spec))
	var o, e bytes.Buffer
	app.Writer, app.ErrWriter = &o, &e
	if stdout != nil {
		app.Writer = stdout
	}
	return Execute(app, append([]string{"t"}, args...)), o.String(), e.String()
}

// TestOutputFailure: a run whose answer cannot be written (a full disk, a
// closed pipe) exits with ExitOutput and says so on stderr, in text and
// JSON, in the embedded and the simulated world and with the sequential
// solver; a failing stderr alone is ExitOutput too.
func TestOutputFailure(t *testing.T) {
	for _, args := range [][]string{
		{"--np", "3", "5"}, {"--np", "3", "--json", "5"}, {"--np", "2", "--stats", "5"},
		{"-b", "seq", "5"}, {"--world", "sim", "--np", "8", "5"}, {"--world", "sim", "--json", "5"},
	} {
		for _, e := range []error{syscall.ENOSPC, syscall.EPIPE} {
			code, _, errOut := run3(treeSpec(), failingWriter{e}, args...)
			if code != ExitOutput || !strings.Contains(errOut, "writing standard output: "+e.Error()) {
				t.Errorf("%q, stdout failing with %v: exit %d, stderr %q; want %d and a message", args, e, code, errOut, ExitOutput)
			}
		}
	}
	app := testApp(Action(treeSpec()))
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, failingWriter{syscall.ENOSPC}
	if code := Execute(app, []string{"t", "--np", "2", "--progress", "5"}); code != ExitOutput || !strings.Contains(out.String(), "nodes=") {
		t.Errorf("stderr failing: exit %d, stdout %q; want %d after the answer", code, out.String(), ExitOutput)
	}
}

// TestInternalError: a panic on one rank stops every rank and ends the
// command with ExitInternal and a one-line message naming the rank and
// the file that holds the stack, not the stack itself.
func TestInternalError(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts embedded worlds")
	}
	spec := treeSpec()
	spec.Solve = func(r *Run, _ uint64) error {
		if r.Rank() == 2 {
			var m map[string]int
			//lint:ignore SA5000 a deliberate runtime panic
			m["boom"]++ // a nil map: a runtime panic
		}
		return r.Comm.Barrier() // the others wait for rank 2
	}
	for _, args := range [][]string{{"--np", "4", "5"}, {"--world", "sim", "--node-ns", "10", "5"}} {
		if args[1] == "sim" {
			spec.Solve = func(*Run, uint64) error { panic("sim boom") }
		}
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			code, _, errOut = run3(spec, nil, args...)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%q: a panicking rank left the others waiting", args)
		}
		if code != ExitInternal || !strings.Contains(errOut, "internal error") || strings.Contains(errOut, "goroutine ") ||
			strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Fatalf("%q: exit %d, stderr %q; want %d and one line without the stack", args, code, errOut, ExitInternal)
		}
		i := strings.Index(errOut, "the stack is in ")
		if i < 0 {
			t.Fatalf("%q: %q names no stack file", args, errOut)
		}
		file := strings.Fields(errOut[i+len("the stack is in "):])[0]
		b, err := os.ReadFile(file)
		os.Remove(file)
		if err != nil || !bytes.Contains(b, []byte("goroutine ")) {
			t.Fatalf("%q: stack file %s: %v, %q", args, file, err, b)
		}
		if args[1] == "4" && !strings.Contains(errOut, "on rank 2") {
			t.Errorf("%q: %q does not name rank 2", args, errOut)
		}
	}
}

// tempFIFO returns a temporary directory and the path of a FIFO in it that
// nobody writes.
func tempFIFO(t *testing.T) (dir, fifo string) {
	t.Helper()
	dir = t.TempDir()
	fifo = filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, fifo
}

// TestCheckpointPathRefused: a checkpoint path that is a directory, a FIFO,
// a device, a symbolic link or in a missing directory is refused with exit
// status 2 before anything runs, and is left as it was.
func TestCheckpointPathRefused(t *testing.T) {
	dir, fifo := tempFIFO(t)
	link := filepath.Join(dir, "link")
	os.WriteFile(filepath.Join(dir, "target"), []byte("x"), 0o644)
	os.Symlink("target", link)
	for _, tc := range []struct{ path, want string }{
		{dir, "a directory"}, {fifo, "a named pipe"}, {"/dev/null", "a character device"}, {link, "a symbolic link"},
		{filepath.Join(dir, "none", "c.ckpt"), "the directory"},
	} {
		before, _ := os.Lstat(tc.path)
		code, _, errOut := run3(treeSpec(), nil, "--np", "2", "--checkpoint", tc.path, "5")
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("--checkpoint %s: exit %d, %q; want 2 and %q", tc.path, code, errOut, tc.want)
		}
		after, _ := os.Lstat(tc.path)
		if before != nil && (after == nil || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime())) {
			t.Errorf("--checkpoint %s: the file changed", tc.path)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(left) > 0 {
		t.Errorf("lock files left: %v", left)
	}
}

// TestCheckpointLock: while one run holds a checkpoint path, another run
// given it fails at once (exit 2) naming the holder; the lock ends with the
// run, and a run after it removes the temporary files a crash left. A
// checkpoint path named as a lock file is refused, and a lock's end leaves
// a file that replaced its lock file.
func TestCheckpointLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.ckpt")
	l, err := prepareCheckpoint(path, "first --checkpoint c.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, _, errOut := run3(treeSpec(), nil, "--np", "2", "--checkpoint", path, "5")
	if code != 2 || !strings.Contains(errOut, fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(errOut, "first --checkpoint c.ckpt") {
		t.Fatalf("a second run: exit %d, %q; want 2 naming the holder", code, errOut)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the second run took %v to fail", d)
	}
	l.Release()
	if _, err := os.Stat(path + lockSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file after Release: %v", err)
	}
	stale := filepath.Join(filepath.Dir(path), ".c.ckpt.tmp-123")
	os.WriteFile(stale, []byte("half a checkpoint"), 0o600)
	code, out, errOut := run3(treeSpec(), nil, "--np", "2", "--checkpoint", path, "5")
	if code != 0 || !strings.Contains(out, "nodes=") {
		t.Fatalf("after the lock ended: exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stale temporary file survived the next run: %v", err)
	}

	// A checkpoint named as a lock file is refused: renamed over another
	// run's lock, it ended that lock, and that run's end removed it.
	if code, _, errOut := run3(treeSpec(), nil, "--np", "2", "--checkpoint", path+lockSuffix, "5"); code != 2 || !strings.Contains(errOut, "a name of the lock files") {
		t.Errorf("--checkpoint %s%s: exit %d, %q; want 2", path, lockSuffix, code, errOut)
	}
	// A lock whose file was replaced leaves the new file at its end.
	if l, err = prepareCheckpoint(path, "third"); err != nil {
		t.Fatal(err)
	}
	other := path + ".other"
	os.WriteFile(other, []byte("another run's checkpoint"), 0o644)
	if err := os.Rename(other, path+lockSuffix); err != nil {
		t.Fatal(err)
	}
	l.Release()
	if b, err := os.ReadFile(path + lockSuffix); err != nil || string(b) != "another run's checkpoint" {
		t.Errorf("a file renamed over the lock file: %q, %v after Release; want it kept", b, err)
	}
}

// craftedCheckpoint returns a checkpoint file's bytes whose header
// announces size bytes of payload, with the payload given.
func craftedCheckpoint(size uint64, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32([]byte(checkpointMagic), checkpointVersion)
	b = binary.LittleEndian.AppendUint64(b, size)
	b = append(b, payload...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// TestRestartHostileFiles: --restart of crafted and odd files ends with
// exit status 2 and a message, at once, never a panic: a 20-byte file
// whose length field reads 2⁶⁴ − 32, /dev/zero, a FIFO nobody writes, a
// directory, a header announcing more than the file holds or more than
// MaxCheckpointBytes, and a valid checksum over a payload that does not
// decode.
func TestRestartHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	head := binary.LittleEndian.AppendUint32([]byte(checkpointMagic), checkpointVersion)
	for _, tc := range []struct{ path, want string }{
		{write("huge", binary.LittleEndian.AppendUint64(bytes.Clone(head), 1<<64-32)), "more than the"},
		{write("big", craftedCheckpoint(MaxCheckpointBytes+1, nil)[:20]), "more than the"},
		{write("short", craftedCheckpoint(100, []byte("abc"))), "truncated"},
		{write("garbage", craftedCheckpoint(5, []byte("hello"))), "does not decode"},
		{"/dev/zero", "a character device"},
		{fifo, "a named pipe"},
		{dir, "a directory"},
	} {
		start := time.Now()
		code, _, errOut := run3(treeSpec(), nil, "--np", "2", "--restart", tc.path)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("--restart %s: exit %d, %q; want 2 and %q", tc.path, code, errOut, tc.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("--restart %s took %v", tc.path, d)
		}
	}
}

// TestBadState: a checkpoint whose checksum is right but whose partial
// result or tasks do not decode is malformed: exit status 2, not 1.
func TestBadState(t *testing.T) {
	dir := t.TempDir()
	inst, _ := encodeInstance(uint64(5))
	for name, s := range map[string]lb.Suspended{
		"partial": {Partial: []byte{0xff, 0x01, 0x02}, Tasks: [][]byte{{1, 2, 3}}},
		"tasks":   {Tasks: [][]byte{{0xff, 0xff, 0xff, 0xff}}},
	} {
		path := filepath.Join(dir, name+".ckpt")
		k := &Checkpoint{App: "t", Build: "test", Instance: inst, Balancer: "rp", Budget: 100, Seed: 1, Ranks: 2, World: "embedded", Suspended: s}
		if err := WriteCheckpoint(path, k); err != nil {
			t.Fatal(err)
		}
		for _, world := range [][]string{{"--np", "3"}, {"--world", "sim", "--np", "3"}} {
			code, _, errOut := run3(treeSpec(), nil, append(world, "--restart", path)...)
			if code != 2 || !strings.Contains(errOut, "malformed") {
				t.Errorf("%s %q: exit %d, %q; want 2, malformed", name, world, code, errOut)
			}
		}
	}
}

// TestRestartBudgets: the Δt a restart takes from its checkpoint is checked
// as the command line's is (it ran with the default or a silently fixed Δt
// before); a --budget on the command line overrides the file's.
func TestRestartBudgets(t *testing.T) {
	dir := t.TempDir()
	inst, _ := encodeInstance(uint64(5))
	for name, tc := range map[string]struct {
		budget, minBudget int64
		args              []string
		want              int
	}{
		"zero":             {0, 0, nil, 2},
		"min above":        {100, 99999999, nil, 2},
		"zero, overridden": {0, 0, []string{"--budget", "50"}, 0},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".ckpt")
		k := &Checkpoint{App: "t", Build: "test", Instance: inst, Balancer: "rp", Budget: tc.budget, MinBudget: tc.minBudget,
			Seed: 1, Ranks: 2, World: "embedded"}
		if err := WriteCheckpoint(path, k); err != nil {
			t.Fatal(err)
		}
		code, _, errOut := run3(treeSpec(), nil, append([]string{"--np", "2", "--restart", path}, tc.args...)...)
		if code != tc.want || tc.want == 2 && !strings.Contains(errOut, "Δt of") {
			t.Errorf("%s: exit %d, %q; want %d", name, code, errOut, tc.want)
		}
	}
}

// TestLimits: --max-nodes and --time-limit stop a search with ExitLimit
// and the nodes done, writing the checkpoint with --checkpoint; the
// restart (on another number of ranks, in another world) counts exactly
// the tree's nodes. Without --checkpoint nothing is saved, and the message
// says so.
func TestLimits(t *testing.T) {
	want := lbtest.Sequential(9, 14, lbtest.Count).Nodes
	dir := t.TempDir()
	for i, limit := range [][]string{{"--max-nodes", "2000"}, {"--time-limit", "1ns"}} {
		path := filepath.Join(dir, fmt.Sprintf("c%d.ckpt", i))
		args := append([]string{"--np", "3", "--budget", "500", "--checkpoint", path, "--json", "9"}, limit...)
		code, out, errOut := run3(slowSpec(), nil, args...)
		if code != ExitLimit || !strings.Contains(errOut, "stopped at "+limit[0]) || !strings.Contains(out, `"stopped":"`+limit[0]) {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q; want %d", args, code, out, errOut, ExitLimit)
		}
		// The record's world, at its head and in its provenance; with
		// --max-nodes the run's nodes too.
		if strings.Count(out, `"world":"embedded"`) != 2 || (limit[0] == "--max-nodes") != strings.Contains(out, `"run_nodes":`) {
			t.Errorf("%q: stop record %q: want the world twice, and run_nodes with --max-nodes only", args, out)
		}
		if limit[0] == "--max-nodes" {
			// Stopped again after a restart: nodes count every run of the
			// search, run_nodes this run's alone (it counted them all).
			var first, second struct {
				Nodes    int64 `json:"nodes"`
				RunNodes int64 `json:"run_nodes"`
			}
			if err := json.Unmarshal([]byte(out[:strings.Index(out, "\n")]), &first); err != nil {
				t.Fatal(err)
			}
			next := filepath.Join(dir, "again.ckpt")
			code, out2, errOut := run3(slowSpec(), nil, "--np", "3", "--restart", path, "--checkpoint", next, "--max-nodes", "2000", "--json")
			if code != ExitLimit || json.Unmarshal([]byte(strings.TrimSpace(out2)), &second) != nil ||
				second.Nodes <= first.Nodes || second.RunNodes != second.Nodes-first.Nodes {
				t.Errorf("a restart stopped at --max-nodes: exit %d, %q %q; want run_nodes = nodes − %d", code, out2, errOut, first.Nodes)
			}
		}
		code, out, errOut = run3(treeSpec(), nil, "--world", "sim", "--np", "5", "--restart", path)
		if code != 0 || !strings.Contains(out, fmt.Sprintf("nodes=%d\n", want)) {
			t.Fatalf("restart of %q: exit %d, %q %q; want nodes=%d", args, code, out, errOut, want)
		}
	}
	code, _, errOut := run3(slowSpec(), nil, "--np", "2", "--budget", "500", "--max-nodes", "1000", "9")
	if code != ExitLimit || !strings.Contains(errOut, "not saved") {
		t.Errorf("--max-nodes without --checkpoint: exit %d, %q", code, errOut)
	}
	for _, args := range [][]string{{"-b", "seq", "--max-nodes", "5"}, {"--max-nodes", "-1"}, {"--time-limit", "-1s"}, {"--startup-timeout", "-1s"}} {
		if code, _, errOut := run3(treeSpec(), nil, append(args, "9")...); code != 2 || !strings.Contains(errOut, args[len(args)-2]) {
			t.Errorf("%q: exit %d, %q; want 2 naming the flag", args, code, errOut)
		}
	}
}

// TestLevelsBound: --levels that would make more than maxLeavesPerRank
// leaves per rank is refused with the reason; the bound depends on the
// ranks.
func TestLevelsBound(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-b", "static", "--levels", "31", "--np", "2"}, 2},
		{[]string{"-b", "static", "--levels", "32", "--np", "4"}, 2},
		{[]string{"-b", "hybrid", "--levels", "32", "--world", "sim", "--np", "16"}, 2},
		{[]string{"-b", "static", "--levels", "12", "--np", "2"}, 0},
	} {
		code, _, errOut := run3(treeSpec(), nil, append(tc.args, "3")...)
		if code != tc.code || (code == 2 && !strings.Contains(errOut, "--levels")) {
			t.Errorf("%q: exit %d, %q; want %d", tc.args, code, errOut, tc.code)
		}
	}
}

// TestEmptyNames: an empty or blank value of a flag that names something
// is an error naming the flag (--balancer ” panicked in the embedded
// world before issue 23).
func TestEmptyNames(t *testing.T) {
	for _, name := range textFlags {
		for _, v := range []string{"", "  "} {
			code, _, errOut := run3(treeSpec(), nil, "--"+name, v, "5")
			if code != 2 || !strings.Contains(errOut, "--"+name) || strings.Contains(errOut, "goroutine") {
				t.Errorf("--%s %q: exit %d, %q; want 2 naming the flag", name, v, code, errOut)
			}
		}
	}
}

// TestStdinWithin: a standard input that never delivers a byte fails the
// first read after the deadline, with advice; one that does reads on.
func TestStdinWithin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := stdinWithin(r, 50*time.Millisecond)
	if _, err := in.Read(make([]byte, 8)); err == nil || !strings.Contains(err.Error(), "nothing arrived on standard input") {
		t.Fatalf("a silent pipe: %v", err)
	}
	in = stdinWithin(strings.NewReader("12 34"), time.Second)
	if b, err := io.ReadAll(in); err != nil || string(b) != "12 34" {
		t.Fatalf("a reader with data: %q, %v", b, err)
	}
}

// TestMemoryLimits: the limits come from /proc/meminfo, the cgroup (v2 and
// v1) and RLIMIT_AS, and CheckMemory refuses what exceeds the tightest,
// naming it.
func TestMemoryLimits(t *testing.T) {
	dir := t.TempDir()
	w := func(name, s string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	f := memoryFiles{
		meminfo:    w("meminfo", "MemTotal: 100 kB\nMemAvailable:   8388608 kB\n"),
		status:     w("status", "VmSize:\t 1048576 kB\n"),
		cgroupRoot: dir,
		rlimitAS:   func() (uint64, bool) { return 0, false },
	}
	f.cgroup = w("cg2", "0::/job\n")
	w("job/memory.max", "1073741824\n")
	w("job/memory.current", "73741824\n")
	l, _ := tightest(f.limits())
	if l.Bytes != 1000000000 || l.Source != "cgroup memory.max" {
		t.Errorf("cgroup v2: %+v", l)
	}
	f.cgroup = w("cg1", "4:memory:/v1job\n3:cpu:/\n")
	w("memory/v1job/memory.limit_in_bytes", "2147483648\n")
	w("memory/v1job/memory.usage_in_bytes", "0\n")
	if l, _ := tightest(f.limits()); l.Bytes != 2<<30 || l.Source != "cgroup memory.limit_in_bytes" {
		t.Errorf("cgroup v1: %+v", l)
	}
	w("memory/v1job/memory.limit_in_bytes", "9223372036854771712\n") // no limit
	f.rlimitAS = func() (uint64, bool) { return 3 << 30, true }
	if l, _ := tightest(f.limits()); l.Bytes != 1<<30 || l.Source != "RLIMIT_AS (ulimit -v)" {
		t.Errorf("RLIMIT_AS of 3 GiB with 1 GiB mapped: %+v, want half the 2 GiB left", l)
	}
	if err := f.check(512<<20, "a table"); err != nil {
		t.Errorf("512 MiB: %v", err)
	}
	if err := f.check(2<<30, "a table"); err == nil || !strings.Contains(err.Error(), "RLIMIT_AS") {
		t.Errorf("2 GiB: %v", err)
	}
}

// TestTraceIntoDevice: --trace writes into a character device at its path
// and leaves the device there (a /dev/null of the test's own, made with
// mknod as root: the rename of the temporary file replaced /dev/null
// itself with a regular file), also behind a symbolic link (/dev/stdout
// is one, to a terminal); a link to a regular file is replaced, as
// golomb's tests check, not written through.
func TestTraceIntoDevice(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts simulated worlds")
	}
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's major 1, minor 3
		t.Skipf("no character device of our own: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dev, link); err != nil {
		t.Fatal(err)
	}
	spec := treeSpecDepth(8)
	spec.Solve = func(r *Run, seed uint64) error { // two searches, two reports
		for range 2 {
			_, o, err := lb.Run(r.World, r.Config(), func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, 8, lbtest.Count) })
			if err != nil {
				return err
			}
			if _, err := r.Report(o); err != nil {
				return err
			}
		}
		return nil
	}
	for _, path := range []string{dev, link} {
		if code, _, errOut := run3(spec, nil, "--world", "sim", "--np", "4", "--trace", path, "5"); code != 0 {
			t.Fatalf("--trace %s: exit %d, %s", path, code, errOut)
		}
	}
	if st, err := os.Lstat(dev); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("--trace on a character device: it is now %v (%v), want the device left in place", st.Mode(), err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("--trace on a link to a character device: it is now %v (%v), want the link left in place", st.Mode(), err)
	}
	// A block device (a disk; here a node of the test's own) is refused.
	blk := filepath.Join(dir, "disk")
	if err := syscall.Mknod(blk, syscall.S_IFBLK|0o600, 7<<8); err == nil { // loop0's major 7, minor 0
		if code, _, errOut := run3(spec, nil, "--world", "sim", "--np", "4", "--trace", blk, "5"); code != 2 || !strings.Contains(errOut, "a block device") {
			t.Errorf("--trace on a block device: exit %d, %q; want 2", code, errOut)
		}
		if st, err := os.Lstat(blk); err != nil || st.Mode()&os.ModeDevice == 0 {
			t.Errorf("--trace on a block device: it is now %v (%v)", st.Mode(), err)
		}
	}
}
