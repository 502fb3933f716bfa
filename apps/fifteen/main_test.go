package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/runner/runnertest"
)

const (
	goal    = "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"
	korf12  = "14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15" // Korf's instance 12, 45 moves
	swapped = "0 2 1 3 4 5 6 7 8 9 10 11 12 13 14 15" // odd parity
)

// writeFile writes content to a file in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExampleFile: the example docs/apps/fifteen.md and --help show parses.
func TestExampleFile(t *testing.T) {
	ins, err := readFile("boards.txt", nil)
	if err != nil || len(ins) != 3 || ins[0].Start.String() != korf12 {
		t.Fatalf("boards.txt: %v %+v", err, ins)
	}
}

// TestInstances checks the input parsing in process: what is accepted, in
// which order, and the error of each kind of bad input.
func TestInstances(t *testing.T) {
	dir := t.TempDir()
	two := writeFile(t, dir, "two.txt", "# two boards\n"+korf12+"\n\n"+strings.ReplaceAll(goal, " ", ", ")+" # the goal\n")
	ins, err := sources{korf: []string{"12", "1-2"}, files: []string{two}, numbers: strings.Fields(goal + " " + korf12)}.instances()
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, in := range ins {
		labels = append(labels, in.Label)
	}
	want := []string{"korf 12", "korf 1", "korf 2", two + ":2", two + ":4", "arguments 1-16", "arguments 17-32"}
	// Any Unicode blank separates tiles: a vertical tab, a no-break space.
	odd := writeFile(t, dir, "odd.txt", strings.Replace(strings.Replace(korf12, " ", "\v", 1), " ", "\u00a0", 1)+"\n")
	if got, err := (sources{files: []string{odd}}).instances(); err != nil || len(got) != 1 {
		t.Errorf("tiles apart by a vertical tab and a no-break space: %d instances, %v; want 1", len(got), err)
	}
	// --file is repeatable: every file's boards, in order.
	if twice, err := (sources{files: []string{two, two}}).instances(); err != nil || len(twice) != 4 {
		t.Errorf("--file twice: %d instances, %v; want 4", len(twice), err)
	}
	if strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Fatalf("labels %q, want %q", labels, want)
	}
	if ins[0].Start.String() != korf12 || ins[0].Table.Optimal != 45 || ins[4].Start != puzzle.Goal() || ins[6].Start.String() != korf12 {
		t.Fatalf("instances %+v", ins)
	}

	malformed := writeFile(t, dir, "bad.tsv", "id\tt0\tt1\tt2\tt3\tt4\tt5\tt6\tt7\tt8\tt9\tt10\tt11\tt12\tt13\tt14\tt15\toptimal_length\tnodes\n1\t2\t3\n")
	bad := []struct {
		name string
		src  sources
		want string
	}{
		{"nothing", sources{}, "no instance"},
		{"15 numbers", sources{numbers: strings.Fields(goal)[1:]}, "need 16 numbers per instance, got 15"},
		{"stdin as an argument", sources{numbers: []string{"-"}}, "--file - reads boards from standard input"},
		{"17 numbers", sources{numbers: strings.Fields(goal + " 1")}, "got 17"},
		{"duplicate", sources{numbers: strings.Fields(strings.Replace(goal, "15", "14", 1))}, "appears twice"},
		{"out of range", sources{numbers: strings.Fields(strings.Replace(goal, "15", "16", 1))}, "out of range"},
		{"negative", sources{numbers: strings.Fields(strings.Replace(goal, "15", "-1", 1))}, "out of range"},
		{"not a number", sources{numbers: strings.Fields(strings.Replace(goal, "15", "x", 1))}, "tile 16"},
		{"unsolvable", sources{numbers: strings.Fields(swapped)}, "unsolvable"},
		{"korf 0", sources{korf: []string{"0"}}, "1..100"},
		{"korf 101", sources{korf: []string{"101"}}, "1..100"},
		{"korf range", sources{korf: []string{"5-3"}}, "1..100"},
		{"korf word", sources{korf: []string{"five"}}, "1..100"},
		{"no data", sources{korf: []string{"5"}, data: filepath.Join(dir, "missing.tsv")}, "no such file"},
		{"malformed data", sources{korf: []string{"5"}, data: malformed}, "line 2"},
		{"no file", sources{files: []string{filepath.Join(dir, "missing.txt")}}, "no such file"},
		{"empty stdin", sources{files: []string{"-"}, stdin: strings.NewReader("# nothing\n")}, "no instance"},
		{"bad stdin", sources{files: []string{"-"}, stdin: strings.NewReader("1 2 3\n")}, "standard input:1: puzzle: need 16 numbers"},
		{"empty file", sources{files: []string{writeFile(t, dir, "empty.txt", "# nothing\n\n")}}, "no instance"},
		{"short line", sources{files: []string{writeFile(t, dir, "short.txt", goal+"\n1 2 3\n")}}, "short.txt:2: puzzle: need 16 numbers, got 3"},
		{"unsolvable line", sources{files: []string{writeFile(t, dir, "odd.txt", swapped+"\n")}}, "odd.txt:1:"},
		// An empty field between commas is a number left out, not a
		// separator: these would be boards of 15 numbers plus one.
		{"empty field", sources{numbers: []string{strings.Replace(strings.ReplaceAll(goal, " ", ","), ",", ",,", 1) + ",0"}}, "an empty field between commas"},
		{"trailing comma", sources{numbers: strings.Fields(goal + ",")}, "an empty field between commas"},
		{"empty field in a file", sources{files: []string{writeFile(t, dir, "commas.txt", goal+"\n,"+goal+"\n")}}, "commas.txt:2: "},
		// A missing file before a good one was dropped when only the last
		// --file counted; --data without --korf was never read.
		{"missing file first", sources{files: []string{filepath.Join(dir, "missing.txt"), writeFile(t, dir, "good.txt", goal+"\n")}}, "no such file"},
		{"data without korf", sources{data: malformed, numbers: strings.Fields(goal)}, "--data " + malformed + ": the table is read for --korf alone"},
		{"stdin twice", sources{files: []string{"-", "-"}, stdin: strings.NewReader(goal + "\n")}, "standard input can be read once"},
	}
	for _, c := range bad {
		_, err := c.src.instances()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := (sources{numbers: strings.Fields(swapped)}).instances(); !errors.Is(err, puzzle.ErrUnsolvable) {
		t.Errorf("unsolvable: %v does not wrap puzzle.ErrUnsolvable", err)
	}
}

