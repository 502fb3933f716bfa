package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/internal/campaign"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
)

// commands builds the commands the tests run into a temporary directory,
// once per test.
func commands(t *testing.T, apps ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds commands")
	}
	dir := t.TempDir()
	var pkgs []string
	for _, a := range apps {
		pkgs = append(pkgs, "../../apps/"+a)
	}
	if out, err := exec.Command("go", append([]string{"build", "-o", dir + "/"}, pkgs...)...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return dir
}

func runCampaign(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	if err := run(context.Background(), args, strings.NewReader(""), &o, &e); err != nil {
		t.Fatalf("campaign %q: %v\n%s", args, err, e.String())
	}
	return o.String(), e.String()
}

// TestCampaign runs a small campaign with the real golomb command (sim and
// embedded worlds), resumes it, and plots it again from the CSV alone.
func TestCampaign(t *testing.T) {
	dir := commands(t, "golomb")
	csvPath := filepath.Join(dir, "out", "g.csv")
	args := []string{"--bin-dir", dir, "--csv", csvPath, "--world", "sim:unit", "--world", "embedded", "--np", "1..4*2",
		"--balancer", "rp", "--balancer", "rp --fast-init", "--instance", "golomb --count 30 7", "--height", "marks",
		"--jsonl", filepath.Join(dir, "j", "g.jsonl")} // a directory the campaign makes, before its first run
	stdout, stderr := runCampaign(t, args...)
	if b, err := os.ReadFile(filepath.Join(dir, "j", "g.jsonl")); err != nil || bytes.Count(b, []byte("\n")) != 14 {
		t.Errorf("--jsonl: %v, %d lines", err, bytes.Count(b, []byte("\n")))
	}
	// sim: its baseline, 2 balancers × 3 P; embedded: the same.
	if !strings.Contains(stderr, "14 to run") || !strings.Contains(stderr, "run 14 of 14") {
		t.Errorf("progress:\n%s", stderr)
	}
	tab, err := campaign.ReadTable(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 14 {
		t.Fatalf("%d rows", len(tab.Rows))
	}
	for _, c := range []string{"run_world", "run_load_before", "run_warning", "run_cpu_seconds", "rulers", "nodes", "messages.request", "machine.name",
		"speedup", "seq_nodes", "search_overhead", "busy_fraction", "provenance.commit", "provenance.host", "provenance.cpu", "provenance.load"} {
		if tab.Col(c) < 0 {
			t.Errorf("no column %s in %q", c, tab.Columns)
		}
	}
	seq := ""
	for i := range tab.Rows {
		if tab.Get(i, "rulers") == "" || tab.Get(i, "ranks") != tab.Get(i, "run_np") && tab.Get(i, "run_balancer") != "seq" || tab.Get(i, "provenance.host") == "" {
			t.Errorf("row %d: rulers %s, ranks %s, run_np %s", i, tab.Get(i, "rulers"), tab.Get(i, "ranks"), tab.Get(i, "run_np"))
		}
		if tab.Get(i, "run_world") == campaign.SimBaselineWorld {
			seq = tab.Get(i, "nodes")
		}
	}
	// The speedup a simulated run prints is the sequential solver's nodes
	// × the node cost over its virtual time, never its own nodes.
	for i := range tab.Rows {
		if tab.Get(i, "run_world") != "sim:unit" {
			continue
		}
		sp, _ := tab.Float(i, "speedup")
		ns, _ := tab.Float(i, "machine.node_ns")
		vt, _ := tab.Float(i, "virtual_seconds")
		n, _ := strconv.ParseFloat(seq, 64)
		if tab.Get(i, "seq_nodes") != seq || math.Abs(sp-n*ns*1e-9/vt) > 1e-9*sp {
			t.Errorf("row %d: speedup %g, seq_nodes %s; want %s × %g ns / %g s", i, sp, tab.Get(i, "seq_nodes"), seq, ns, vt)
		}
	}
	if !strings.Contains(stdout, "| sim:unit | golomb --count 30 7 | rp --fast-init | 4 | 1 |") || !strings.Contains(stdout, "search overhead") {
		t.Errorf("summary:\n%s", stdout)
	}
	for _, f := range []string{"g-speedup.png", "g-speedup.svg", "g-seqtime.png", "g-messages.svg", "g-summary.csv"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Error(err)
		}
	}
	_, stderr = runCampaign(t, args...)
	if !strings.Contains(stderr, "14 already in") {
		t.Errorf("resume:\n%s", stderr)
	}
	stdout, _ = runCampaign(t, append(args, "--np", "8", "--dry-run")...)
	if strings.Count(stdout, "\n") != 4 || !strings.Contains(stdout, "--world sim --np 8 --machine unit --balancer rp --seed 1 --seq-nodes "+seq+" --count 30 7") {
		t.Errorf("dry run:\n%s", stdout)
	}
	runCampaign(t, "--csv", csvPath, "--plot-only", "--plots", filepath.Join(dir, "plots", "again"))
	if _, err := os.Stat(filepath.Join(dir, "plots", "again-speedup.png")); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{}, {"--csv", csvPath, "--np", "0"}, {"--csv", csvPath, "--world", "cloud", "--instance", "golomb 7"},
		{"--csv", csvPath, "--instance", "golomb 7", "--balancer", "nosuch", "--bin-dir", dir, "--np", "2", "--world", "sim:unit"}, {"--csv", csvPath, "x"},
		{"--preset", "nosuch"}, {"--preset", "seed003", "--set", "nosuch=1"}, {"--csv", csvPath, "--set", "trials=2"},
		{"--csv", csvPath, "--world", "embedded", "--jobs", "2", "--instance", "golomb 7", "--bin-dir", dir}} {
		if err := run(context.Background(), bad, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestPresets runs three presets small: seed 003's tables (simulated,
// two at once), seed 002 Fig. 4 (generated knapsack instances, real
// ranks) and Fig. 3 (the 15-puzzle's iterations, real ranks).
func TestPresets(t *testing.T) {
	dir := commands(t, "integrate", "knapsack", "fifteen")
	out := filepath.Join(t.TempDir(), "seed003.csv")
	stdout, _ := runCampaign(t, "--preset", "seed003", "--bin-dir", dir, "--csv", out, "--np", "8", "--set", "trials=2", "--set", "alphas=0.96",
		"--set", "thetas=1e-6", "--set", "rules=relative")
	for _, want := range []string{"## Table 1: α-trees", "## Table 2: random polynomials, relative rule", "12.46", "18.82", "not p < .001"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("seed003 without %q:\n%s", want, stdout)
		}
	}
	if tab, err := campaign.ReadTable(out); err != nil || len(tab.Rows) != 8 {
		t.Errorf("seed003: %v, %d rows", err, len(tab.Rows))
	}

	out = filepath.Join(t.TempDir(), "fig4.csv")
	stdout, _ = runCampaign(t, "--preset", "knapsack-fig4", "--bin-dir", dir, "--csv", out, "--set", "instances=200:1,3", "--repeats", "1")
	tab, err := campaign.ReadTable(out)
	if err != nil || len(tab.Rows) != 4 {
		t.Fatalf("fig4: %v, %d rows", err, len(tab.Rows))
	}
	if c := tab.Get(1, "run_command"); !strings.HasSuffix(c, "--search hs <(knapsack gen --class sanders -m 200 --seed 1)") {
		t.Errorf("fig4: command %q", c)
	}
	if !strings.Contains(stdout, "By sequential time of the instance") {
		t.Errorf("fig4 summary:\n%s", stdout)
	}

	out = filepath.Join(t.TempDir(), "fig3.csv")
	stdout, _ = runCampaign(t, "--preset", "fifteen-fig3", "--bin-dir", dir, "--csv", out, "--set", "korf=12", "--repeats", "1", "--balancer", "rp")
	if !strings.Contains(stdout, "By sequential time of the failing iteration") {
		t.Errorf("fig3 summary:\n%s", stdout)
	}
	if _, err := os.Stat(strings.TrimSuffix(out, ".csv") + "-iterations.png"); err != nil {
		t.Error(err)
	}
}

// TestSpread: medians, minima and maxima of KEY VALUE lines, by gonum.
func TestSpread(t *testing.T) {
	var o bytes.Buffer
	in := "# comment\nrp P=2 3\nseq 1.5\nrp P=2 1\n\nrp P=2 2\nrp P=2 10\n"
	if err := run(context.Background(), []string{"--spread"}, strings.NewReader(in), &o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if want := "rp P=2\t4\t2\t1\t10\nseq\t1\t1.5\t1.5\t1.5\n"; o.String() != want {
		t.Errorf("-spread:\n%q\nwant\n%q", o.String(), want)
	}
	for _, bad := range []string{"x y\n", "a NaN\na 1\na 2\n", "a +Inf\n"} { // NaN was left out of the count
		if err := run(context.Background(), []string{"--spread"}, strings.NewReader(bad), &o, &bytes.Buffer{}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestMedianMachine: --median-machine prints the median of the models in
// the files named, as JSON that the commands' --machine loads, and fails
// on a missing or malformed file.
func TestMedianMachine(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, ns := range []string{"16", "20", "17"} {
		f := filepath.Join(dir, fmt.Sprintf("m%d.json", i))
		if err := os.WriteFile(f, []byte(`{"name": "calibrated-embedded", "node_ns": `+ns+`, "overhead_ns": 0, "latency_ns": 50, "gap_ns": 0, "byte_ns": 1}`), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	var o bytes.Buffer
	if err := run(context.Background(), append([]string{"--median-machine"}, files...), strings.NewReader(""), &o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	m, err := lb.ParseMachine(o.Bytes())
	if err != nil || m.NodeNS != 17 || m.LatencyNS != 50 || m.Name != "calibrated-embedded" {
		t.Errorf("--median-machine: %+v, %v\n%s", m, err, o.String())
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"node_ns": "fast"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its files are its input: an error in them is bad input (exit 2).
	for _, args := range [][]string{{}, {filepath.Join(dir, "none.json")}, {files[0], bad}} {
		var ue *runner.UsageError
		if err := run(context.Background(), append([]string{"--median-machine"}, args...), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); !errors.As(err, &ue) {
			t.Errorf("--median-machine %q: %v, want a usage error", args, err)
		}
	}
}

// TestHelp: the runner's help names its flags as every treelb command
// does, with two dashes, and one dash works as well.
func TestHelp(t *testing.T) {
	var e bytes.Buffer
	err := run(context.Background(), []string{"--help"}, strings.NewReader(""), &e, &bytes.Buffer{})
	if err == nil || !strings.Contains(e.String(), "  --csv FILE") || !strings.Contains(e.String(), "  --preset string") ||
		strings.Contains(e.String(), "\n  -csv") || !strings.Contains(e.String(), "exit status: 0 on success; 1 when a run failed") {
		t.Errorf("--help, on stdout: %v\n%s", err, e.String())
	}
	e.Reset()
	for _, v := range []string{"--version", "-v"} { // -v as in every command
		e.Reset()
		if err := run(context.Background(), []string{v}, strings.NewReader(""), &e, &bytes.Buffer{}); err != nil || !strings.HasPrefix(e.String(), "campaign version treelb ") {
			t.Errorf("%s: %v, %q", v, err, e.String())
		}
	}
	// A negative --timeout, and a --bin-dir that is not there, are refused
	// before anything runs.
	for _, args := range [][]string{{"--timeout", "-5s"}, {"--bin-dir", filepath.Join(t.TempDir(), "none")}} {
		var ue *runner.UsageError
		err := run(context.Background(), append([]string{"--csv", filepath.Join(t.TempDir(), "x.csv"), "--instance", "golomb 6", "--plots", "none"}, args...),
			strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%q: %v, want a usage error naming %s", args, err, args[0])
		}
	}
	// dht runs no search: refused before anything runs.
	err = run(context.Background(), []string{"--csv", filepath.Join(t.TempDir(), "d.csv"), "--world", "embedded", "--instance", "dht --rounds 1", "--plots", "none"},
		strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "dht is not a search") {
		t.Errorf("a dht instance: %v", err)
	}
	var o bytes.Buffer
	for _, arg := range []string{"-spread", "--spread"} {
		o.Reset()
		if err := run(context.Background(), []string{arg}, strings.NewReader("k 1\n"), &o, &bytes.Buffer{}); err != nil || o.String() != "k\t1\t1\t1\t1\n" {
			t.Errorf("%s: %q, %v", arg, o.String(), err)
		}
	}
}

// fullWriter fails every write, as /dev/full does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestExitCode: bad flags and arguments exit 2, output that cannot be
// written 74 (with the message on stderr), as every treelb command does.
// A --csv that is no regular file (a directory, /dev/null, which a
// campaign replaced with a regular file when run as root) is refused
// before anything is read or written.
func TestExitCode(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "c.csv")
	dev := filepath.Join(filepath.Dir(csv), "null") // a /dev/null of the test's own (mknod as root)
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Logf("no character device (%v): that case is skipped", err)
		dev = ""
	}
	foreign := filepath.Join(filepath.Dir(csv), "foreign.csv")
	if err := os.WriteFile(foreign, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		out  io.Writer
		code int
		msg  string
	}{
		// A CSV of something else: one line, bad input (it was exit 1 and a line per missing column).
		{[]string{"--csv", foreign, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "not a campaign's CSV: row 1: no column run_world\n"},
		{[]string{"--version"}, &bytes.Buffer{}, 0, ""},
		{[]string{"--bogus"}, &bytes.Buffer{}, 2, "bogus"},
		{[]string{"--preset", "nope"}, &bytes.Buffer{}, 2, "nope"},
		{[]string{"--np", "x", "--csv", csv}, &bytes.Buffer{}, 2, "--np"},
		{[]string{"--seeds", "1-", "--csv", csv}, &bytes.Buffer{}, 2, "--seeds"},
		{[]string{"--set", "a=b", "--csv", csv}, &bytes.Buffer{}, 2, "--set"},
		{[]string{"extra"}, &bytes.Buffer{}, 2, "unexpected"},
		{[]string{"--np", "0", "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "P = 0"},
		// Checked before anything runs (they failed at a run, or passed a dry run).
		{[]string{"--np", "100000000", "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "need 1 to 65536 ranks"},
		{[]string{"--world", "mpi", "--launcher", "mpirun -np 2", "--np", "2", "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "no {np}"},
		{[]string{"--preset", "validate", "--balancer", "rpx", "--csv", csv, "--dry-run"}, &bytes.Buffer{}, 2, `balancer "rpx"`},
		{[]string{"--preset", "validate", "--balancer", "seq", "--np", "4", "--csv", csv, "--dry-run"}, &bytes.Buffer{}, 2, "the sequential solver runs on one rank"},
		{[]string{"--preset", "validate", "--repeats", "100000000", "--csv", csv, "--dry-run"}, &bytes.Buffer{}, 2, "more than 1000000 runs"},
		{[]string{"--world", "sim:" + filepath.Dir(csv), "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "no model"},
		{[]string{"--repeats", "0", "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "repeats"},
		{[]string{"--world", "bogus", "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "bogus"},
		{[]string{"--np", "1-1000000000", "--csv", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "more than"},
		{[]string{"--help"}, fullWriter{}, 74, "writing standard output"},
		{[]string{"--version"}, fullWriter{}, 74, "writing standard output"},
		{[]string{"--csv", csv, "--instance", "golomb 8", "--dry-run"}, fullWriter{}, 74, "writing standard output"},
		{[]string{"--csv", filepath.Dir(csv), "--plot-only"}, &bytes.Buffer{}, 2, "a directory, not a CSV file"},
		{[]string{"--csv", dev, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "a character device, not a CSV file"},
		{[]string{"--csv", csv, "--instance", "abc", "--dry-run"}, &bytes.Buffer{}, 2, "no command abc"},
		{[]string{"--csv", csv, "--instance", "golomb 8", "--jobs", "0", "--dry-run"}, &bytes.Buffer{}, 2, "--jobs 0"},
		// A --bin-dir without the commands passed a dry run and failed at the first run.
		{[]string{"--csv", csv, "--instance", "golomb 8", "--bin-dir", filepath.Dir(csv), "--dry-run"}, &bytes.Buffer{}, 2, "no command golomb there"},
		{[]string{"--csv", csv, "--instance", "golomb 8", "--height", "NaN", "--dry-run"}, &bytes.Buffer{}, 2, "--height NaN"},
		{[]string{"--csv", csv, "--instance", "golomb 8", "--inputs", os.Args[0], "--dry-run"}, &bytes.Buffer{}, 2, "a file, not a directory"},
		{[]string{"--csv", csv, "--jsonl", csv, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "is the file of --csv too"},
		{[]string{"--csv", csv, "--jsonl", dev, "--instance", "golomb 8", "--dry-run"}, &bytes.Buffer{}, 2, "a character device, not a file of JSON lines"},
		// The summary, PREFIX-summary.csv, replaced the campaign's rows.
		{[]string{"--csv", filepath.Join(filepath.Dir(csv), "r-summary.csv"), "--plots", filepath.Join(filepath.Dir(csv), "r"), "--plot-only"}, &bytes.Buffer{}, 2, "would replace the campaign's --csv"},
		{[]string{"--csv", csv + ".missing", "--plot-only"}, &bytes.Buffer{}, 2, "no campaign to report"},
		{[]string{"--csv", os.Args[0], "--plot-only"}, &bytes.Buffer{}, 2, ""},
		{[]string{"--repeats", "x"}, &bytes.Buffer{}, 2, `--repeats "x": need an integer`},
		{[]string{"--presett", "x"}, &bytes.Buffer{}, 2, "--presett: no such flag"},
		// A dry run wrote the summary and the plots with --plot-only.
		{[]string{"--csv", csv, "--plot-only", "--dry-run"}, &bytes.Buffer{}, 2, "--dry-run and --plot-only: choose one"},
		// A directory of the plots that takes no file failed after every run (sysfs refuses even root).
		{[]string{"--csv", csv, "--world", "sim:gcel", "--instance", "golomb 8", "--bin-dir", sysBin(t), "--plots", "/sys/p"}, &bytes.Buffer{}, 74, "writing --plots /sys/p"},
	} {
		if slices.Contains(tc.args, "") {
			continue // no device of our own
		}
		var e bytes.Buffer
		if code := exitCode(context.Background(), tc.args, strings.NewReader(""), tc.out, &e); code != tc.code || !strings.Contains(e.String(), tc.msg) {
			t.Errorf("%q: exit %d, %q; want %d and %q", tc.args, code, e.String(), tc.code, tc.msg)
		}
	}
}

// TestCheckBeforeRuns: a balancer option, an instance argument or a
// preset's parameter that the command refuses stops the campaign before
// its first run, with the command's message and exit 2, and leaves no CSV
// (each failed with exit 1 when its first run came, after every run before
// it); a campaign the commands accept runs after its checks.
func TestCheckBeforeRuns(t *testing.T) {
	dir := commands(t, "golomb", "fifteen")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--world", "sim:gcel", "--np", "4", "--balancer", "rp", "--balancer", "rp --bogus", "--instance", "golomb 8"}, "golomb: --bogus: no such flag"},
		{[]string{"--world", "embedded", "--np", "1,2", "--instance", "golomb 8", "--instance", "golomb --bogus 9"}, "golomb: --bogus: no such flag"},
		{[]string{"--world", "sim:gcel", "--np", "4", "--balancer", "rp extra", "--instance", "golomb 8"}, "need exactly one argument, MARKS"},
		{[]string{"--world", "sim:gcel", "--np", "4", "--balancer", "rp --pair-sync", "--instance", "golomb 8"}, "balancer rp does not use it"},
		{[]string{"--preset", "seed002-fifteen-gcel", "--set", "korf=5,101"}, `--korf "101": need an instance 1..100`},
	} {
		csv := filepath.Join(t.TempDir(), "c.csv")
		var e bytes.Buffer
		args := append([]string{"--bin-dir", dir, "--csv", csv}, tc.args...)
		code := exitCode(context.Background(), args, strings.NewReader(""), &bytes.Buffer{}, &e)
		if code != 2 || !strings.Contains(e.String(), tc.msg) || strings.Contains(e.String(), "campaign: run 1 of") {
			t.Errorf("%q: exit %d, %q; want 2 and %q before any run", tc.args, code, e.String(), tc.msg)
		}
		if _, err := os.Stat(csv); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%q: the CSV was written (%v)", tc.args, err)
		}
	}
	csv := filepath.Join(t.TempDir(), "c.csv")
	_, stderr := runCampaign(t, "--bin-dir", dir, "--csv", csv, "--world", "sim:gcel", "--np", "4,8", "--seeds", "1-3",
		"--balancer", "rp", "--balancer", "rp --fast-init", "--instance", "golomb 8")
	// Seeds aside, four parallel command lines and the baseline.
	if !strings.Contains(stderr, "campaign: 5 command lines checked (--check)") || !strings.Contains(stderr, "holds 13 rows") {
		t.Errorf("stderr %q: want 5 command lines checked and 13 rows", stderr)
	}
}

// sysBin returns a directory with a golomb command that must never run
// (the campaign refuses before), or "" (the case is skipped) where /sys
// is not sysfs.
func sysBin(t *testing.T) string {
	if st, err := os.Stat("/sys/kernel"); err != nil || !st.IsDir() {
		return ""
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "golomb"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestLockCSV: a second campaign on a CSV that one is writing stops at
// once with a usage error naming the holder (two at once lost each other's
// rows); the lock goes with its holder.
func TestLockCSV(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "c.csv")
	unlock, err := lockCSV(csv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = lockCSV(csv)
	var ue *runner.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), fmt.Sprintf("another campaign is writing it (pid %d holds", os.Getpid())) {
		t.Errorf("a second lock: %v", err)
	}
	unlock()
	unlock, err = lockCSV(csv)
	if err != nil {
		t.Errorf("after unlock: %v", err)
	} else {
		unlock()
	}
}

// TestSymlinkCSV: a --csv that is a symbolic link is written through it
// (the rename of a rewrite replaced the link with a file of its own).
func TestSymlinkCSV(t *testing.T) {
	dir := commands(t, "golomb")
	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	runCampaign(t, "--bin-dir", dir, "--csv", link, "--world", "sim:unit", "--np", "2", "--instance", "golomb 6", "--plots", "none")
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link: %v, %v", st, err)
	}
	if tab, err := campaign.ReadTable(target); err != nil || len(tab.Rows) != 2 {
		t.Errorf("the target: %v, %v", tab, err)
	}
}

// TestSignals: SIGINT or SIGTERM ends the runner at once, with 128 + the
// signal's number, when no run is under way (it waited on --spread's input
// for ever once the handler only cancelled the runs), and ends the run
// under way first (SIGTERM to it: no command left running).
func TestSignals(t *testing.T) {
	dir := commands(t, "golomb")
	if out, err := exec.Command("go", "build", "-o", dir+"/", ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGINT, []string{"--spread"}},
		{syscall.SIGTERM, []string{"--spread"}},
		{syscall.SIGTERM, []string{"--bin-dir", dir, "--np", "1", "--world", "embedded", "--instance", "golomb 14", "--csv", filepath.Join(dir, "s.csv")}},
	} {
		cmd := exec.Command(filepath.Join(dir, "campaign"), tc.args...)
		stdin, err := cmd.StdinPipe() // open, never written: --spread waits
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer // written by exec's copying goroutine
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		if tc.args[0] != "--spread" { // wait for the run to start
			for i := 0; i < 100 && !strings.Contains(stderr.String(), "run 1 of"); i++ {
				time.Sleep(50 * time.Millisecond)
			}
		}
		start := time.Now()
		cmd.Process.Signal(tc.sig)
		err = cmd.Wait()
		stdin.Close()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(tc.sig) || time.Since(start) > 5*time.Second {
			t.Errorf("%v %q: %v after %v; want exit status %d at once\n%s", tc.sig, tc.args, err, time.Since(start), 128+int(tc.sig), stderr.String())
		}
	}
	if out, err := exec.Command("pgrep", "-f", filepath.Join(dir, "golomb")).Output(); err == nil {
		t.Errorf("a command left running: %s", out)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
