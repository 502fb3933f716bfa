package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// TestCommand builds golomb and runs it as a user would: the answer, one
// node count per run (the header's equals the statistics' total), flags
// before or after the argument, the worlds, and exit status 2 with a
// message for every kind of bad input.
func TestCommand(t *testing.T) {
	bin := runnertest.Build(t)
	run := func(args ...string) (string, string, int) { return runnertest.Run(t, bin, args...) }

	for _, args := range [][]string{
		{"--json", "--stats", "--np", "3", "10"},
		{"10", "--np", "3", "--stats", "--json"},
		{"--json", "--stats", "--np", "64", "--world", "sim", "-b", "koso", "10"},
		{"--json", "--stats", "-b", "seq", "10"},
	} {
		stdout, stderr, code := run(args...)
		if code != 0 {
			t.Fatalf("golomb %q: exit %d: %s", args, code, stderr)
		}
		var out struct {
			App, Balancer, World string
			Ranks                int
			Length, Marks        int
			Nodes                int64
			Ruler                []int
			Stats                *struct{ Total struct{ Nodes int64 } }
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("golomb %q: %v\n%s", args, err, stdout)
		}
		if out.App != "golomb" || out.Marks != 10 || out.Length != 55 || len(out.Ruler) != 10 || out.Nodes <= 0 {
			t.Errorf("golomb %q: %+v", args, out)
		}
		if out.Balancer != "seq" && (out.Stats == nil || out.Stats.Total.Nodes != out.Nodes) {
			t.Errorf("golomb %q: %d nodes, statistics %+v", args, out.Nodes, out.Stats)
		}
	}
	if stdout, _, code := run("-q", "--count", "60", "9", "--np", "2"); code != 0 || stdout != "97759\n" {
		t.Errorf("--count 60 9: exit %d, output %q", code, stdout)
	}
	proveBounds(t, run)
	simulated(t, run)
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "exactly one argument"},
		{[]string{"1"}, "from 2 to"},
		{[]string{"x"}, "from 2 to"},
		{[]string{"9", "10"}, "exactly one argument"},
		{[]string{"--count", "0", "9"}, "--count 0"},
		{[]string{"--prove-bounds", "9"}, "only with --count"},
		{[]string{"-b", "nope", "9"}, "unknown balancer"},
		{[]string{"9", "--bogus"}, "--bogus: no such flag"},
		{[]string{"9", "--np"}, "--np: needs a value"}, // not "need exactly one argument": the 9 is not --np's
		{[]string{"9", "--np", "abc"}, `--np "abc": need an integer`},
		{[]string{"9", "-b", "rp-local", "--growth", "1"}, "--growth 1: need a factor"},
		{[]string{"9", "-b", "koso", "--pair-sync"}, "does not use it"},
		{[]string{"9", "-b", "static", "--levels", "40"}, "split levels"},
		{[]string{"9", "--np", "100000"}, "--np"},
		{[]string{"9", "--world", "sim", "--np", "0"}, "--np"},
		{[]string{"9", "--world", "sim", "--np", "65537"}, "--np"},
		{[]string{"9", "--world", "sim", "--machine", "cray"}, "unknown"},
		{[]string{"9", "--world", "sim", "--node-ns", "-1"}, "node-ns"},
		{[]string{"9", "--world", "sim", "--machine", "gcel", "--hop-ns", "-3"}, "hop-ns"},
		{[]string{"9", "--world", "sim", "--mesh", "-1"}, "mesh"},
		{[]string{"9", "--world", "sim", "--latency-ns", "NaN"}, "latency-ns"},
		{[]string{"9", "--world", "sim", "--calibrate", "--node-ns", "3"}, "--calibrate"},
		{[]string{"9", "--machine", "gcel"}, "only with --world sim"},
		{[]string{"9", "--world", "sim", "--max-events", "-1"}, "--max-events"},
	} {
		stdout, stderr, code := run(c.args...)
		if code != 2 || !strings.HasPrefix(stderr, "golomb: ") || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("golomb %q: exit %d, stderr %q, stdout %q; want exit 2 and %q", c.args, code, stderr, stdout, c.want)
		}
	}
	// Progress lines end with the node count of the report.
	stdout, stderr, code := run("--progress", "--np", "2", "--json", "11")
	var out struct{ Nodes int64 }
	if code != 0 || json.Unmarshal([]byte(stdout), &out) != nil {
		t.Fatalf("--progress: exit %d\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, fmt.Sprintf("] nodes %d (", out.Nodes)) {
		t.Errorf("--progress: last line %q, want the report's %d nodes", last, out.Nodes)
	}
	if _, stderr, _ := run("-q", "--np", "2", "11"); stderr != "" {
		t.Errorf("-q: stderr %q", stderr)
	}
	if stdout, _, code := run("--help"); code != 0 || !strings.Contains(stdout, "--count") || !strings.Contains(stdout, "--world") || !strings.Contains(stdout, "Exit status") || !strings.Contains(stdout, "2 to 19") {
		t.Errorf("--help: exit %d\n%s", code, stdout)
	}
	if stdout, _, code := run("--version"); code != 0 || !strings.Contains(stdout, "mpi library") {
		t.Errorf("--version: exit %d\n%s", code, stdout)
	}
}

