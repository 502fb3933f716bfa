package stats

import (
	"math"
	"strings"
	"testing"
)

// near reports whether got is within rel·|want| of want.
func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Abs(want)
}

// TestStudentClosedForms: for 1 and 2 degrees of freedom the two-tailed
// p-value has a closed form: 1 − (2/π)·atan|t| (Cauchy) and
// 1 − |t|/√(t²+2).
func TestStudentClosedForms(t *testing.T) {
	for _, x := range []float64{0, 0.1, 0.5, 1, 2.5, 6.3, 30, 1e3, -4} {
		// 1 − (2/π)·atan|t| = (2/π)·atan(1/|t|), and 1 − |t|/√(t²+2) =
		// 2/(√(t²+2)·(√(t²+2)+|t|)), in forms without cancellation.
		if got, want := StudentTwoTailed(x, 1), 2/math.Pi*math.Atan(1/math.Abs(x)); !near(got, want, 1e-13) {
			t.Errorf("df=1, t=%v: %v, want %v", x, got, want)
		}
		r := math.Sqrt(x*x + 2)
		if got, want := StudentTwoTailed(x, 2), 2/(r*(r+math.Abs(x))); !near(got, want, 1e-13) {
			t.Errorf("df=2, t=%v: %v, want %v", x, got, want)
		}
	}
}

// TestStudentTable: critical values from the t table (two-tailed 5%, 1%,
// 0.1%) and of the normal distribution, the limit for huge df.
func TestStudentTable(t *testing.T) {
	for _, c := range []struct{ t, df, p float64 }{
		{12.706204736, 1, 0.05},
		{2.228138852, 10, 0.05},
		{2.845339710, 20, 0.01},
		{3.645958635, 30, 0.001},
		{1.959963985, 1e9, 0.05},
		{3.290526731, 1e9, 0.001},
	} {
		rel := 1e-8
		if c.df > 1e6 {
			rel = 1e-7 // see StudentTwoTailed
		}
		if got := StudentTwoTailed(c.t, c.df); !near(got, c.p, rel) {
			t.Errorf("t=%v df=%v: %v, want %v", c.t, c.df, got, c.p)
		}
	}
	if !math.IsNaN(StudentTwoTailed(1, 0)) || !math.IsNaN(StudentTwoTailed(math.NaN(), 3)) || StudentTwoTailed(math.Inf(1), 3) != 0 {
		t.Error("edge cases")
	}
}

// TestStudentIntegral compares the p-value with 1 − 2∫₀^|t| of the t
// density by Simpson's rule, for degrees of freedom that are not integers
// (Welch's) and large ones (the seed's samples).
func TestStudentIntegral(t *testing.T) {
	for _, df := range []float64{0.7, 3.5, 17.776, 100, 598, 2998} {
		lg1, _ := math.Lgamma((df + 1) / 2)
		lg2, _ := math.Lgamma(df / 2)
		c := math.Exp(lg1-lg2) / math.Sqrt(df*math.Pi)
		dens := func(u float64) float64 { return c * math.Pow(1+u*u/df, -(df+1)/2) }
		for _, x := range []float64{0.3, 1, 2.2, 4} {
			const n = 20000
			h := x / n
			s := dens(0) + dens(x)
			for i := 1; i < n; i++ {
				s += float64(2+2*(i%2)) * dens(float64(i)*h)
			}
			want := 1 - 2*s*h/3
			if got := StudentTwoTailed(x, df); math.Abs(got-want) > 1e-10 {
				t.Errorf("df=%v t=%v: %v, Simpson %v", df, x, got, want)
			}
		}
	}
}

