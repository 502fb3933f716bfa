package hashtable

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestSimTrends: at reduced scale (p ≤ 64), η lies in (0, 1] and grows with
// q for every p and load, and the heavier loads balance worse (X ≥ XY ≥
// X^(2)), as in Fig. 1.
func TestSimTrends(t *testing.T) {
	for _, model := range []SimModel{SimBernoulli, SimPoisson} {
		pts, err := Simulate(Fig1Configs(64), SimParams{Alpha: 4, Beta: 4, Runs: 200, Seed: 1, Model: model})
		if err != nil {
			t.Fatal(err)
		}
		if len(pts) != 3*4*3 {
			t.Fatalf("%d points", len(pts))
		}
		for i, pt := range pts {
			if !(pt.Eta > 0 && pt.Eta <= 1) {
				t.Errorf("%+v: η out of (0, 1]", pt)
			}
			if i >= 3 && pts[i-3].P == pt.P && pts[i-3].Eta >= pt.Eta {
				t.Errorf("%v p=%d %s: η %.3f at q=%d not above %.3f at q=%d", model, pt.P, pt.W, pt.Eta, pt.Q, pts[i-3].Eta, pts[i-3].Q)
			}
			if pt.W == "X" && (pts[i+1].Eta > pt.Eta || pts[i+2].Eta > pts[i+1].Eta+0.02) {
				t.Errorf("%v p=%d q=%d: η X %.3f, XY %.3f, X2 %.3f", model, pt.P, pt.Q, pt.Eta, pts[i+1].Eta, pts[i+2].Eta)
			}
		}
	}
}

// TestSimAgainstTheory: for W = X in the Poisson model, the simulated η
// agrees with the exact qα / E(max of p Poisson(qα)) within four standard
// errors.
func TestSimAgainstTheory(t *testing.T) {
	cs := append(Fig1Configs(256), PQ{4096, 12, "lg p"})
	pts, err := Simulate(cs, SimParams{Alpha: 4, Beta: 4, Runs: 100, Seed: 2, Model: SimPoisson})
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range pts {
		if pt.W != "X" {
			continue
		}
		se := pt.Eta * pt.CV / math.Sqrt(float64(pt.Runs))
		if math.Abs(pt.Eta-pt.Theory) > 4*se+1e-9 {
			t.Errorf("p=%d q=%d: simulated η %.4f, exact %.4f (se %.4f)", pt.P, pt.Q, pt.Eta, pt.Theory, se)
		}
	}
}

// TestExpectedMaxPoisson checks the exact expectation on small cases.
func TestExpectedMaxPoisson(t *testing.T) {
	if got := ExpectedMaxPoisson(1, 4); math.Abs(got-4) > 1e-9 {
		t.Errorf("E max of one Poisson(4) = %g", got)
	}
	if got := ExpectedMaxPoisson(1, 6912); math.Abs(got-6912) > 1e-6 {
		t.Errorf("E max of one Poisson(6912) = %g", got)
	}
	// E max(X1, X2) for Poisson(1): Σ_k 1 − F(k)².
	e := 0.0
	f, pk := 0.0, math.Exp(-1)
	for k := 0; k < 40; k++ {
		f += pk
		e += 1 - f*f
		pk /= float64(k + 1)
	}
	if got := ExpectedMaxPoisson(2, 1); math.Abs(got-e) > 1e-12 {
		t.Errorf("E max of two Poisson(1) = %g, want %g", got, e)
	}
}

