package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/apps/uts/tree"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// countsOf decodes the --json output of a finished run.
func countsOf(t *testing.T, what, stdout string) tree.Counts {
	t.Helper()
	var r record
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%s: %v: %q", what, err, stdout)
	}
	return tree.Counts{Nodes: r.Nodes, Depth: r.Depth, Leaves: r.Leaves}
}

// TestCheckpointSignal counts T3 (depth 1572) with 16 hashes per child, so
// that the count lasts a while, on 3 goroutine ranks with --checkpoint,
// sends SIGTERM, and restarts from the file alone on 7 goroutine ranks and
// on 5 simulated ranks: the run exits with status 3 and prints nothing,
// the file holds part of the count, and each restart finds exactly the
// sequential run's nodes, depth and leaves (T3's, granularity does not
// change the tree). A checkpoint is refused for another tree.
func TestCheckpointSignal(t *testing.T) {
	bin := runnertest.Build(t)
	file := filepath.Join(t.TempDir(), "u.ckpt")
	args := []string{"--tree", "T3", "--granularity", "16", "--json"}
	stdout, stderr, code := runnertest.Run(t, bin, append(args, "-b", "seq")...)
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, stderr)
	}
	want := countsOf(t, "seq", stdout)
	if s := sample(t, "T3"); !s.Matches(want) {
		t.Fatalf("seq: %+v, T3 has %+v", want, s)
	}

	stdout, stderr, code = runnertest.Interrupt(t, bin, 300*time.Millisecond, syscall.SIGTERM, append(args, "--np", "3", "--checkpoint", file)...)
	if code != runner.ExitCheckpointed || stdout != "" || !strings.Contains(stderr, "resume with: uts --restart "+file) {
		t.Fatalf("after SIGTERM: exit %d, stdout %q, stderr %q; want exit %d", code, stdout, stderr, runner.ExitCheckpointed)
	}
	k, err := runner.ReadCheckpoint(file, "uts")
	if err != nil {
		t.Fatal(err)
	}
	if k.Nodes <= 0 || k.Nodes >= want.Nodes || len(k.Tasks) == 0 {
		t.Fatalf("the checkpoint holds %d nodes and %d open tasks of %d", k.Nodes, len(k.Tasks), want.Nodes)
	}
	for _, extra := range [][]string{{"--np", "7"}, {"--world", "sim", "--np", "5", "-b", "koso"}} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"--restart", file, "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("restart %q: exit %d: %s", extra, code, stderr)
		}
		if got := countsOf(t, "restart", stdout); got != want {
			t.Fatalf("restart %q: %+v, sequential %+v", extra, got, want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restart", file, "--tree", "T1"}, "another instance"},
		{[]string{"--restart", file, "--granularity", "15"}, "another instance"},
		{[]string{"--restart", file, "-b", "seq"}, "only searches with a balancer"},
	} {
		runnertest.Refuses(t, bin, tc.want, tc.args...)
	}
}

// TestCheckpointEvery: periodic checkpoints (--checkpoint-every 1ms)
// suspend and resume the count many times within one run, in the embedded
// and the simulated world, and the counts are T3's exactly; the last
// checkpoint is left whole.
func TestCheckpointEvery(t *testing.T) {
	bin := runnertest.Build(t)
	file := filepath.Join(t.TempDir(), "u.ckpt")
	want := sample(t, "T3")
	for _, world := range []string{"embedded", "sim"} {
		stdout, stderr, code := runnertest.Run(t, bin, "--tree", "T3", "--json", "--budget", "2000", "--world", world, "--np", "4",
			"--checkpoint", file, "--checkpoint-every", "1ms")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", world, code, stderr)
		}
		if got := countsOf(t, world, stdout); !want.Matches(got) {
			t.Fatalf("%s: %+v, T3 has %+v", world, got, want)
		}
		// The file did not exist before the run: a checkpoint was written.
		if _, err := runner.ReadCheckpoint(file, "uts"); err != nil {
			t.Fatalf("%s: %v", world, err)
		}
		os.Remove(file)
	}
}
