package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/mpi"
)

// TestRun measures the failing iterations of the smallest instance once
// and checks the CSV and the summary's shape (never the times).
func TestRun(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts a world of 2 ranks")
	}
	out := filepath.Join(t.TempDir(), "sp.csv")
	var w bytes.Buffer
	err := run([]string{"-korf", "42", "-reps", "1", "-retries", "0", "-out", out}, &w)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Instance 42 has 6 failing iterations (thresholds 30..40), 3 configurations.
	if len(recs) != 1+6*3 || strings.Join(recs[0], ",") != strings.Join(csvHeader(), ",") {
		t.Fatalf("%d records, header %v", len(recs), recs[0])
	}
	if recs[1][0] != "42" || recs[1][2] != "30" || recs[1][3] != "7" || recs[18][2] != "40" || recs[18][7] != "rp-local" {
		t.Errorf("records %v ... %v", recs[1], recs[18])
	}
	for _, want := range []string{"collective", "rp+fast-init", "fast initialisation, rp"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("summary without %q:\n%s", want, w.String())
		}
	}
	if err := run([]string{"-balancers", "rp+slow"}, &w); err == nil {
		t.Error("-balancers rp+slow accepted")
	}
}
