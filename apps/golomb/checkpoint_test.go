package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/treelb/treelb/internal/cmdutil"
	"github.com/treelb/treelb/internal/cmdutil/cmdtest"
)

// countRun is what a --count run prints: the count's own nodes and
// certificate, the same on every run.
type countRun struct {
	Rulers      int64
	Nodes       int64
	Certificate string
}

// TestCheckpointEvery: periodic checkpoints suspend and resume the search
// in the same run many times (--checkpoint-every 1ms), and the count is
// the sequential one with exactly its nodes; the file is left behind, and
// a restart from it with another instance is refused. The scenario of a
// signal and restarts on other ranks and worlds is cmdutil's
// (TestCheckpointScenario, on a fake app); TestInvariant restarts golomb's
// own checkpoints from world to world.
func TestCheckpointEvery(t *testing.T) {
	bin := cmdtest.Build(t)
	file := filepath.Join(t.TempDir(), "g.ckpt")
	args := []string{"10", "--count", "60", "--json", "-q"}
	stdout, _, _ := cmdtest.Run(t, bin, append(args, "-b", "seq")...)
	var want, got countRun
	json.Unmarshal([]byte(stdout), &want)
	for _, world := range []string{"embedded", "sim"} {
		stdout, stderr, code := cmdtest.Run(t, bin, append(args, "--world", world, "--np", "4", "--checkpoint", file, "--checkpoint-every", "1ms")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", world, code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got != want || want.Rulers == 0 || want.Certificate == "" {
			t.Fatalf("%s: %+v, sequential %+v", world, got, want)
		}
		if _, err := cmdutil.ReadCheckpoint(file, "golomb"); err != nil {
			t.Fatalf("%s: %v", world, err)
		}
	}
	for _, other := range [][]string{{"9"}, {"10", "--count", "61"}, {"10"}} {
		cmdtest.Refuses(t, bin, "another instance", append([]string{"--restart", file}, other...)...)
	}
}
