package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/treelb/treelb/apps/knapsack/knap"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// committed is a small instance of seed 002's class in the repository
// (knapsack gen --class sanders -m 100 --seed 5): about 14 thousand nodes
// with either search. scripts/mpi-test.sh solves it under mpirun.
const committed = "testdata/sanders-m100-seed5.txt"

// run runs the command in process as Main would, with stdin as its
// standard input, and returns its standard output and error and its exit
// status.
func run(stdin string, args ...string) (stdout, stderr string, code int) {
	app := newApp()
	var o, e bytes.Buffer
	app.Reader, app.Writer, app.ErrWriter = strings.NewReader(stdin), &o, &e
	code = runner.Execute(app, append([]string{"knapsack"}, args...))
	return o.String(), e.String(), code
}

// embeddedOnly skips tests that start embedded worlds in the MPI build.
func embeddedOnly(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("the command tests start their own embedded worlds; scripts/mpi-test.sh runs the command under mpirun")
	}
}

// result is the part of the JSON output the tests read.
type result struct {
	App, Balancer, World, Search, File string
	Ranks, N                           int
	Capacity, Profit, Weight, Nodes    int64
	Items                              []int
	Seconds                            float64
	CPUSeconds                         float64 `json:"cpu_seconds"`
	SimSeconds                         float64 `json:"sim_seconds"`
	VirtualSeconds                     float64 `json:"virtual_seconds"`
	WorkVirtualSeconds                 float64 `json:"work_virtual_seconds"`
	Speedup                            float64 `json:"speedup"`
	Machine                            *struct {
		Name   string
		NodeNS float64 `json:"node_ns"`
	}
	Stats *struct{ Total struct{ Nodes int64 } }
}

// solveJSON runs the command with --json and checks the answer against
// the instance: feasible items, 0-based and ascending, that sum to the
// profit and weight printed.
func solveJSON(t *testing.T, in *knap.Instance, stdin string, args ...string) result {
	t.Helper()
	stdout, stderr, code := run(stdin, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("knapsack %q: exit %d: %s", args, code, stderr)
	}
	var r result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("knapsack %q: %v\n%s", args, err, stdout)
	}
	p, w, err := in.Check(r.Items)
	if err != nil || p != r.Profit || w != r.Weight || !slices.IsSorted(r.Items) || r.Items == nil {
		t.Fatalf("knapsack %q: items %v (profit %d weight %d, %v), output says %d %d", args, r.Items, p, w, err, r.Profit, r.Weight)
	}
	if r.App != "knapsack" || r.N != in.Len() || r.Capacity != in.Capacity || r.Seconds <= 0 || r.CPUSeconds < 0 {
		t.Fatalf("knapsack %q: %+v", args, r)
	}
	if r.Stats != nil && r.Stats.Total.Nodes != r.Nodes {
		t.Fatalf("knapsack %q: %d nodes, statistics %d", args, r.Nodes, r.Stats.Total.Nodes)
	}
	return r
}

