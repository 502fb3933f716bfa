package main

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// solved is what --json prints for one instance, as far as checkpoints
// must preserve it.
type solved struct {
	Instance   string
	Length     int
	Iterations []struct {
		Threshold int
		Nodes     int64
		Failed    bool
	}
}

// decodeLines decodes the JSON Lines of a run, one object per instance.
func decodeLines(t *testing.T, what, stdout string) []solved {
	t.Helper()
	var out []solved
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var s solved
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v: %q", what, err, sc.Text())
		}
		out = append(out, s)
	}
	return out
}

// sameSearch fails t unless got solves the instances of want in the same
// order, with the same optimal lengths and, for every failing IDA*
// iteration (exhaustive), the same threshold and exactly the same nodes.
func sameSearch(t *testing.T, what string, got, want []solved) {
	t.Helper()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%s: %d instances, want %d", what, len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.Instance != w.Instance || g.Length != w.Length || len(g.Iterations) != len(w.Iterations) {
			t.Fatalf("%s: %s: length %d in %d iterations; want %s: %d in %d",
				what, g.Instance, g.Length, len(g.Iterations), w.Instance, w.Length, len(w.Iterations))
		}
		for j, it := range g.Iterations {
			wi := w.Iterations[j]
			if it.Threshold != wi.Threshold || it.Failed != wi.Failed || it.Failed && it.Nodes != wi.Nodes {
				t.Fatalf("%s: %s: iteration %d: threshold %d, %d nodes, failed %v; sequential %d, %d, %v",
					what, g.Instance, j, it.Threshold, it.Nodes, it.Failed, wi.Threshold, wi.Nodes, wi.Failed)
			}
		}
	}
}

// TestCheckpointSignal solves four of Korf's instances on 3 goroutine
// ranks with --checkpoint, sends SIGTERM (what Slurm sends at the end of
// a job) while the second run is in progress, and restarts from the file
// alone on 7 goroutine ranks and on 5 simulated ranks. The run exits with
// status 3 after printing the instances it finished; each restart prints
// the rest, and together they are the sequential run: the same lengths,
// and every failing iteration's nodes exactly.
func TestCheckpointSignal(t *testing.T) {
	bin := runnertest.Build(t)
	file := filepath.Join(t.TempDir(), "f.ckpt")
	args := []string{"--korf", "12,25,11,10", "--json"}
	stdout, stderr, code := runnertest.Run(t, bin, append(args, "-b", "seq")...)
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, stderr)
	}
	want := decodeLines(t, "seq", stdout)

	out, errOut, code := runnertest.Interrupt(t, bin, 300*time.Millisecond, syscall.SIGTERM, append(args, "--np", "3", "--checkpoint", file)...)
	if code != runner.ExitCheckpointed {
		t.Fatalf("after SIGTERM: exit %d, want %d; stderr %s", code, runner.ExitCheckpointed, errOut)
	}
	if !strings.Contains(errOut, "resume with: fifteen --restart "+file) {
		t.Fatalf("after SIGTERM: stderr %q", errOut)
	}
	done := decodeLines(t, "before the signal", out)
	if len(done) >= len(want) {
		t.Fatalf("all %d instances were solved before the checkpoint", len(done))
	}
	for _, extra := range [][]string{{"--np", "7"}, {"--world", "sim", "--np", "5"}} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"--restart", file, "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("restart %q: exit %d: %s", extra, code, stderr)
		}
		rest := decodeLines(t, "restart", stdout)
		sameSearch(t, "restart "+strings.Join(extra, " "), append(done[:len(done):len(done)], rest...), want)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restart", file, "--korf", "13"}, "another instance"},
	} {
		runnertest.Refuses(t, bin, tc.want, tc.args...)
	}
}

// TestCheckpointEvery: periodic checkpoints (--checkpoint-every 1ms)
// suspend and resume the IDA* iterations many times within one run, in the
// embedded and the simulated world, and the result is the sequential one:
// lengths, thresholds and the failing iterations' nodes exactly.
func TestCheckpointEvery(t *testing.T) {
	bin := runnertest.Build(t)
	file := filepath.Join(t.TempDir(), "f.ckpt")
	args := []string{"--korf", "12,42,19", "--json", "--budget", "5000"}
	stdout, _, _ := runnertest.Run(t, bin, append(args, "-b", "seq")...)
	want := decodeLines(t, "seq", stdout)
	for _, world := range []string{"embedded", "sim"} {
		stdout, stderr, code := runnertest.Run(t, bin, append(args, "--world", world, "--np", "4", "--checkpoint", file, "--checkpoint-every", "1ms")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", world, code, stderr)
		}
		sameSearch(t, world, decodeLines(t, world, stdout), want)
		// The file did not exist before the first run: a checkpoint was
		// written, and the last one is whole.
		if _, err := runner.ReadCheckpoint(file, "fifteen"); err != nil {
			t.Fatalf("%s: %v", world, err)
		}
	}
}
