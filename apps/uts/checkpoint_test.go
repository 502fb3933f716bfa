package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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

// TestCheckpointEvery: periodic checkpoints (--checkpoint-every 1ms)
// suspend and resume the count many times within one run, in the embedded
// and the simulated world, and the counts are T3's exactly; the last
// checkpoint is left whole, and a restart from it with another tree, or
// another granularity (the same tree, but another instance), is refused.
// The scenario of a signal and restarts on other ranks and worlds is
// runner's (TestCheckpointScenario, on a fake app); TestInvariant
// restarts uts's own checkpoints from world to world.
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
		if world == "embedded" {
			os.Remove(file)
		}
	}
	for _, other := range [][]string{{"--tree", "T1"}, {"--tree", "T3", "--granularity", "15"}} {
		runnertest.Refuses(t, bin, "another instance", append([]string{"--restart", file}, other...)...)
	}
}
