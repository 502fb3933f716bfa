package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/skeleton"
)

// run runs the command in process with args and returns what it printed
// and its exit status.
func run(args ...string) (stdout, stderr string, code int) {
	app := newApp()
	var o, e bytes.Buffer
	app.Writer, app.ErrWriter = &o, &e
	code = runner.Execute(app, append([]string{"nqueens"}, args...))
	return o.String(), e.String(), code
}

// quiet runs the command with -q and returns its "SOLUTIONS NODES" line.
func quiet(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := run(append([]string{"-q"}, args...)...)
	if code != 0 {
		t.Fatalf("nqueens %s: exit status %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return strings.TrimSpace(out)
}

// TestTwelve: the issue's figure, 14200 solutions of 12 queens on 4 ranks.
func TestTwelve(t *testing.T) {
	out, errOut, code := run("--np", "4", "12")
	if code != 0 || !strings.Contains(out, "14200 solutions") {
		t.Fatalf("exit status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestInvariant: the count and the nodes of 9 queens (352 solutions) are
// the sequential ones under every balancer on 2, 4 and 7 ranks of the
// embedded world, and on 1024 ranks of the simulator.
func TestInvariant(t *testing.T) {
	want := quiet(t, "-b", "seq", "9")
	if !strings.HasPrefix(want, "352 ") {
		t.Fatalf("sequential: %q", want)
	}
	for _, b := range lb.Balancers() {
		for _, np := range []string{"2", "4", "7"} {
			if got := quiet(t, "-b", b.Name, "--np", np, "9"); got != want {
				t.Errorf("-b %s --np %s: %q, want %q", b.Name, np, got, want)
			}
		}
		if got := quiet(t, "-b", b.Name, "--world", "sim", "--np", "1024", "9"); got != want {
			t.Errorf("-b %s --world sim --np 1024: %q, want %q", b.Name, got, want)
		}
	}
}

// TestRestart: a search stopped by --max-nodes with --checkpoint and
// resumed with --restart on other ranks and another balancer counts the
// whole tree's solutions and nodes.
//
// 14 queens: 2.7·10⁷ nodes, several of --max-nodes' progress snapshots
// (one per 100 ms) on any machine; 13 queens can end before the first.
func TestRestart(t *testing.T) {
	c := count(14).Sequential()
	want := fmt.Sprint(c.Value, " ", c.Nodes)
	ckpt := filepath.Join(t.TempDir(), "nq.ckpt")
	if _, errOut, code := run("-q", "--np", "3", "--checkpoint", ckpt, "--max-nodes", "100000", "14"); code != runner.ExitLimit {
		t.Fatalf("--max-nodes: exit status %d, want %d\n%s", code, runner.ExitLimit, errOut)
	}
	if got := quiet(t, "--np", "2", "-b", "ps", "--restart", ckpt); got != want {
		t.Fatalf("--restart: %q, want %q", got, want)
	}
}

// TestCalibrate: --calibrate measures the app's own node cost and the
// simulation runs on it.
func TestCalibrate(t *testing.T) {
	out, errOut, code := run("--world", "sim", "--np", "16", "--calibrate", "12")
	if code != 0 || !strings.Contains(out, "14200 solutions") || !strings.Contains(errOut, "node_ns") {
		t.Fatalf("exit status %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestBadInput: a bad board size is exit status 2 with a reason.
func TestBadInput(t *testing.T) {
	for _, args := range [][]string{{}, {"0"}, {"x"}, {"21"}, {"8", "9"}} {
		_, errOut, code := run(args...)
		if code != 2 || !strings.Contains(errOut, "board size") {
			t.Errorf("nqueens %v: exit status %d, stderr %q", args, code, errOut)
		}
	}
}

// ExampleCount: the skeleton's enumeration of 8 queens on one rank.
func Example_count() {
	c := count(8).Sequential()
	fmt.Println(c.Value, c.Nodes)
	// Output: 92 2057
}

// TestNodeCost: the app declares no node cost, so a simulated run says
// that it uses the model's figure (a note on stderr, node_ns_from in the
// JSON record), and --calibrate or --node-ns replace it.
func TestNodeCost(t *testing.T) {
	_, errOut, code := run("--world", "sim", "--np", "8", "9")
	if code != 0 || !strings.Contains(errOut, "declares no node cost for the machine cluster") {
		t.Errorf("without a node cost: exit status %d, stderr %q", code, errOut)
	}
	for flags, want := range map[string]string{"": "model", "--node-ns 20": "flag", "--calibrate": "calibrated", "--machine unit": "step"} {
		args := append([]string{"--world", "sim", "--np", "8", "--json"}, strings.Fields(flags)...)
		out, errOut, code := run(append(args, "12")...)
		if code != 0 || !strings.Contains(out, `"node_ns_from":"`+want+`"`) {
			t.Errorf("%s: exit status %d, want node_ns_from %q in %q (stderr %q)", flags, code, want, out, errOut)
		}
	}
}

// TestApp: the skeleton's Apps of 8 queens keep lb.Task's promises, as
// lbtest.TestApp checks them (docs/writing-an-app.md): splits anywhere,
// tasks moved between ranks and decoded, and the parts' results (count and
// nodes) combining to the whole's. A Work visits a board's children
// together and a split's pieces' boards at once: up to 8 children and 8
// rows more than its budget, Overshoot.
func TestApp(t *testing.T) {
	lbtest.TestApp(t, func() lb.App { return count(8).NewApp() },
		lbtest.AppOptions{Exhaustive: true, Overshoot: 16, Result: lbtest.SameResult[skeleton.Count[int64]](nil)})
}

// TestChildren: Children, which the skeleton expands the boards with,
// makes the children that Child makes, in the same order, for every board
// of every size up to 9.
func TestChildren(t *testing.T) {
	for n := 1; n <= 9; n++ {
		if err := skeleton.CheckChildren[board](&queens{n}, 1<<20); err != nil {
			t.Errorf("n=%d: %v", n, err)
		}
	}
}
