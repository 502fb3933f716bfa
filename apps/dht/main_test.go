package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/hashtable"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
	"github.com/treelb/treelb/version"
)

// run runs the command in process as Main would and returns its output and
// an error for a non-zero exit status.
func run(args ...string) (string, error) {
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	if code := runner.Execute(app, append([]string{"dht"}, args...)); code != 0 {
		return out.String(), exitError(code)
	}
	return out.String(), nil
}

// exitError is a non-zero exit status.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }
func (e exitError) ExitCode() int { return int(e) }

func TestRounds(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("the command tests start their own embedded worlds")
	}
	out, err := run("--np", "3", "-Q", "8", "--rounds", "2", "--alloc", "modular", "--stats")
	if err != nil || !strings.Contains(out, "overall") || !strings.Contains(out, "rank") {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = run("--np", "2", "--rounds", "1", "--json")
	var s struct {
		App     string   `json:"app"`     // as every command's record says
		Ranks   int      `json:"ranks"`   // the number of ranks, as every command's
		Seconds *float64 `json:"seconds"` // the run's time, as every command's
		hashtable.Summary
		Stats *struct {
			Ranks []struct {
				Rank    *int                         `json:"rank"`
				Seconds [hashtable.NumPhases]float64 `json:"seconds"`
				Ops     [hashtable.NumPhases]int64   `json:"ops"`
			} `json:"ranks"`
		} `json:"stats"`
	}
	if err != nil || json.Unmarshal([]byte(out), &s) != nil || s.App != "dht" || s.Ranks != 2 || s.P != 2 || len(s.Phases) != 4 || s.Stats != nil ||
		s.Seconds == nil || *s.Seconds <= 0 || s.Overall.Time <= 0 || s.Overall.OpsPerSec <= 0 {
		t.Fatalf("%v\n%s", err, out)
	}
	// With --stats, every rank's record, under stats.ranks as in every
	// command's JSON, each with its rank.
	out, err = run("--np", "2", "--rounds", "1", "--json", "--stats")
	if err != nil || json.Unmarshal([]byte(out), &s) != nil || s.Ranks != 2 || s.Stats == nil || len(s.Stats.Ranks) != 2 {
		t.Fatalf("--stats: %v\n%s", err, out)
	}
	for i, r := range s.Stats.Ranks {
		if r.Rank == nil || *r.Rank != i || r.Ops[0] <= 0 || r.Seconds[0] <= 0 {
			t.Errorf("--stats: rank %d's record %+v", i, r)
		}
	}
	out, err = run("--np", "2", "--rounds", "1", "-q")
	if err != nil || !strings.HasPrefix(out, "eta=") {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestSim(t *testing.T) {
	dir := t.TempDir()
	// An --out that cannot be a directory is refused before the simulation.
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// (Under mpirun only task 0 prints the message.)
	if out, err := run("sim", "--max-p", "16", "--runs", "2", "--table-runs", "0", "-q", "--out", notDir); err != exitError(2) ||
		mpi.WorldName == "embedded" && !strings.Contains(out, "--out") {
		t.Errorf("--out a regular file: %v, %q; want exit 2 naming --out", err, out)
	}
	out, err := run("sim", "--max-p", "16", "--runs", "5", "--table-runs", "0", "--out", dir)
	if err != nil || !strings.Contains(out, "Fig. 1 (c)") {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"fig1.csv", "fig1.png"} {
		// Written as any file the user creates: 0644, not CreateTemp's 0600.
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		} else if st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want 0644", f, st.Mode().Perm())
		}
	}
	checkStamped(t, filepath.Join(dir, "fig1.csv"))
}

// checkStamped fails t unless every row of the CSV file has the
// provenance columns, with this build's commit.
func checkStamped(t *testing.T, path string) {
	t.Helper()
	rows := runnertest.ReadCSV(t, path)
	names, values := version.Collect("").Columns()
	k := len(rows[0]) - len(names)
	if k < 1 || strings.Join(rows[0][k:], ",") != strings.Join(names, ",") {
		t.Fatalf("%s: header %q lacks the provenance columns", path, rows[0])
	}
	for _, r := range rows[1:] {
		if r[k+1] != values[1] || r[k+8] != "none" {
			t.Errorf("%s: row %q: commit %q world %q", path, r, r[k+1], r[k+8])
		}
	}
}

func TestBadInput(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("the command tests start their own embedded worlds; scripts/mpi-test.sh runs the command under mpirun")
	}
	for _, args := range [][]string{
		{"-Q", "0"}, {"--alpha", "-1"}, {"--beta", "-0.5"}, {"--beta", "0"}, {"--alloc", "cyclic"}, {"--rounds", "0"},
		{"--np", "0"}, {"surplus"}, {"sim", "--runs", "1"}, {"sim", "--model", "gauss"}, {"sim", "--alpha", "-4"},
		{"sim", "--max-p", "2"}, {"sim", "--table-runs", "10"}, {"sim", "--alpha", "0"}, {"sim", "--beta", "0"},
		{"sim", "--bogus"}, {"-Q", "2000000000000", "--np", "2"}, {"--alpha", "1e9", "--np", "2"},
		{"--np", "65536", "-Q", "1"}, // 2 TB of per-rank arrays of P entries: refused, not started
		// --workers 9223372036854775807 grew to 9 GB in 30 s.
		{"sim", "--workers", "9223372036854775807"}, {"sim", "--workers", "-1"},
	} {
		out, err := run(args...)
		var ec mpi.ExitCoder
		if !errors.As(err, &ec) || ec.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit code 2", args, err)
		} else if flag := firstFlag(args); flag != "" && !strings.Contains(out, flag) {
			t.Errorf("%q: %q: want the message to name %s", args, out, flag)
		}
	}
	// The reason fits the bound that was missed (--beta 1001 gave beta =
	// 0's).
	for _, args := range [][]string{{"--beta", "1001", "--np", "2"}, {"sim", "--beta", "1001"}, {"sim", "--alpha", "1001"}} {
		if out, _ := run(args...); !strings.Contains(out, "at most 1000") || strings.Contains(out, "= 0") {
			t.Errorf("%q: %q: want the upper bound's reason", args, out)
		}
	}
	// A mistyped command is named as one, with the commands there are.
	if out, _ := run("simm"); !strings.Contains(out, `"simm": no such command (the commands: sim, mesh)`) {
		t.Errorf("simm: %q, want the commands named", out)
	}
}

// firstFlag returns the first flag of args ("-Q", "--alpha"), "" for none.
func firstFlag(args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// TestHelpNamesOwnFlags: dht's help speaks of no flag it refuses (its
// --quiet spoke of --progress, a flag of its subcommands alone).
func TestHelpNamesOwnFlags(t *testing.T) {
	out, err := run("--help")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "--progress") {
		t.Errorf("dht --help speaks of --progress, which dht refuses:\n%s", out)
	}
	if _, err := run("--progress"); err == nil {
		t.Errorf("dht --progress ran: the test's premise is gone")
	}
}

// TestCheck: dht takes --check, as every command that runs ranks does (it
// had none).
func TestCheck(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("the command tests start their own embedded worlds; scripts/mpi-test.sh runs --check under mpirun")
	}
	if out, err := run("--check", "--np", "2"); err != nil || !strings.Contains(out, "--check: the command line and the instance are good") {
		t.Errorf("dht --check: %v, %q", err, out)
	}
	if out, err := run("--check", "-Q", "0"); err == nil || !strings.Contains(out, "-Q") {
		t.Errorf("dht --check -Q 0: %v, %q; want the run's refusal", err, out)
	}
}
