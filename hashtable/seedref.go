package hashtable

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
)

// SeedCV is one cell of Table 1 of seed 004: the coefficient of variation
// (in percent) of the maximum load for α = β = 4 and 50 runs.
type SeedCV struct {
	P, Q int
	W    Load
	CV   float64 // percent
}

// SeedTable1 returns Table 1 of seed 004.
func SeedTable1() []SeedCV {
	qs := []PQ{{64, 1, ""}, {64, 6, ""}, {64, 36, ""}, {4096, 1, ""}, {4096, 12, ""}, {4096, 144, ""}}
	vals := [NumLoads][6]float64{
		LoadX:  {11.0, 6.3, 2.6, 7.1, 3.5, 1.0},
		LoadXY: {17.8, 12.2, 5.0, 12.3, 5.3, 2.1},
		LoadX2: {24.8, 13.1, 6.0, 15.4, 6.8, 2.6},
	}
	var out []SeedCV
	for w := range NumLoads {
		for i, c := range qs {
			out = append(out, SeedCV{P: c.P, Q: c.Q, W: w, CV: vals[w][i]})
		}
	}
	return out
}

// SeedFig1 returns the load balance factors that seed 004 §4.5 states in
// its text about Fig. 1 (the figure itself gives no table): at p = 4096 with
// q = lg p, "approx. 0.5 for XY and approx. 0.4 for X^(2)".
func SeedFig1() []SeedEta {
	return []SeedEta{{P: 4096, Q: 12, W: LoadXY, Eta: 0.5}, {P: 4096, Q: 12, W: LoadX2, Eta: 0.4}}
}

// SeedEta is a load balance factor stated by seed 004.
type SeedEta struct {
	P, Q int
	W    Load
	Eta  float64
}

// Table1Row sets one of our coefficients of variation next to the seed's.
type Table1Row struct {
	P, Q int
	W    string
	Seed float64 // the seed's CV, percent
	Ours float64 // our CV over all runs, percent
	// Ours50 is the mean of our CVs over blocks of 50 runs: the expected
	// value of the seed's kind of measurement.
	Ours50 float64
	Runs   int
	// SE is the standard error, in percent, of a CV measured with 50 runs
	// (the seed's sampling error), from our blocks of 50 runs.
	SE float64
	// Z is (Seed − Ours50)/SE: |Z| ≤ 2 means agreement within sampling
	// error.
	Z float64
}

// CompareTable1 matches simulated points (run with Block = 50) to the
// seed's Table 1; cells without a point are skipped.
func CompareTable1(pts []SimPoint) []Table1Row {
	var rows []Table1Row
	for _, s := range SeedTable1() {
		for _, pt := range pts {
			if pt.P != s.P || pt.Q != s.Q || pt.W != s.W.String() {
				continue
			}
			r := Table1Row{P: s.P, Q: s.Q, W: pt.W, Seed: s.CV, Ours: 100 * pt.CV, Ours50: 100 * pt.CVBlock, Runs: pt.Runs, SE: 100 * pt.CVSE}
			r.Z = math.NaN()
			if r.SE > 0 {
				r.Z = (r.Seed - r.Ours50) / r.SE
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// WriteTable1CSV writes the comparison as CSV with a header line.
func WriteTable1CSV(w io.Writer, rows []Table1Row) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"p", "q", "w", "seed_cv_pct", "our_cv_pct", "our_cv50_pct", "runs", "se50_pct", "z"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
	for _, r := range rows {
		_ = cw.Write([]string{strconv.Itoa(r.P), strconv.Itoa(r.Q), r.W, f(r.Seed), f(r.Ours), f(r.Ours50), strconv.Itoa(r.Runs), f(r.SE), f(r.Z)})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("hashtable: table 1 CSV: %w", err)
	}
	return nil
}