// proveBounds: a count takes its bounds from the table of known rulers and
// its nodes are the counting search's alone; with --prove-bounds the steps
// of the shorter rulers run first, reported apart, and the count's nodes
// and certificate are the same. A search for a shortest ruler says that
// its nodes vary; a count gives a certificate.
func proveBounds(t *testing.T, run func(args ...string) (string, string, int)) {
	t.Helper()
	type record struct {
		Nodes, Rulers int64
		Certificate   string
		NodesVary     bool `json:"nodes_vary"`
		Bounds        string
		Steps         []struct{ Marks int }
	}
	decode := func(args ...string) record {
		t.Helper()
		stdout, stderr, code := run(args...)
		var r record
		if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil {
			t.Fatalf("golomb %q: exit %d: %s%s", args, code, stdout, stderr)
		}
		return r
	}
	table := decode("--json", "--count", "60", "9", "-b", "seq")
	proved := decode("--json", "--count", "60", "9", "--np", "3", "--prove-bounds")
	if table.Bounds != "table" || len(table.Steps) != 0 || table.NodesVary || len(table.Certificate) != 16 || table.Rulers != 97759 {
		t.Errorf("--count 60 9: %+v", table)
	}
	if proved.Bounds != "proved" || len(proved.Steps) != 8 || proved.Nodes != table.Nodes || proved.Certificate != table.Certificate {
		t.Errorf("--prove-bounds: %+v; without: %+v", proved, table)
	}
	if other := decode("--json", "--count", "61", "9", "-b", "seq"); other.Certificate == table.Certificate {
		t.Errorf("--count 61 9 has the certificate of --count 60 9: %s", other.Certificate)
	}
	if r := decode("--json", "9", "--np", "2"); !r.NodesVary || r.Certificate != "" {
		t.Errorf("shortest 9-mark ruler: %+v", r)
	}
	// A count of none still says so: "rulers": 0, not a missing key.
	if stdout, _, code := run("--json", "--count", "43", "9", "-b", "seq"); code != 0 || !strings.Contains(stdout, `"rulers":0`) {
		t.Errorf("--count 43 9 (no ruler): exit %d, no \"rulers\":0 in %s", code, stdout)
	}
}

