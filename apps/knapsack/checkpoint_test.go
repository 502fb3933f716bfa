package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// generate writes the instance of `knapsack gen args` to a file in dir and
// returns its path.
func generate(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	stdout, stderr, code := runnertest.Run(t, bin, append([]string{"gen"}, args...)...)
	if code != 0 {
		t.Fatalf("gen %q: exit %d: %s", args, code, stderr)
	}
	path := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// decodeResult decodes the --json output of a finished run.
func decodeResult(t *testing.T, what, stdout string) result {
	t.Helper()
	var r result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%s: %v: %q", what, err, stdout)
	}
	return r
}

// TestCheckpointSignal solves a strongly correlated instance that takes
// the core search about 2·10⁸ nodes on 3 goroutine ranks with
// --checkpoint, sends SIGTERM, and restarts from the file alone on 7
// goroutine ranks and on 5 simulated ranks: the run exits with status 3
// and prints nothing, the file holds part of the search and an incumbent,
// and each restart finds the sequential run's optimal profit (the command
// checks that the items sum to it). A checkpoint is refused for another
// instance.
func TestCheckpointSignal(t *testing.T) {
	bin := runnertest.Build(t)
	dir := t.TempDir()
	in := generate(t, bin, dir, "--class", "strongly", "-m", "120", "--seed", "3", "--range", "100000")
	file := filepath.Join(dir, "k.ckpt")
	stdout, stderr, code := runnertest.Run(t, bin, in, "-b", "seq", "--json")
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, stderr)
	}
	want := decodeResult(t, "seq", stdout)

	stdout, stderr, code = runnertest.Interrupt(t, bin, 300*time.Millisecond, syscall.SIGTERM, in, "--json", "--np", "3", "--checkpoint", file)
	if code != runner.ExitCheckpointed || stdout != "" || !strings.Contains(stderr, "resume with: knapsack --restart "+file) {
		t.Fatalf("after SIGTERM: exit %d, stdout %q, stderr %q; want exit %d", code, stdout, stderr, runner.ExitCheckpointed)
	}
	k, err := runner.ReadCheckpoint(file, "knapsack")
	if err != nil {
		t.Fatal(err)
	}
	if k.Nodes <= 0 || len(k.Tasks) == 0 || !k.HasIncumbent || k.Incumbent <= 0 || k.Incumbent > want.Profit {
		t.Fatalf("the checkpoint holds %d nodes, %d open tasks, incumbent %d (%v); the optimum is %d",
			k.Nodes, len(k.Tasks), k.Incumbent, k.HasIncumbent, want.Profit)
	}
	for _, extra := range [][]string{{"--np", "7"}, {"--world", "sim", "--np", "5", "-b", "koso"}} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"--restart", file, "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("restart %q: exit %d: %s", extra, code, stderr)
		}
		got := decodeResult(t, "restart", stdout)
		if got.Profit != want.Profit || got.Search != "core" || got.Nodes <= k.Nodes {
			t.Fatalf("restart %q: profit %d by %s in %d nodes; sequential %d, the checkpoint had %d nodes",
				extra, got.Profit, got.Search, got.Nodes, want.Profit, k.Nodes)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restart", file, committed}, "another instance"},
		{[]string{"--restart", file, in, "--search", "hs"}, "another instance"},
	} {
		runnertest.Refuses(t, bin, tc.want, tc.args...)
	}
}

// TestCheckpointEvery: periodic checkpoints (--checkpoint-every 1ms)
// suspend and resume the Horowitz–Sahni search many times within one run,
// in the embedded and the simulated world, and the profit is the
// sequential one; a checkpoint file is written.
func TestCheckpointEvery(t *testing.T) {
	bin := runnertest.Build(t)
	dir := t.TempDir()
	in := generate(t, bin, dir, "--class", "almost-strongly", "-m", "200", "--seed", "3", "--range", "100000")
	file := filepath.Join(dir, "k.ckpt")
	args := []string{in, "--search", "hs", "--json", "--budget", "2000"}
	stdout, stderr, code := runnertest.Run(t, bin, append(args, "-b", "seq")...)
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, stderr)
	}
	want := decodeResult(t, "seq", stdout)
	for _, world := range []string{"embedded", "sim"} {
		stdout, stderr, code := runnertest.Run(t, bin, append(args, "--world", world, "--np", "4", "--checkpoint", file, "--checkpoint-every", "1ms")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", world, code, stderr)
		}
		if got := decodeResult(t, world, stdout); got.Profit != want.Profit {
			t.Fatalf("%s: profit %d, sequential %d", world, got.Profit, want.Profit)
		}
		// The file did not exist before the run: a checkpoint was written.
		if _, err := runner.ReadCheckpoint(file, "knapsack"); err != nil {
			t.Fatalf("%s: %v", world, err)
		}
		os.Remove(file)
	}
}
