package main

import (
	"bytes"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/treelb/treelb/apps/integrate/stats"
	"github.com/treelb/treelb/internal/benchutil"
)

// TestRun runs a small campaign (3 trials, two ring sizes, one α and one
// θ_a) and checks the CSV against the step model's bounds, the tables'
// shape and -from; never the NPF values themselves.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the integrate command")
	}
	bin, err := benchutil.Build(t.TempDir(), "../../apps/integrate")
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(t.TempDir(), "seed003")
	var w bytes.Buffer
	err = run([]string{"-bin", bin, "-trials", "3", "-ps", "8,10", "-alphas", "0.96", "-thetas", "1e-6", "-rules", "relative", "-out", prefix}, &w)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := benchutil.ReadCSV(prefix+".csv", csvHeader())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2*(3*2*2) {
		t.Fatalf("%d trials, want 24", len(recs))
	}
	seeds := map[string]bool{}
	for _, r := range recs {
		nodes, _ := strconv.ParseInt(r[7], 10, 64)
		height, _ := strconv.ParseInt(r[8], 10, 64)
		steps, _ := strconv.ParseInt(r[9], 10, 64)
		virt, _ := strconv.ParseInt(r[10], 10, 64)
		p, _ := strconv.Atoi(r[3])
		npf, _ := strconv.ParseFloat(r[11], 64)
		// One node per rank per step: at least N/p steps and one per level.
		if steps*int64(p) < nodes || steps <= height || virt < steps || !(npf > 0 && npf <= 1) || math.Abs(npf-float64(nodes)/float64(int64(p)*steps)) > 1e-6 {
			t.Errorf("trial %q breaks the step model", r)
		}
		if r[0] == "1" {
			seeds[r[5]] = true
		}
	}
	if len(seeds) != 12 {
		t.Errorf("%d distinct α-trees in 12 α trials", len(seeds))
	}
	for _, want := range []string{"## Table 1: α-trees", "## Table 2: random polynomials, relative rule", "12.46", "44.81", "18.82", "not p < .001", "load average", "t (paired)"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("output without %q:\n%s", want, w.String())
		}
	}
	tables := w.String()[strings.Index(w.String(), "\n## Table 1"):]
	w.Reset()
	if err := run([]string{"-from", prefix + ".csv"}, &w); err != nil || !strings.HasSuffix(w.String(), tables) {
		t.Errorf("-from: %v\n%s\nwant the tables\n%s", err, w.String(), tables)
	}
	for _, args := range [][]string{{"-from", prefix + ".txt"}, {"-ps", "8,x"}, {"-rules", "loose"}, {"-trials", "1"}, {"-alpha-trees", "some"}, {"-tables", "3"}, {"extra"}} {
		if err := run(append(args, "-bin", bin, "-out", prefix), &w); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// TestCriticalT: the critical values of a t table, and the seed's t = 2.89,
// whose p-value lies between .001 and .01.
func TestCriticalT(t *testing.T) {
	for _, c := range []struct{ p, df, want float64 }{{0.001, 1e9, 3.2905}, {0.05, 10, 2.2281}, {0.001, 30, 3.6460}} {
		if got := criticalT(c.p, c.df); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("criticalT(%g, %g) = %.5f, want %.4f", c.p, c.df, got, c.want)
		}
	}
	if p := stats.StudentTwoTailed(seedEntireT, 2998); !(p > 0.001 && p < 0.01) || seedEntireT > criticalT(0.001, 2998) {
		t.Errorf("t = %g on 2998 df: p = %g", seedEntireT, p)
	}
}