// TestCommand builds the command and runs it: exit code 2 with a clear
// message for each kind of bad input, and correct output for good input,
// sequential and in parallel, human, quiet and JSON Lines.
func TestCommand(t *testing.T) {
	bin := runnertest.Build(t)
	dir := t.TempDir()
	run := func(args ...string) (stdout, stderr string, code int) { return runnertest.Run(t, bin, args...) }

	malformed := writeFile(t, dir, "bad.tsv", "id\tt0\tt1\tt2\tt3\tt4\tt5\tt6\tt7\tt8\tt9\tt10\tt11\tt12\tt13\tt14\tt15\toptimal_length\tnodes\n1\t2\t3\n")
	short := writeFile(t, dir, "short.txt", goal+"\n1 2 3\n")
	long := writeFile(t, dir, "long.txt", goal+"\n"+strings.Repeat("1 ", 40000)+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "no instance"},
		{strings.Fields(goal)[1:], "got 15"},
		{strings.Fields(strings.Replace(goal, "15", "14", 1)), "appears twice"},
		{strings.Fields(strings.Replace(goal, "15", "16", 1)), "out of range"},
		{strings.Fields(strings.Replace(goal, "15", "x", 1)), `tile 16: "x" is not a number from 0 to 15`},
		{[]string{"--file", writeFile(t, dir, "bom.txt", "\ufeff"+goal+"\n1 2\n")}, "bom.txt:2"}, // the mark is not tile 1's
		{append([]string{"--"}, strings.Fields(strings.Replace(goal, "15", "-3", 1))...), "out of range"},
		{strings.Fields(swapped), "unsolvable"},
		{[]string{"-b", "seq", "--korf", "0"}, "1..100"},
		{[]string{"--korf", "101"}, "1..100"},
		{[]string{"--korf", "5", "--data", filepath.Join(dir, "missing.tsv")}, "no such file"},
		{[]string{"--korf", "5", "--data", malformed}, "line 2"},
		{[]string{"--file", filepath.Join(dir, "missing.txt")}, "no such file"},
		{[]string{"--file", short}, "short.txt:2"},
		{[]string{"--file", long}, "long.txt:2: longer than 65536 bytes"},
		{[]string{"--balancer", "nonesuch", "--korf", "1"}, "unknown balancer"},
		{[]string{"--np", "0", "--korf", "1"}, "--np 0"},
		{[]string{"-b", "seq", "--fast-init", "--korf", "1"}, "no balancer options"},
		{[]string{"--korf", "1", "--world", "moon"}, "--world"},
		{[]string{"--korf", "1", "--world", "sim", "--np", "0"}, "--np"},
		{[]string{"--korf", "1", "--world", "sim", "--np", "70000"}, "--np"},
		{[]string{"--korf", "1", "--world", "sim", "--machine", "t3e"}, "unknown"},
		{[]string{"--korf", "1", "--world", "sim", "--overhead-ns", "-2"}, "overhead-ns"},
		{[]string{"--korf", "1", "--world", "sim", "--byte-ns", "-1e-3"}, "byte-ns"},
		{[]string{"--korf", "1", "--jitter-ns", "5"}, "only with --world sim"},
		{[]string{"--korf", "1", "--near", "9..3"}, "--near \"9..3\""},
		{[]string{"--korf", "1", "--near", "x"}, "want levels A..B"},
		{[]string{"--korf", "1,2", "--world", "sim", "--seq-nodes", "1000"}, "--seq-nodes"}, // one baseline, two instances
	} {
		stdout, stderr, code := run(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.HasPrefix(stderr, "fifteen: ") || stdout != "" {
			t.Errorf("fifteen %q: exit %d, stderr %q, stdout %q; want exit 2 and a message containing %q",
				c.args, code, stderr, stdout, c.want)
		}
	}

	if stdout, _, code := run("--help"); code != 0 || !strings.Contains(stdout, "--korf N") ||
		!strings.Contains(stdout, "--file F") || !strings.Contains(stdout, "JSON Lines") || !strings.Contains(stdout, "Exit status") {
		t.Errorf("--help: exit %d, output %q", code, stdout)
	}
	if stdout, _, code := run("-q", "--np", "3", goal); code != 0 || stdout != "0\n" {
		t.Errorf("the goal, quiet: exit %d, output %q", code, stdout)
	}
	for _, np := range []string{"1", "3"} {
		stdout, stderr, code := runnertest.RunStdin(t, bin, "# from a pipe\n"+goal+"\n", "-q", "--np", np, "--file", "-")
		if code != 0 || stdout != "0\n" {
			t.Errorf("the goal on stdin, --np %s: exit %d, output %q %s", np, code, stdout, stderr)
		}
	}
	if stdout, _, code := run("-b", "seq", goal); code != 0 || !strings.Contains(stdout, "optimal length 0") {
		t.Errorf("the goal: exit %d, output %q", code, stdout)
	}
	if stdout, _, code := run("--np", "2", "--stats", "--korf", "12"); code != 0 ||
		!strings.Contains(stdout, "optimal length 45 (table: 45)") || !strings.Contains(stdout, "total") {
		t.Errorf("korf 12: exit %d, output %q", code, stdout)
	}

	// The simulated world: a valid optimal solution, every failing
	// iteration's sequential node count, and the simulator's figures.
	for _, m := range []string{"gcel", "cluster"} {
		// The sequential solver's 546344 nodes on korf 12 (Korf's table)
		// are the baseline of the speedup.
		stdout, stderr, code := run("--json", "--world", "sim", "--np", "4096", "--machine", m, "-b", "rp", "--fast-init", "--korf", "12", "--seq-nodes", "546344")
		if code != 0 {
			t.Fatalf("sim %s: exit %d: %s", m, code, stderr)
		}
		var out struct {
			Length  int
			Moves   string
			Machine struct {
				Name   string
				NodeNS float64 `json:"node_ns"`
			}
			VirtualSeconds float64 `json:"virtual_seconds"`
			Speedup        float64
			Events         int64
			Messages       map[string]int64
			Iterations     []struct {
				Threshold int
				Nodes     int64
				Failed    bool
			}
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("sim %s: %v: %s", m, err, stdout)
		}
		start, err := puzzle.Parse(strings.Fields(korf12))
		if err != nil {
			t.Fatal(err)
		}
		seq, err := puzzle.Solve(start)
		if err != nil {
			t.Fatal(err)
		}
		var moves []puzzle.Move
		for _, r := range out.Moves {
			moves = append(moves, puzzle.Move(strings.IndexRune("ULRD", r)))
		}
		end, err := puzzle.ApplyMoves(start, moves)
		if out.Length != 45 || len(moves) != 45 || err != nil || end != puzzle.Goal() || out.Machine.Name != m ||
			out.Speedup <= 0 || math.Abs(out.Speedup-546344*out.Machine.NodeNS*1e-9/out.VirtualSeconds) > 1e-9*out.Speedup || out.Events <= 0 || out.Messages["request"] == 0 || len(out.Iterations) != len(seq.Iterations) {
			t.Fatalf("sim %s: %s", m, stdout)
		}
		for i, it := range out.Iterations {
			if want := seq.Iterations[i]; it.Failed && (it.Threshold != want.Threshold || it.Nodes != want.Nodes) {
				t.Errorf("sim %s: iteration %d: threshold %d, %d nodes; sequential %d, %d", m, i, it.Threshold, it.Nodes, want.Threshold, want.Nodes)
			}
		}
	}
	// On one rank the search expands the sequential solver's nodes, the
	// root counted by both: its search overhead is 1, where leaving the
	// root out of the balanced search's work read 0.999998.
	stdout, stderr, code := run("--json", "--world", "sim", "--np", "1", "--korf", "12", "--seq-nodes", "546344")
	var one struct {
		Nodes              int64
		SearchOverhead     float64 `json:"search_overhead"`
		WorkVirtualSeconds float64 `json:"work_virtual_seconds"`
		SeqVirtualSeconds  float64 `json:"seq_virtual_seconds"`
	}
	if err := json.Unmarshal([]byte(stdout), &one); code != 0 || err != nil || one.Nodes != 546344 || one.SearchOverhead != 1 || one.WorkVirtualSeconds != one.SeqVirtualSeconds {
		t.Errorf("sim on one rank: exit %d, %v: %s%s", code, err, stdout, stderr)
	}

	two := writeFile(t, dir, "two.txt", korf12+"\n"+goal+"\n")
	for _, b := range []string{"seq", "rp"} {
		args := []string{"--json", "--np", "2", "-b", b, "--file", two, "--korf", "42"}
		if b != "seq" {
			args = append(args, "--fast-init")
		}
		stdout, stderr, code := run(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", b, code, stderr)
		}
		var got []map[string]any
		sc := bufio.NewScanner(strings.NewReader(stdout))
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("%s: line %q: %v", b, sc.Text(), err)
			}
			got = append(got, m)
		}
		if len(got) != 3 {
			t.Fatalf("%s: %d JSON lines, want 3: %s", b, len(got), stdout)
		}
		for i, wantLen := range []float64{42, 45, 0} {
			m := got[i]
			for _, k := range []string{"app", "balancer", "ranks", "world", "seconds", "nodes", "length", "moves", "iterations"} {
				if _, ok := m[k]; !ok {
					t.Errorf("%s: object %d has no %q: %v", b, i, k, m)
				}
			}
			start, err := puzzle.Parse(strings.Fields(m["start"].(string)))
			if err != nil {
				t.Fatal(err)
			}
			var moves []puzzle.Move
			for _, r := range m["moves"].(string) {
				moves = append(moves, puzzle.Move(strings.IndexRune("ULRD", r)))
			}
			end, err := puzzle.ApplyMoves(start, moves)
			if m["length"] != wantLen || len(moves) != int(wantLen) || err != nil || end != puzzle.Goal() ||
				m["app"] != "fifteen" || m["balancer"] != b {
				t.Errorf("%s: object %d: %v", b, i, m)
			}
		}
		if b == "seq" && got[0]["nodes"] != got[0]["table_nodes"] {
			t.Errorf("seq: korf 42: %v nodes, table %v", got[0]["nodes"], got[0]["table_nodes"])
		}
	}
}

