package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// sameTree fails t unless got has want's nodes, leaves and height exactly,
// and its value (bit for bit) and digest when want has them.
func sameTree(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for _, k := range []string{"nodes", "leaves", "height", "digest"} {
		if got[k] != want[k] {
			t.Fatalf("%s: %s %v, uninterrupted %v", what, k, got[k], want[k])
		}
	}
	if v, ok := want["value"].(float64); ok {
		if g, _ := got["value"].(float64); math.Float64bits(g) != math.Float64bits(v) {
			t.Fatalf("%s: value %.17g, uninterrupted %.17g", what, g, v)
		}
	} else if _, ok := want["digest"]; !ok {
		t.Fatalf("%s: the uninterrupted run has neither a value nor a digest", what)
	}
}

// TestCheckpointSignal integrates x·sin(30x) to θ_a = 10⁻²⁰ (3·10⁷ nodes)
// on 3 goroutine ranks with --checkpoint, sends SIGTERM, and restarts from
// the file alone on 7 goroutine ranks and on 5 simulated ranks: the run
// exits with status 3 and prints nothing, the file holds part of the tree,
// and each restart has the sequential run's nodes, leaves and height
// exactly and its value bit for bit (the leaves before the cut travel as
// an exact sum in the partial result). The checkpoint is refused by the
// other subcommands and by another instance of func, with exit status 2;
// given alone, --restart FILE runs the subcommand that wrote FILE.
func TestCheckpointSignal(t *testing.T) {
	c := command{t, runnertest.Build(t)}
	file := filepath.Join(t.TempDir(), "i.ckpt")
	args := "func osc --theta-a 1e-20 --theta-r 1e-15 --json"
	want := c.json(args+" -b seq", "value")

	stdout, stderr, code := runnertest.Interrupt(t, c.bin, 300*time.Millisecond, syscall.SIGTERM,
		append(strings.Fields(args), "--np", "3", "--checkpoint", file)...)
	if code != runner.ExitCheckpointed || stdout != "" || !strings.Contains(stderr, "resume with: integrate func --restart "+file) {
		t.Fatalf("after SIGTERM: exit %d, stdout %q, stderr %q; want exit %d", code, stdout, stderr, runner.ExitCheckpointed)
	}
	k, err := runner.ReadCheckpoint(file, "integrate func")
	if err != nil {
		t.Fatal(err)
	}
	if k.Nodes <= 0 || float64(k.Nodes) >= want["nodes"].(float64) || len(k.Tasks) == 0 || len(k.Partial) == 0 {
		t.Fatalf("the checkpoint holds %d nodes, %d open tasks and %d bytes of result, of %v nodes",
			k.Nodes, len(k.Tasks), len(k.Partial), want["nodes"])
	}
	for _, extra := range []string{"--np 7", "--world sim --np 5 -b koso"} {
		sameTree(t, "restart "+extra, c.json("func --restart "+file+" --json "+extra), want)
	}
	// Without the subcommand: the checkpoint names it.
	sameTree(t, "restart without the subcommand", c.json("--restart="+file+" --np 2 --json"), want)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"poly", "--restart", file}, "written by integrate func, not integrate poly"},
		{[]string{"alpha", "--restart", file}, "written by integrate func, not integrate alpha"},
		{[]string{"func", "--restart", file, "exp"}, "another instance"},
		{[]string{"func", "--restart", file, "osc", "--theta-a", "1e-19"}, "another instance"},
	} {
		runnertest.Refuses(t, c.bin, tc.want, tc.args...)
	}
}

// TestCheckpointEvery: periodic checkpoints (--checkpoint-every 1ms)
// suspend and resume poly (relative rule) and alpha (α = 0.98, 2.5·10⁶
// nodes) many times within one run, in the embedded and the simulated
// world: the nodes, leaves, height, value (bit for bit) and digest are
// the sequential run's.
func TestCheckpointEvery(t *testing.T) {
	c := command{t, runnertest.Build(t)}
	file := filepath.Join(t.TempDir(), "i.ckpt")
	for _, args := range []string{
		"poly --poly-seed 3 --rule relative --theta-a 1e-14 --json --budget 200",
		"alpha --alpha 0.98 --json --budget 200",
	} {
		want := c.json(args + " -b seq")
		for _, world := range []string{"embedded", "sim"} {
			sameTree(t, world+": "+args, c.json(args+" --np 4 --world "+world+" --checkpoint "+file+" --checkpoint-every 1ms"), want)
			// The file did not exist before the run: a checkpoint was written.
			if _, err := runner.ReadCheckpoint(file, "integrate "+strings.Fields(args)[0]); err != nil {
				t.Fatalf("%s: %s: %v", world, args, err)
			}
			os.Remove(file)
		}
	}
}