// TestStudentTail compares with values of I_x(df/2, ½) computed by
// mpmath 1.3.0 (betainc, regularized, 40 digits), at the seed's t-values
// (Tables 1 and 2, 2 × 300 − 2 = 598 degrees of freedom; the whole sample
// of §4.1, 2 × 1500 − 2 = 2998) and a few ordinary ones.
func TestStudentTail(t *testing.T) {
	for _, c := range []struct{ t, df, p float64 }{
		{12.46, 598, 7.6241303367915683232e-32},
		{44.81, 598, 2.6933243556338829529e-193},
		{31.77, 598, 1.6673446917121339011e-130},
		{18.82, 598, 2.0984687645317616982e-62},
		{25.21, 598, 4.316567598670494878e-96},
		{2.89, 2998, 0.0038800878754237541949},
		{1.5, 2998, 0.13371969879734805913},
		{3.0, 598, 0.0028121796339009326585},
		{5.0, 17.776, 0.000096260550434490398299},
		{2.5, 100, 0.014045789124077177408},
	} {
		if got := StudentTwoTailed(c.t, c.df); !near(got, c.p, 1e-12) {
			t.Errorf("t=%v df=%v: %v, want %v (relative error %.2g)", c.t, c.df, got, c.p, (got-c.p)/c.p)
		}
	}
}

// sleep is Student's (Cushny and Peebles') sleep data, R's data(sleep):
// extra hours of sleep under two drugs.
var sleep = [2][]float64{
	{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0},
	{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4},
}

// TestSleep: R's t.test(extra ~ group, data = sleep) prints t = -1.8608,
// df = 17.776, p-value = 0.07939 (Welch), and with var.equal = TRUE
// t = -1.8608, df = 18, p-value = 0.07919.
func TestSleep(t *testing.T) {
	w, err := Welch(sleep[0], sleep[1])
	if err != nil {
		t.Fatal(err)
	}
	if !near(w.T, -1.8608, 5e-5) || !near(w.DF, 17.776, 5e-5) || !near(w.P, 0.07939, 1e-4) {
		t.Errorf("Welch: %+v", w)
	}
	p, err := Pooled(sleep[0], sleep[1])
	if err != nil {
		t.Fatal(err)
	}
	if !near(p.T, -1.8608, 5e-5) || p.DF != 18 || !near(p.P, 0.07919, 1e-4) {
		t.Errorf("Pooled: %+v", p)
	}
	if !near(w.T, p.T, 1e-14) {
		t.Errorf("equal sizes: Welch t %v ≠ pooled t %v", w.T, p.T)
	}
}

// TestUnequalSizes works one example by hand: x = 1..5 (mean 3, s² = 2.5),
// y = 2, 4, 6 (mean 4, s² = 4). Welch: t = −1/√(0.5 + 4/3), df =
// (11/6)²/(0.25/4 + (16/9)/2). Pooled: s_p² = (10 + 8)/6 = 3,
// t = −1/√(3·(1/5 + 1/3)), df = 6.
func TestUnequalSizes(t *testing.T) {
	x, y := []float64{1, 2, 3, 4, 5}, []float64{2, 4, 6}
	w, _ := Welch(x, y)
	if wt, wdf := -1/math.Sqrt(0.5+4.0/3), (11.0/6)*(11.0/6)/(0.25/4+16.0/9/2); !near(w.T, wt, 1e-14) || !near(w.DF, wdf, 1e-14) ||
		!near(w.P, StudentTwoTailed(wt, wdf), 1e-14) {
		t.Errorf("Welch: %+v, want t %v df %v", w, wt, wdf)
	}
	p, _ := Pooled(x, y)
	if pt := -1 / math.Sqrt(3*(0.2+1.0/3)); !near(p.T, pt, 1e-14) || p.DF != 6 {
		t.Errorf("Pooled: %+v, want t %v df 6", p, pt)
	}
}

