package campaign

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// committedCheck are the columns of a simulated run that its command must
// print again, to the digit: virtual time is deterministic.
var committedCheck = []string{"nodes", "virtual_seconds", "events"}

// TestCommittedSimulations reruns, from every committed campaign CSV under
// results/ that holds simulated parallel runs, the cheapest of them (at
// most a few seconds) with the commands built from this tree, and compares
// its nodes, virtual seconds and events with the committed row: a change
// that moves the simulator's figures must regenerate the results it moves
// (a helper found two results whose figures no longer came out of their
// commands, 2026-11-27). A result whose README explains a drift instead is
// listed in results/drift.tsv (its CSV, the commit that moved it, why);
// such a CSV must differ, so that a regenerated one leaves the list.
func TestCommittedSimulations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands and reruns committed simulations")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	drift := readDrift(t, filepath.Join(root, "results", "drift.tsv"))
	var csvs []string
	err = filepath.WalkDir(filepath.Join(root, "results"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".csv") && !strings.HasSuffix(p, "-summary.csv") {
			csvs = append(csvs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+"/", "./apps/golomb", "./apps/fifteen", "./apps/uts", "./apps/integrate", "./apps/knapsack")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	checked := 0
	for _, path := range csvs {
		rel, _ := filepath.Rel(root, path)
		tab, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		i, cmd := cheapestSimulated(tab, filepath.Dir(path))
		_, drifted := drift[rel]
		delete(drift, rel)
		if i < 0 {
			if drifted {
				t.Errorf("%s is in results/drift.tsv but has no simulated run this test reruns", rel)
			}
			if hasSimulated(tab) {
				t.Logf("%s: not checked: every simulated parallel run took more than 5 s", rel)
			}
			continue
		}
		checked++
		sh := exec.Command("bash", "-c", cmd)
		sh.Dir = root
		sh.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		var stderr bytes.Buffer
		sh.Stderr = &stderr
		out, err := sh.Output()
		if err != nil {
			t.Errorf("%s: %s: %v\n%s", rel, cmd, err, stderr.String())
			continue
		}
		fields, err := Flatten(out)
		if err != nil {
			t.Errorf("%s: %s: %v", rel, cmd, err)
			continue
		}
		var diffs []string
		for _, c := range committedCheck {
			want := tab.Get(i, c)
			k := slices.IndexFunc(fields, func(f Field) bool { return f.Name == c })
			if k < 0 || fields[k].Value != want {
				got := "(none)"
				if k >= 0 {
					got = fields[k].Value
				}
				diffs = append(diffs, fmt.Sprintf("%s %s committed, %s now", c, want, got))
			}
		}
		switch {
		case len(diffs) > 0 && !drifted:
			t.Errorf("%s: the committed figures no longer come out of the command (regenerate the result, or explain the drift in its README and list it in results/drift.tsv): %s: %s",
				rel, cmd, strings.Join(diffs, "; "))
		case len(diffs) == 0 && drifted:
			t.Errorf("%s: listed in results/drift.tsv, but its figures come out of its command again: take it off the list", rel)
		case drifted:
			t.Logf("%s: %s: drifted, as results/drift.tsv says: %s", rel, cmd, strings.Join(diffs, "; "))
		default:
			t.Logf("%s: %s: the same", rel, cmd)
		}
	}
	for rel := range drift {
		t.Errorf("results/drift.tsv lists %s, which is not a CSV under results/", rel)
	}
	if checked < 10 {
		t.Errorf("reran %d committed simulations, expected one from each of the dozen or more simulated campaigns", checked)
	}
}

// tmpMachine is a --machine path under /tmp in a committed command: the
// model files were copied next to the CSV, under machines/.
var tmpMachine = regexp.MustCompile(`--machine /tmp/\S*/machines/(\S+)`)

// cheapestSimulated returns the row of tab of the simulated parallel run
// that took the least wall time (at most 5 s), and its command with the
// machine files it names found in dir; -1 when there is none.
func cheapestSimulated(tab *Table, dir string) (int, string) {
	best, bestWall, bestCmd := -1, 5.0, ""
	for i := range tab.Rows {
		np, _ := strconv.Atoi(tab.Get(i, ColNP))
		wall, err := strconv.ParseFloat(tab.Get(i, ColWall), 64)
		cmd := tab.Get(i, ColCommand)
		if !strings.HasPrefix(tab.Get(i, ColWorld), "sim") || np < 2 || err != nil || wall > bestWall || tab.Get(i, "virtual_seconds") == "" {
			continue
		}
		rest := cmd // the command but the committed model's path, which may lie under /tmp with the checkout
		if m := tmpMachine.FindStringSubmatch(cmd); m != nil {
			model := filepath.Join(dir, "machines", m[1])
			if _, err := os.Stat(model); err != nil {
				continue
			}
			rest = strings.Replace(cmd, m[0], "", 1)
			cmd = strings.Replace(cmd, m[0], "--machine "+model, 1)
		}
		if strings.Contains(rest, "/tmp/") {
			continue // another temporary file of the run that made the row
		}
		best, bestWall, bestCmd = i, wall, cmd
	}
	return best, bestCmd
}

// hasSimulated reports whether tab holds a simulated parallel run.
func hasSimulated(tab *Table) bool {
	for i := range tab.Rows {
		if np, _ := strconv.Atoi(tab.Get(i, ColNP)); np > 1 && strings.HasPrefix(tab.Get(i, ColWorld), "sim") {
			return true
		}
	}
	return false
}

// readDrift reads results/drift.tsv: CSV path, commit, why, tab-separated;
// '#' starts a comment.
func readDrift(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
			t.Fatalf("%s: %q: want CSV, commit and why, tab-separated", path, line)
		}
		m[parts[0]] = parts[1]
	}
	return m
}

