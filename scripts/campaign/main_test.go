package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/internal/campaign"
)

// TestCampaign runs a small campaign with the real golomb command (sim and
// embedded worlds), resumes it, and plots it again from the CSV alone.
func TestCampaign(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the golomb command")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+"/", "../../apps/golomb").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	csvPath := filepath.Join(dir, "out", "g.csv")
	args := []string{"-bin-dir", dir, "-csv", csvPath, "-world", "sim:unit", "-world", "embedded", "-np", "1..4*2",
		"-balancer", "rp", "-balancer", "rp --fast-init", "-instance", "golomb 7", "-height", "marks"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	// sim: 2 balancers × 3 P; embedded: the same and the baseline.
	if !strings.Contains(stderr.String(), "13 to run") || !strings.Contains(stderr.String(), "run 13 of 13") {
		t.Errorf("progress:\n%s", stderr.String())
	}
	tab, err := campaign.ReadTable(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 13 {
		t.Fatalf("%d rows", len(tab.Rows))
	}
	for _, c := range []string{"run_world", "length", "nodes", "messages.request", "machine.name", "speedup", "busy_fraction"} {
		if tab.Col(c) < 0 {
			t.Errorf("no column %s in %q", c, tab.Columns)
		}
	}
	for i := range tab.Rows {
		if tab.Get(i, "length") != "25" || tab.Get(i, "ranks") != tab.Get(i, "run_np") {
			t.Errorf("row %d: length %s, ranks %s, run_np %s", i, tab.Get(i, "length"), tab.Get(i, "ranks"), tab.Get(i, "run_np"))
		}
	}
	if !strings.Contains(stdout.String(), "| sim:unit | golomb 7 | rp --fast-init | 4 | 1 |") {
		t.Errorf("summary:\n%s", stdout.String())
	}
	for _, f := range []string{"g-speedup.png", "g-speedup.svg", "g-seqtime.png", "g-messages.svg"} {
		if _, err := os.Stat(filepath.Join(dir, "out", f)); err != nil {
			t.Error(err)
		}
	}
	stderr.Reset()
	if err := run(context.Background(), args, &stdout, &stderr); err != nil || !strings.Contains(stderr.String(), "13 already in") {
		t.Errorf("resume: %v\n%s", err, stderr.String())
	}
	stdout.Reset()
	if err := run(context.Background(), append(args, "-np", "8", "-dry-run"), &stdout, &stderr); err != nil ||
		strings.Count(stdout.String(), "\n") != 4 || !strings.Contains(stdout.String(), "--world sim --np 8 --machine unit --balancer rp --seed 1 7") {
		t.Errorf("dry run: %v\n%s", err, stdout.String())
	}
	if err := run(context.Background(), []string{"-csv", csvPath, "-plot-only", "-plots", filepath.Join(dir, "again")}, &stdout, &stderr); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "again-speedup.png")); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]string{{}, {"-csv", csvPath, "-np", "0"}, {"-csv", csvPath, "-world", "cloud", "-instance", "golomb 7"},
		{"-csv", csvPath, "-instance", "golomb 7", "-balancer", "nosuch", "-bin-dir", dir, "-np", "2", "-world", "sim:unit"}, {"-csv", csvPath, "x"}} {
		if err := run(context.Background(), bad, &stdout, &stderr); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