// simulated runs golomb in the simulated world: the count equals the
// sequential one with the simulator's figures in the JSON on every machine
// model, the trace file has a row per step, and --machine help lists the
// models.
func simulated(t *testing.T, run func(args ...string) (string, string, int)) {
	t.Helper()
	trace := filepath.Join(t.TempDir(), "busy.csv")
	seqOut, stderr, code := run("--json", "-b", "seq", "--count", "60", "9")
	var seq struct{ Nodes int64 }
	if err := json.Unmarshal([]byte(seqOut), &seq); code != 0 || err != nil || seq.Nodes <= 0 {
		t.Fatalf("golomb -b seq --count 60 9: exit %d, %v: %s%s", code, err, seqOut, stderr)
	}
	seqNodes := strconv.FormatInt(seq.Nodes, 10)
	for _, m := range []string{"cluster", "gcel", "unit", "test"} {
		args := []string{"--json", "--world", "sim", "--np", "1024", "--machine", m, "--count", "60", "9", "--trace", trace, "--seq-nodes", seqNodes}
		if m == "unit" {
			args = append(args, "--budget", "10") // 10 steps per slice
		}
		stdout, stderr, code := run(args...)
		if code != 0 {
			t.Fatalf("golomb %q: exit %d: %s", args, code, stderr)
		}
		var out struct {
			World    string
			Ranks    int
			Rulers   int64
			Nodes    int64
			Messages map[string]int64
			Machine  struct {
				Name   string
				NodeNS float64 `json:"node_ns"`
			}
			VirtualSeconds     float64 `json:"virtual_seconds"`
			WorkVirtualSeconds float64 `json:"work_virtual_seconds"`
			SeqNodes           int64   `json:"seq_nodes"`
			SeqVirtualSeconds  float64 `json:"seq_virtual_seconds"`
			Speedup            float64
			Efficiency         float64
			SearchOverhead     float64 `json:"search_overhead"`
			BusyFraction       float64 `json:"busy_fraction"`
			Events             int64
		}
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("golomb %q: %v\n%s", args, err, stdout)
		}
		if out.World != "sim" || out.Ranks != 1024 || out.Rulers != 97759 || out.Machine.Name != m || out.Events <= 0 ||
			out.VirtualSeconds <= 0 || out.Speedup <= 1 || out.SeqNodes != seq.Nodes ||
			math.Abs(out.SeqVirtualSeconds-float64(seq.Nodes)*out.Machine.NodeNS/1e9) > 1e-9*out.SeqVirtualSeconds ||
			math.Abs(out.Speedup*out.VirtualSeconds-out.SeqVirtualSeconds) > 1e-9*out.SeqVirtualSeconds ||
			math.Abs(out.SearchOverhead*out.SeqVirtualSeconds-out.WorkVirtualSeconds) > 1e-9*out.WorkVirtualSeconds ||
			math.Abs(out.Efficiency-out.Speedup/1024) > 1e-9 || out.BusyFraction <= 0 || out.BusyFraction > 1 || out.Messages["request"] == 0 {
			t.Errorf("golomb %q: %s", args, stdout)
		}
		data, err := os.ReadFile(trace)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if err != nil || len(lines) < 10 || lines[0] != "run,start_seconds,end_seconds,busy_ranks,busy_fraction,queued_tasks" {
			t.Errorf("golomb %q: trace %v: %q", args, err, lines[:min(len(lines), 3)])
		}
	}
	// The trace file is written whole through a temporary file: a symbolic
	// link at its path is replaced, its target untouched, and the file has
	// one header and the run's rows.
	victim := filepath.Join(filepath.Dir(trace), "victim.txt")
	link := filepath.Join(filepath.Dir(trace), "link.csv")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run("--world", "sim", "--np", "4", "-q", "--trace", link, "9"); code != 0 {
		t.Fatalf("--trace through a link: exit %d: %s", code, stderr)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep\n" {
		t.Errorf("--trace wrote through the symbolic link into its target: %q %v", b, err)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
		t.Errorf("--trace at a link's path: %v %v, want a regular file of mode 0644", st.Mode(), err)
	}
	if b, err := os.ReadFile(link); err != nil || strings.Count(string(b), "run,start_seconds") != 1 || strings.Count(string(b), "\n1,") < 10 {
		t.Errorf("--trace of golomb 9: one header and the run's rows wanted, got %v and %.200q", err, b)
	}
	if stdout, _, code := run("--world", "sim", "--machine", "help"); code != 0 || !strings.Contains(stdout, "gcel") || !strings.Contains(stdout, "hop-ns") {
		t.Errorf("--machine help: exit %d\n%s", code, stdout)
	}
	// --max-nodes below the first steps' nodes stops a later step at its
	// start: the message and the record give the run's nodes, not only the
	// 0 of the step in progress.
	stdout, stderr, code := run("--world", "sim", "--np", "4", "--max-nodes", "50000", "--json", "11")
	var stop struct {
		RunNodes int64 `json:"run_nodes"`
	}
	if code != runner.ExitLimit || !strings.Contains(stderr, "nodes of this run") || json.Unmarshal([]byte(stdout), &stop) != nil || stop.RunNodes < 50000 {
		t.Errorf("--max-nodes 50000 on 11 marks: exit %d, %q, %q; want %d, the run's nodes", code, stdout, stderr, runner.ExitLimit)
	}
}

// TestLongSearchWarning: 17 marks and more get a warning on stderr, with a
// rough duration, before the search starts (issue 15.4); 16 marks do not.
// --max-nodes stops each run at once (a search of hours otherwise: these
// runs took 3 s of both cores each when the test killed them instead).
func TestLongSearchWarning(t *testing.T) {
	bin := runnertest.Build(t)
	for _, c := range []struct {
		marks string
		want  []string
	}{
		{"17", []string{"golomb: warning: 17 marks is a very long search", "days of CPU time", "on 3 ranks"}},
		{"19", []string{"19 marks", "260 days of CPU time"}},
		{"16", nil},
	} {
		cmd := exec.Command(bin, "--np", "3", "-q", "--max-nodes", "200000", c.marks)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != runner.ExitLimit {
			t.Fatalf("golomb --max-nodes 200000 %s: %v, want exit status %d (stopped at the limit, a search of hours)", c.marks, err, runner.ExitLimit)
		}
		got := stderr.String()
		if c.want == nil && strings.Contains(got, "warning") {
			t.Errorf("golomb %s: stderr %q, want no warning", c.marks, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("golomb %s: stderr %q lacks %q", c.marks, got, w)
			}
		}
	}
}

// TestInvariant is golomb's row of the conformance table of printed counts
// (runnertest.Invariant, docs/counts.md): --count prints the same nodes and
// certificate under seq, every balancer variant on 1, 2, 3, 7 and 64
// ranks of the embedded and the simulated world, and after checkpoints and
// restarts on other rank counts and worlds.
func TestInvariant(t *testing.T) {
	runnertest.Invariant(t, runnertest.InProcess("golomb", newApp), []string{"--count", "50", "9"}, runnertest.NodesAndCertificate)
}