// TestCommittedSummaries: every committed summary (results/**/X-summary.csv
// beside its X.csv) is what the runner derives from that CSV today, but
// for the height column, which depends on the campaign's --height: a
// change to how a summary is derived must write the committed ones again
// (a helper found ten whose load columns the runner no longer wrote so,
// 2026-11-28: `campaign --csv X.csv --plot-only --plots none`, with the
// preset's --height, makes one again).
func TestCommittedSummaries(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var summaries []string
	err = filepath.WalkDir(filepath.Join(root, "results"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, "-summary.csv") {
			summaries = append(summaries, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range summaries {
		rel, _ := filepath.Rel(root, s)
		src := strings.TrimSuffix(s, "-summary.csv") + ".csv"
		if _, err := os.Stat(src); err != nil {
			continue // its campaign's CSV is not committed beside it (compressed, say)
		}
		tab, err := ReadTable(src)
		if err != nil {
			t.Fatal(err)
		}
		pts, err := Derive(tab, "")
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		got := filepath.Join(t.TempDir(), "s.csv")
		if err := WriteSummary(got, tab, Groups(pts)); err != nil {
			t.Fatal(err)
		}
		want, err := ReadTable(s)
		if err != nil {
			t.Fatal(err)
		}
		derived, err := ReadTable(got)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want.Columns, derived.Columns) || len(want.Rows) != len(derived.Rows) {
			t.Errorf("%s: %d rows of %d columns; derived from its CSV today: %d rows of %d columns", rel, len(want.Rows), len(want.Columns), len(derived.Rows), len(derived.Columns))
			continue
		}
		for i := range want.Rows {
			for j, c := range want.Columns {
				if c != "height" && want.Rows[i][j] != derived.Rows[i][j] {
					t.Errorf("%s: row %d, %s: %q; derived from its CSV today: %q", rel, i+1, c, want.Rows[i][j], derived.Rows[i][j])
				}
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("%d summaries checked: want the repository's (over 20)", checked)
	}
}