// readInstance parses an instance file.
func readInstance(t *testing.T, path string) *knap.Instance {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := knap.Parse(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestSolve: on the committed instance, the sequential solver of each
// search and every balancer on 1, 2 and 7 goroutine ranks (in slices of 50
// nodes, so that the ranks share the work) and on 7 simulated ones find
// the same optimal profit, each printing its nodes.
func TestSolve(t *testing.T) {
	embeddedOnly(t)
	in := readInstance(t, committed)
	var want int64
	for i, s := range []string{"core", "hs"} {
		seq := solveJSON(t, in, "", "-b", "seq", "--search", s, committed)
		if seq.Balancer != "seq" || seq.Ranks != 1 || seq.Search != s || seq.Nodes <= 0 || seq.File != committed {
			t.Fatalf("seq %s: %+v", s, seq)
		}
		if i == 0 {
			want = seq.Profit
		} else if seq.Profit != want {
			t.Fatalf("seq hs: profit %d, core %d", seq.Profit, want)
		}
		for _, b := range lb.Names() {
			for _, np := range []string{"1", "2", "7"} {
				r := solveJSON(t, in, "", committed, "--search", s, "-b", b, "--np", np, "--stats", "--budget", "50")
				if r.Profit != want || fmt.Sprint(r.Ranks) != np || r.World != "embedded" {
					t.Fatalf("%s on %s ranks of %s: %+v, want profit %d", s, np, b, r, want)
				}
				t.Logf("%s %s P=%s: %d nodes, seq %d", s, b, np, r.Nodes, seq.Nodes)
			}
			r := solveJSON(t, in, "", "--world", "sim", "--np", "7", "-b", b, "--search", s, committed)
			if r.Profit != want || r.Ranks != 7 || r.World != "sim" || r.SimSeconds <= 0 || r.VirtualSeconds <= 0 || r.VirtualSeconds == r.SimSeconds ||
				r.Machine == nil || r.Machine.NodeNS <= 0 || math.Abs(r.WorkVirtualSeconds-float64(r.Nodes)*r.Machine.NodeNS/1e9) > 1e-9*r.WorkVirtualSeconds || r.Speedup != 0 {
				t.Fatalf("%s on 7 simulated ranks of %s: %+v, want profit %d and the simulator's report", s, b, r, want)
			}
		}
	}
	// The GCel's node cost is knapsack's own, not the machine's default
	// (golomb's).
	gcel, err := lb.LookupMachine("gcel")
	if err != nil {
		t.Fatal(err)
	}
	r := solveJSON(t, in, "", "--world", "sim", "--machine", "gcel", "--np", "16", "--search", "hs", committed)
	if ns := gcel.For(knap.NodeCosts()).NodeNS; r.Profit != want || r.Machine == nil || r.Machine.Name != "gcel" || r.Machine.NodeNS != ns || ns == gcel.Machine.NodeNS {
		t.Errorf("on the GCel: %+v, want knapsack's node cost %g", r, ns)
	}
}

// TestStdin: "-" reads the instance from standard input, on rank 0 of
// several ranks; the human output and -q say the same as --json.
func TestStdin(t *testing.T) {
	embeddedOnly(t)
	data, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	in := readInstance(t, committed)
	r := solveJSON(t, in, string(data), "--np", "3", "-")
	if r.File != "-" {
		t.Errorf("file %q, want -", r.File)
	}
	stdout, stderr, code := run(string(data), "-", "--np", "2", "-q")
	items := strings.Trim(fmt.Sprint(r.Items), "[]")
	if code != 0 || stdout != fmt.Sprintf("%d\n%s\n", r.Profit, items) {
		t.Errorf("-q: exit %d, %q %s, want profit %d and items %s", code, stdout, stderr, r.Profit, items)
	}
	stdout, _, code = run(string(data), "-", "--np", "2", "--stats")
	for _, want := range []string{fmt.Sprintf("optimal profit %d, weight %d, %d items: %s\n", r.Profit, r.Weight, len(r.Items), items),
		"standard input", "100 items", "balancer: rp", "total"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("human output (exit %d) lacks %q:\n%s", code, want, stdout)
		}
	}
}

// TestEdgeAnswers: an empty knapsack is an answer (items [], not null);
// items of weight 0 are always packed; decimal numbers with --scale.
func TestEdgeAnswers(t *testing.T) {
	embeddedOnly(t)
	for _, c := range []struct {
		input, scale string
		profit       int64
		items        []int
	}{
		{"2\n5 9\n7 8\n3\n", "0", 0, []int{}},
		{"0\n10\n", "0", 0, []int{}},
		{"3\n4 0\n5 3\n9 3\n3\n", "0", 13, []int{0, 2}},
		{"3\n0.4 1.5\n0.45 .5\n1 1.25\n1.75\n", "100", 145, []int{1, 2}},
	} {
		in, err := knap.Parse(strings.NewReader(c.input), mustInt(t, c.scale))
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range []string{"seq", "rp"} {
			r := solveJSON(t, in, c.input, "-", "-b", b, "--np", "2", "--scale", c.scale)
			if r.Profit != c.profit || !reflect.DeepEqual(r.Items, c.items) {
				t.Errorf("%q -b %s: profit %d items %v, want %d %v", c.input, b, r.Profit, r.Items, c.profit, c.items)
			}
		}
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	var v int64
	if _, err := fmt.Sscan(s, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBadInput: every kind of bad input ends the command with exit status
// 2 and one message naming the line, on one rank and on several.
func TestBadInput(t *testing.T) {
	embeddedOnly(t)
	dir := t.TempDir()
	for _, c := range []struct {
		input, want string
	}{
		{"3\n1 2\n3 4\n5\n", "line 4: count mismatch"}, // a missing item line
		{"1\n1 2\n3 4\n5\n", "line 3: count mismatch"}, // an extra item line
		{"2\n1 2\n3 4\n", "line 4: the capacity line is missing"},
		{"2\n1 2\n3 4\n5\n6\n", "line 5: extra line"},
		{"2\n1 2\n3 -4\n5\n", "line 3: negative weight -4"},
		{"2\n1 2\n3 4\n-5\n", "line 4: negative capacity -5"},
		{"2\n1 2\nx 4\n5\n", "line 3: profit \"x\" is not a number"},
		{"2\n1 2\n3 4 5\n5\n", "line 3: want \"profit weight\""},
		{"2\n1 99999999999999999999\n3 4\n5\n", "line 2: weight 99999999999999999999 overflows"},
		{"2\n9223372036854775806 1\n1 4\n5\n", "line 3: the sum of the profits"},
		{"2\n1 9223372036854775807\n1 4\n5\n", "line 3: the sum of the weights"},
		{"2\n1.5 2\n3 4\n5\n", "line 2: profit 1.5 is not an integer"},
		{"two\n1 2\n3 4\n5\n", "line 1: item count \"two\""},
		{"", "empty input"},
	} {
		file := filepath.Join(dir, "bad.txt")
		if err := os.WriteFile(file, []byte(c.input), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{file, "--np", "3"}, {"-b", "seq", file}, {"-", "--np", "2"}} {
			stdout, stderr, code := run(c.input, args...)
			if code != 2 || !strings.HasPrefix(stderr, "knapsack: ") || !strings.Contains(stderr, c.want) ||
				strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("%q %q: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.input, args, code, stderr, stdout, c.want)
			}
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing.txt")}, "no such file"},
		{[]string{dir}, "is a directory"},
		{nil, "exactly one argument"},
		{[]string{committed, committed}, "exactly one argument"},
		{[]string{committed, "--search", "dp"}, "unknown search"},
		{[]string{committed, "--scale", "-2"}, "--scale -2"},
		{[]string{committed, "-b", "nope"}, "unknown balancer"},
		// The checkpoint would be written over the instance it was read from.
		{[]string{committed, "--checkpoint", "./" + committed}, "would write over its own input"},
		{[]string{"gen"}, "needs -m"},
		{[]string{"gen", "-m", "-1"}, "-m -1"},
		{[]string{"gen", "-m", "5", "--class", "hard"}, "unknown class"},
		{[]string{"gen", "-m", "5", "--fraction", "0.3"}, "--fraction: the sanders class"},
		{[]string{"gen", "-m", "5", "--class", "weakly", "--fraction", "1.5"}, "--fraction 1.5"},
		{[]string{"gen", "-m", "5", "--class", "weakly", "--range", "0"}, "--range 0"},
		{[]string{"gen", "-m", "5", "--class", "strongly", "--range", "9223372036854775807"}, "--range 9223372036854775807: need 1 to"},
		{[]string{"gen", "-m", "5", "x"}, "no arguments"},
		{[]string{"--seed", "3", "gen", "-m", "5"}, "give it after gen"},
		{[]string{"gen", "-m", "5", "--bogus"}, "--bogus: no such flag"},
	} {
		stdout, stderr, code := run("", c.args...)
		if code != 2 || !strings.HasPrefix(stderr, "knapsack: ") || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, stderr, stdout, c.want)
		}
	}
}

// TestGenRoundTrip: gen writes knap.Generate's instance of every class,
// flags before or after the subcommand's name, which the solver reads
// back; the same seed gives the same file.
func TestGenRoundTrip(t *testing.T) {
	embeddedOnly(t)
	for _, class := range knap.Classes() {
		cfg := knap.GenConfig{Class: class, M: 40, Seed: 9}
		args := []string{"gen", "--class", class.String(), "-m", "40", "--seed", "9"}
		if class != knap.Sanders {
			cfg.R, cfg.Fraction = 50, 0.3
			args = append(args, "--range", "50", "--fraction", "0.3")
		}
		want, err := knap.Generate(cfg)
		if err != nil {
			t.Fatal(err)
		}
		stdout, stderr, code := run("", args...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		got, err := knap.Parse(strings.NewReader(stdout), 0)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %v\n%s\nwant %+v", args, err, stdout, want)
		}
		moved := append([]string{"-m", "40"}, slices.Delete(slices.Clone(args), 3, 5)...)
		if again, _, _ := run("", moved...); again != stdout {
			t.Errorf("%q and %q differ", args, moved)
		}
		seq := solveJSON(t, got, stdout, "-", "-b", "seq")
		if par := solveJSON(t, got, stdout, "-", "--np", "3"); par.Profit != seq.Profit {
			t.Errorf("%v: profit %d on 3 ranks, %d sequentially", class, par.Profit, seq.Profit)
		}
	}
}

// TestBuilt runs the built command as a user would: the committed instance
// through a pipe, exit status 2 from a real process, --help.
func TestBuilt(t *testing.T) {
	bin := runnertest.Build(t)
	seq, stderr, code := runnertest.Run(t, bin, committed, "-b", "seq", "-q")
	if code != 0 {
		t.Fatalf("-b seq: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-", "--np", "2", "-q", "--search", "hs")
	cmd.Stdin = bytes.NewReader(data)
	if out, err := cmd.Output(); err != nil || !strings.HasPrefix(seq, strings.SplitAfter(string(out), "\n")[0]) {
		t.Errorf("%s through a pipe: %v, %q; sequential %q", committed, err, out, seq)
	}
	if _, stderr, code := runnertest.Run(t, bin, "--np", "2", "testdata/none.txt"); code != 2 || !strings.Contains(stderr, "no such file") {
		t.Errorf("a missing file: exit %d, %q", code, stderr)
	}
	if stdout, _, code := runnertest.Run(t, bin, "--help"); code != 0 || !strings.Contains(stdout, "--search") || !strings.Contains(stdout, "gen") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
}

// TestScaleZeroedWarning: a --scale that rounds nonzero numbers to 0 says
// so on stderr (the instance changes: a weight of 0 packs for free), and
// one that keeps them says nothing.
func TestScaleZeroedWarning(t *testing.T) {
	embeddedOnly(t)
	const input = "2\n3 0.25\n2 0.75\n1\n"
	if _, stderr, code := run(input, "-q", "--scale", "1", "-"); code != 0 ||
		!strings.Contains(stderr, "--scale 1 rounds a nonzero number to 0 (the first on line 2)") {
		t.Errorf("--scale 1: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := run(input, "-q", "--scale", "100", "-"); code != 0 || stderr != "" {
		t.Errorf("--scale 100: exit %d, stderr %q", code, stderr)
	}
}