// TestSimReproducesSeed compares with the seed's numbers that are cheap to
// reach: Table 1 at p = 64 (all q) and p = 4096 (q = 1, 12), and the η the
// text states for q = lg p at p = 4096.
func TestSimReproducesSeed(t *testing.T) {
	cs := []PQ{{64, 1, "1"}, {64, 6, "lg p"}, {64, 36, "lg^2 p"}, {4096, 1, "1"}, {4096, 12, "lg p"}}
	pts, err := Simulate(cs, SimParams{Alpha: 4, Beta: 4, Runs: 400, Block: 50, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rows := CompareTable1(pts)
	if len(rows) != 15 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		if math.Abs(r.Z) > 3 {
			t.Errorf("p=%d q=%d %s: CV %.1f%%, seed %.1f%% (se of 50 runs %.1f%%)", r.P, r.Q, r.W, r.Ours, r.Seed, r.SE)
		}
	}
	for _, s := range SeedFig1() {
		for _, pt := range pts {
			if pt.P == s.P && pt.Q == s.Q && pt.W == s.W.String() && math.Abs(pt.Eta-s.Eta) > 0.05 {
				t.Errorf("p=%d q=%d %s: η %.3f, seed ≈ %.1f", pt.P, pt.Q, pt.W, pt.Eta, s.Eta)
			}
		}
	}
	var buf bytes.Buffer
	if err := WriteTable1CSV(&buf, rows); err != nil || strings.Count(buf.String(), "\n") != 16 {
		t.Errorf("table 1 CSV: %v\n%s", err, buf.String())
	}
}

// TestSimDeterministic: results depend on the seed only, not on the number
// of workers.
func TestSimDeterministic(t *testing.T) {
	cs := Fig1Configs(16)
	a, err := Simulate(cs, SimParams{Alpha: 4, Beta: 4, Runs: 20, Seed: 9, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Simulate(cs, SimParams{Alpha: 4, Beta: 4, Runs: 20, Seed: 9, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("point %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
	var buf bytes.Buffer
	if err := WriteSimCSV(&buf, a); err != nil || strings.Count(buf.String(), "\n") != len(a)+1 {
		t.Errorf("CSV: %v\n%s", err, buf.String())
	}
}

func TestSimBadInput(t *testing.T) {
	ok := SimParams{Alpha: 4, Beta: 4, Runs: 2}
	bad := []SimParams{{Alpha: -1, Beta: 4, Runs: 2}, {Alpha: 4, Beta: math.NaN(), Runs: 2}, {Alpha: 4, Beta: 4, Runs: 1},
		{Alpha: 4, Beta: 4, Runs: 2, Model: 7}, {Alpha: 4, Beta: 4, Runs: 2, Block: 1}}
	for _, sp := range bad {
		if _, err := Simulate(Fig1Configs(4), sp); err == nil {
			t.Errorf("%+v accepted", sp)
		}
	}
	if _, err := Simulate([]PQ{{0, 1, ""}}, ok); err == nil {
		t.Error("p = 0 accepted")
	}
	if _, err := Simulate([]PQ{{4, 0, ""}}, ok); err == nil {
		t.Error("q = 0 accepted")
	}
	if _, err := ParseSimModel("gauss"); err == nil {
		t.Error("unknown model accepted")
	}
	// Load factors so small that no run loads any processor: η is 0/0,
	// which dht sim printed as NaN (and failed to write as JSON).
	for _, m := range []SimModel{SimBernoulli, SimPoisson} {
		pts, err := Simulate(Fig1Configs(16), SimParams{Alpha: 0.001, Beta: 0.001, Runs: 2, Model: m})
		if !errors.Is(err, ErrNoLoad) || !strings.Contains(err.Error(), "p = 4, q = 1") {
			t.Errorf("%v: %v, %v; want ErrNoLoad naming the point", m, pts, err)
		}
	}
	pts, err := Simulate(Fig1Configs(16), SimParams{Alpha: 4, Beta: 4, Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range pts {
		if math.IsNaN(pt.Eta) || math.IsInf(pt.Eta, 0) || math.IsNaN(pt.CV) {
			t.Errorf("%+v", pt)
		}
	}
}

func TestExpectedMaxPoissonFinite(t *testing.T) {
	for _, p := range []int{4, 64, 4096} {
		for _, q := range []int{1, 12, 36, 144, 1728} {
			l := 4 * float64(q)
			if e := ExpectedMaxPoisson(p, l); math.IsNaN(e) || e < l || e > l+20*math.Sqrt(l)+20 {
				t.Errorf("p=%d λ=%g: E max = %g", p, l, e)
			}
		}
	}
}

// TestSimModelThrows checks the model behind Table 1 (seed 004 §4.5): under
// SimBernoulli, the seed's, exactly n = α·m old and β·m new elements are
// thrown into the m buckets in every run, while under SimPoisson each
// bucket's count is drawn on its own, so the totals vary from run to run.
// (Table 1's comparison, |z| ≤ 3, cannot tell the two models apart.)
func TestSimModelThrows(t *testing.T) {
	const p, q = 16, 4
	m := p * q
	total := func(xs []uint16) (n int64) {
		for _, x := range xs {
			n += int64(x)
		}
		return n
	}
	for _, model := range []SimModel{SimBernoulli, SimPoisson} {
		sp := SimParams{Alpha: 4, Beta: 2.5, Runs: 2, Model: model}
		s := newSimScratch(m, sp)
		varies := false
		for seed := range uint64(20) {
			s.run(p, q, seed)
			nx, ny := total(s.x[:m]), total(s.y[:m])
			if model == SimBernoulli && (nx != counts(sp.Alpha, m) || ny != counts(sp.Beta, m)) {
				t.Fatalf("Bernoulli, seed %d: %d old and %d new elements, want exactly %d and %d", seed, nx, ny, counts(sp.Alpha, m), counts(sp.Beta, m))
			}
			varies = varies || nx != counts(sp.Alpha, m) || ny != counts(sp.Beta, m)
		}
		if model == SimPoisson && !varies {
			t.Errorf("Poisson: 20 runs all threw exactly α·m and β·m elements")
		}
	}
}
