package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/apps/knapsack/knap"
	"github.com/treelb/treelb/lb"
)

// TestRun runs a small campaign (two instances, one run of each kind) and
// checks the CSV, the plot and the summary's shape, never the times.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the knapsack command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "knapsack")
	if out, err := exec.Command("go", "build", "-o", bin, "../../apps/knapsack").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	prefix := filepath.Join(dir, "fig4")
	var w bytes.Buffer
	err := run([]string{"-bin", bin, "-instances", "200:1,3", "-reps", "1", "-par", "--np 2 --balancer rp --budget 100", "-out", prefix}, &w)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(prefix + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || strings.Join(recs[0], ",") != strings.Join(csvHeader(), ",") {
		t.Fatalf("%d records, header %v", len(recs), recs[0])
	}
	if recs[1][0] != "200" || recs[1][1] != "1" || recs[2][1] != "3" || recs[1][15] != "2" || recs[1][16] != "rp" || recs[1][17] != "embedded" {
		t.Errorf("records %v, %v", recs[1], recs[2])
	}
	if png, err := os.ReadFile(prefix + ".png"); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("plot: %v", err)
	}
	for _, want := range []string{"2 instances measured", "load average", "all"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("summary without %q:\n%s", want, w.String())
		}
	}
	w.Reset()
	if err := run([]string{"-from", prefix + ".csv", "-out", prefix + "-again"}, &w); err != nil || !strings.Contains(w.String(), "cores par") {
		t.Errorf("-from: %v\n%s", err, w.String())
	}
	// A file from before the column t_par_work reads too.
	if err := run([]string{"-from", "../../apps/knapsack/results/fig4-p2.csv", "-out", prefix + "-old"}, &w); err != nil {
		t.Errorf("-from: %v\n%s", err, w.String())
	}
	if _, err := os.Stat(prefix + "-again.png"); err != nil {
		t.Error(err)
	}
	// In the simulated world the sequential time is virtual too: the
	// sequential nodes at the machine's node cost for knapsack.
	w.Reset()
	sim := filepath.Join(dir, "sim")
	if err := run([]string{"-bin", bin, "-instances", "200:3", "-reps", "1", "-par", "--world sim --machine gcel --np 16 --budget 100", "-out", sim}, &w); err != nil {
		t.Fatal(err)
	}
	gcel, err := lb.LookupMachine("gcel")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readCSV(sim + ".csv")
	if err != nil || len(rows) != 1 {
		t.Fatalf("simulated campaign: %v, %d rows", err, len(rows))
	}
	if r := rows[0]; r.world != "sim" || r.ranks != 16 || math.Abs(r.tSeq-float64(r.seqNodes)*gcel.For(knap.NodeCosts()).NodeNS*1e-9) > 1e-5*r.tSeq ||
		math.Abs(r.speedup-r.tSeq/r.tPar) > 1e-4*r.speedup || !(r.tWork > 0 && r.tWork < r.tPar) || !strings.Contains(w.String(), "sequential time (virtual)") {
		t.Errorf("simulated campaign: %+v\n%s", r, w.String())
	}
	for _, args := range [][]string{{"-from", prefix + ".png"}, {"-instances", "x"}, {"-instances", "200:5-3"}, {"-search", "dp"}, {"-reps", "-1"}, {"extra"}} {
		if err := run(append(args, "-bin", bin, "-out", prefix), &w); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