// failing is the Fingerprint of a fifteen run (runnertest.Invariant): the
// failing iterations' nodes and certificates, each and together, and the
// solution's length, of every instance printed. The last iteration's nodes
// vary (it stops at the first solution), so the total is left out and the
// run must say that it varies.
func failing(stdout string) (string, error) {
	var fp []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r struct {
			Length       int
			FailingNodes int64 `json:"failing_nodes"`
			Certificate  string
			NodesVary    bool `json:"nodes_vary"`
			Iterations   []struct {
				Threshold   int
				Nodes       int64
				Failed      bool
				Certificate string
			}
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return "", err
		}
		if r.Certificate == "" || !r.NodesVary || len(r.Iterations) < 2 {
			return "", errors.New("no certificate of the failing iterations, or nodes_vary not set: " + line)
		}
		it := ""
		for _, st := range r.Iterations {
			if st.Failed {
				it += " " + strings.Join([]string{strconv.Itoa(st.Threshold), strconv.FormatInt(st.Nodes, 10), st.Certificate}, "/")
			}
		}
		fp = append(fp, fmt.Sprintf("length %d failing %d certificate %s:%s", r.Length, r.FailingNodes, r.Certificate, it))
	}
	return strings.Join(fp, "; "), nil
}

// TestTableMismatch: an answer that disagrees with the table of --data is
// exit status 1 after the answer, said once, naming that table, not Korf's,
// and no rank (it said "fifteen: rank 1: korf 2: ..., Korf's table says
// 53"), in each world.
func TestTableMismatch(t *testing.T) {
	bin := runnertest.Build(t)
	korf, err := os.ReadFile(filepath.Join("puzzle", "korf100.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	row := "\n2\t13\t5\t4\t10\t9\t12\t8\t14\t2\t3\t7\t1\t0\t15\t11\t6\t55\t"
	if !strings.Contains(string(korf), row) {
		t.Fatalf("korf100.tsv has no row 2 of length 55")
	}
	data := writeFile(t, t.TempDir(), "d.tsv", strings.Replace(string(korf), row, strings.Replace(row, "\t55\t", "\t53\t", 1), 1))
	want := "fifteen: korf 2: length 55, the table of --data " + data + " says 53\n"
	for _, world := range [][]string{{"--np", "2"}, {"-b", "seq"}, {"--world", "sim", "--np", "4"}} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"-q", "--korf", "2", "--data", data}, world...)...)
		if code != 1 || !strings.HasPrefix(stdout, "55 ") || stderr != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 1, the answer and %q", world, code, stdout, stderr, want)
		}
	}
}