func TestErrors(t *testing.T) {
	if _, err := Welch([]float64{1}, []float64{1, 2}); err == nil {
		t.Error("Welch of one value")
	}
	if _, err := Pooled([]float64{1, 2}, nil); err == nil {
		t.Error("Pooled of no values")
	}
	if _, err := Welch([]float64{2, 2}, []float64{3, 3, 3}); err == nil || !strings.Contains(err.Error(), "variance") {
		t.Errorf("Welch without variance: %v", err)
	}
	if _, err := Pooled([]float64{2, 2}, []float64{3, 3}); err == nil {
		t.Error("Pooled without variance")
	}
	for _, c := range [][3]int64{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {-5, 2, 2}} {
		if _, err := NPF(c[0], int(c[1]), c[2]); err == nil {
			t.Errorf("NPF%v accepted", c)
		}
	}
}

func TestNPF(t *testing.T) {
	// 1000 nodes on 10 processors in 125 steps: 80% of the capacity.
	if v, err := NPF(1000, 10, 125); err != nil || v != 0.8 {
		t.Errorf("NPF = %v, %v", v, err)
	}
	// One processor working every step: exactly 1.
	if v, _ := NPF(4269, 1, 4269); v != 1 {
		t.Errorf("NPF = %v", v)
	}
}

// TestLbeta: the split-off Stirling series agrees with the plain sum of
// Lgamma values within the rounding of those (large) values.
func TestLbeta(t *testing.T) {
	for _, c := range [][2]float64{{0.5, 0.5}, {3, 0.5}, {9.9, 12}, {299, 0.5}, {1499, 0.5}, {50, 70}, {1e6, 3}} {
		la, _ := math.Lgamma(c[0])
		lb, _ := math.Lgamma(c[1])
		lab, _ := math.Lgamma(c[0] + c[1])
		if got, want := lbeta(c[0], c[1]), la+lb-lab; math.Abs(got-want) > 1e-13*max(1, math.Abs(la)+math.Abs(lab)) {
			t.Errorf("lbeta(%v, %v) = %v, from Lgamma %v", c[0], c[1], got, want)
		}
	}
}

// TestMeanVar: the corrected two-pass variance is exact where the naive
// one-pass formula loses everything (values around 10^9 with unit spread).
func TestMeanVar(t *testing.T) {
	x := []float64{1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16}
	m, v, err := MeanVar(x)
	if err != nil || m != 1e9+10 || v != 30 {
		t.Errorf("MeanVar = %v %v %v, want 1e9+10 and 30", m, v, err)
	}
	if got := Bonferroni(0.0003, 5); !near(got, 0.0015, 1e-15) || Bonferroni(0.3, 5) != 1 {
		t.Errorf("Bonferroni = %v", got)
	}
}

// TestPaired: a hand-computed case (differences 1, 2, 3, 6: mean 3,
// variance 14/3, t = 3/√(14/12)), the pairing's power against the
// two-sample test when the units differ widely, and the errors.
func TestPaired(t *testing.T) {
	x := []float64{11, 102, 1003, 10006}
	y := []float64{10, 100, 1000, 10000}
	tt, err := Paired(x, y)
	if want := 3 / math.Sqrt(14.0/12); err != nil || !near(tt.T, want, 1e-12) || tt.DF != 3 || !near(tt.P, StudentTwoTailed(want, 3), 1e-12) {
		t.Errorf("Paired = %+v, %v; want t %v on 3 df", tt, err, want)
	}
	if w, err := Welch(x, y); err != nil || !(math.Abs(w.T) < 0.01) || !(w.P > 0.99) {
		t.Errorf("Welch = %+v, %v: the units' spread should hide the differences", w, err)
	}
	if neg, _ := Paired(y, x); neg.T != -tt.T {
		t.Errorf("Paired(y, x).T = %v, want %v", neg.T, -tt.T)
	}
	for _, c := range [][2][]float64{{{1, 2}, {1}}, {{1}, {2}}, {{1, 2, 3}, {0, 1, 2}}} {
		if tt, err := Paired(c[0], c[1]); err == nil {
			t.Errorf("Paired(%v, %v) = %+v, want an error", c[0], c[1], tt)
		}
	}
}