// TestInvariant is fifteen's row of the conformance table of printed counts
// (runnertest.Invariant, docs/counts.md): the failing iterations of Korf's
// instance 86 (1.1·10⁶ of its 2.3·10⁶ nodes) print the same nodes and
// certificates under seq, every balancer variant on 1, 2, 3, 7 and 64
// ranks of the embedded and the simulated world, and after checkpoints and
// restarts.
func TestInvariant(t *testing.T) {
	runnertest.Invariant(t, runnertest.InProcess("fifteen", newApp), []string{"--korf", "86"}, failing)
}

// TestNear: where splits give work away (--near) changes the order of the
// parallel search, never what the failing iterations count nor the
// solution's length (TestInvariant runs the default levels everywhere).
func TestNear(t *testing.T) {
	exec := runnertest.InProcess("fifteen", newApp)
	fp := func(args ...string) string {
		t.Helper()
		stdout, stderr, code := exec(t, append([]string{"--korf", "86", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		f, err := failing(stdout)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	want := fp("-b", "seq")
	for _, args := range [][]string{
		{"--near", "0", "--np", "3"},
		{"--near", "off", "--np", "7", "-b", "ps"},
		{"--near", "2..12", "--np", "5"},
		{"--near", "0", "--world", "sim", "--np", "64"},
	} {
		if got := fp(args...); got != want {
			t.Errorf("%q: %s, sequential %s", args, got, want)
		}
	}
}
