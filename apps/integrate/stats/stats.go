// Package stats computes the statistics of seed 003's experiments (§4.1,
// §4.2): the normalized parallelization factor NPF = N/(p·T) of a trial,
// and the two-sample two-tailed t-test by which the seed compares the NPF
// of KOSO and KOSO* in its Tables 1 and 2.
//
// The seed does not say whether its t-test pools the variances (Student)
// or not (Welch). Its samples have equal sizes — for each ring size p,
// 3 values of α (or θ_a) × 100 trials per policy — and for equal sizes the
// two statistics are the same number: t = (x̄ − ȳ)/√((s_x² + s_y²)/n). Only
// the degrees of freedom differ (2n − 2 against Welch–Satterthwaite's,
// between n − 1 and 2n − 2), which moves p-values at the seed's |t| ≥ 12
// by nothing that matters. Welch is the default here, since KOSO's and
// KOSO*'s NPF have visibly different spreads; Pooled is there to show the
// difference. Where both policies ran the same trees (the seed's
// polynomials), Paired tests the differences tree by tree.
package stats

import (
	"errors"
	"fmt"
	"math"
)

// NPF returns the normalized parallelization factor of a trial, N/(p·T):
// the nodes of the tree over the capacity of p processors for T steps, the
// share of optimal speedup attained (seed 003 §4.1). nodes, p and steps
// must be positive.
func NPF(nodes int64, p int, steps int64) (float64, error) {
	if nodes <= 0 || p <= 0 || steps <= 0 {
		return 0, fmt.Errorf("stats: NPF of %d nodes on %d processors in %d steps: all must be positive", nodes, p, steps)
	}
	return float64(nodes) / (float64(p) * float64(steps)), nil
}

// MeanVar returns the mean and the unbiased sample variance of x (n − 1 in
// the denominator), by two passes. It needs at least two values.
func MeanVar(x []float64) (mean, variance float64, err error) {
	if len(x) < 2 {
		return 0, 0, fmt.Errorf("stats: %d values: need at least 2 for a variance", len(x))
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss, s float64
	for _, v := range x {
		d := v - mean
		ss += d * d
		s += d
	}
	// The second term corrects the rounding of the mean (Chan, Golub and
	// LeVeque's corrected two-pass algorithm).
	variance = (ss - s*s/float64(len(x))) / float64(len(x)-1)
	return mean, variance, nil
}

// TTest is the outcome of a two-sample t-test of equal means.
type TTest struct {
	T  float64 // the statistic: positive when the first sample's mean is larger
	DF float64 // degrees of freedom (not an integer under Welch)
	P  float64 // two-tailed p-value
}

// Welch returns Welch's two-sample t-test of x and y, which does not assume
// equal variances: t = (x̄ − ȳ)/√(s_x²/n_x + s_y²/n_y), with the
// Welch–Satterthwaite degrees of freedom. Each sample needs two values and
// they may not both have zero variance.
func Welch(x, y []float64) (TTest, error) {
	a, b, err := describe(x, y)
	if err != nil {
		return TTest{}, err
	}
	ax, ay := a.v/a.n, b.v/b.n
	if ax+ay == 0 {
		return TTest{}, errors.New("stats: t-test of two samples without variance")
	}
	t := (a.m - b.m) / math.Sqrt(ax+ay)
	df := (ax + ay) * (ax + ay) / (ax*ax/(a.n-1) + ay*ay/(b.n-1))
	return TTest{T: t, DF: df, P: StudentTwoTailed(t, df)}, nil
}

// Pooled returns Student's two-sample t-test of x and y with the variances
// pooled: t = (x̄ − ȳ)/(s_p·√(1/n_x + 1/n_y)), n_x + n_y − 2 degrees of
// freedom. Each sample needs two values and they may not both have zero
// variance.
func Pooled(x, y []float64) (TTest, error) {
	a, b, err := describe(x, y)
	if err != nil {
		return TTest{}, err
	}
	df := a.n + b.n - 2
	sp2 := ((a.n-1)*a.v + (b.n-1)*b.v) / df
	if sp2 == 0 {
		return TTest{}, errors.New("stats: t-test of two samples without variance")
	}
	t := (a.m - b.m) / math.Sqrt(sp2*(1/a.n+1/b.n))
	return TTest{T: t, DF: df, P: StudentTwoTailed(t, df)}, nil
}

// Paired returns the paired t-test of x and y, two measurements of the
// same n units (x[i] and y[i] of unit i): the one-sample test of the
// differences d = x − y, t = d̄/(s_d/√n), n − 1 degrees of freedom. It
// removes the units' own spread (say, of tree sizes), which a two-sample
// test counts as noise. The samples need equal lengths of at least two,
// and differences that are not all equal.
func Paired(x, y []float64) (TTest, error) {
	if len(x) != len(y) {
		return TTest{}, fmt.Errorf("stats: paired t-test of %d and %d values: need equal lengths", len(x), len(y))
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	m, v, err := MeanVar(d)
	if err != nil {
		return TTest{}, err
	}
	if v == 0 {
		return TTest{}, errors.New("stats: paired t-test of differences without variance")
	}
	n := float64(len(d))
	t := m / math.Sqrt(v/n)
	return TTest{T: t, DF: n - 1, P: StudentTwoTailed(t, n-1)}, nil
}

// moments are a sample's size, mean and variance.
type moments struct{ n, m, v float64 }

// describe returns the moments of two samples.
func describe(x, y []float64) (a, b moments, err error) {
	a.n, b.n = float64(len(x)), float64(len(y))
	if a.m, a.v, err = MeanVar(x); err != nil {
		return a, b, err
	}
	b.m, b.v, err = MeanVar(y)
	return a, b, err
}

// Bonferroni returns the p-value p adjusted for m tests, min(1, m·p).
func Bonferroni(p float64, m int) float64 { return min(1, p*float64(m)) }

// StudentTwoTailed returns P(|T| ≥ |t|) for Student's t distribution with
// df > 0 degrees of freedom: the regularized incomplete beta function
// I_x(df/2, ½) at x = df/(df+t²). Its relative error is below 1e−12 for
// the degrees of freedom of the seed's tests (598 and 2998) and those of
// a t table, also far in the tail (p = 10^−193); it degrades slowly beyond
// 10^6 degrees of freedom (6·10^−8 at 10^9). NaN for df ≤ 0 or a NaN t.
func StudentTwoTailed(t, df float64) float64 {
	if !(df > 0) || math.IsNaN(t) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	t2 := t * t
	return regIncBeta(df/2, 0.5, df/(df+t2), t2/(df+t2))
}

// regIncBeta returns the regularized incomplete beta function I_x(a, b)
// for a, b > 0 and 0 ≤ x ≤ 1, given y = 1 − x computed without
// cancellation, by its continued fraction evaluated with the modified
// Lentz method, on the side of the symmetry I_x(a, b) = 1 − I_y(b, a)
// where it converges quickly.
func regIncBeta(a, b, x, y float64) float64 {
	switch {
	case x <= 0:
		return 0
	case y <= 0:
		return 1
	case x > (a+1)/(a+b+2):
		return 1 - regIncBeta(b, a, y, x)
	}
	lx, ly := math.Log(x), math.Log1p(-x)
	if x > 0.5 {
		lx, ly = math.Log1p(-y), math.Log(y)
	}
	front := math.Exp(a*lx + b*ly - lbeta(a, b) - math.Log(a))
	return front * betaFraction(a, b, x)
}

// lbeta returns ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a+b) for a, b > 0.
// Where an argument is 10 or more it splits off Stirling's series, so that
// the large, nearly equal ln Γ(q) and ln Γ(p+q) do not cancel (the method
// of R's lbeta): with p = min(a, b), q = max(a, b) and
// ln Γ(x) = (x−½)ln x − x + ½ln 2π + c(x),
//
//	p < 10 ≤ q:  ln Γ(p) + (q−½)·ln(1 − p/(p+q)) − p·ln(p+q) + p + c(q) − c(p+q)
//	10 ≤ p:      ½ln 2π − ½ln q + (p−½)·ln(p/(p+q)) + q·ln(1 − p/(p+q)) + c(p) + c(q) − c(p+q)
func lbeta(a, b float64) float64 {
	p, q := min(a, b), max(a, b)
	switch {
	case q < 10:
		lp, _ := math.Lgamma(p)
		lq, _ := math.Lgamma(q)
		lpq, _ := math.Lgamma(p + q)
		return lp + lq - lpq
	case p < 10:
		lp, _ := math.Lgamma(p)
		return lp + (q-0.5)*math.Log1p(-p/(p+q)) - p*math.Log(p+q) + p + stirling(q) - stirling(p+q)
	}
	return 0.5*math.Log(2*math.Pi) - 0.5*math.Log(q) + (p-0.5)*math.Log(p/(p+q)) + q*math.Log1p(-p/(p+q)) +
		stirling(p) + stirling(q) - stirling(p+q)
}

// stirling returns c(x) = ln Γ(x) − ((x−½)ln x − x + ½ln 2π) for x ≥ 10
// by its asymptotic series 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷)
// + 1/(1188x⁹), whose next term is below 2·10^−14 at x = 10.
func stirling(x float64) float64 {
	r := 1 / x
	r2 := r * r
	return r * (1.0/12 - r2*(1.0/360-r2*(1.0/1260-r2*(1.0/1680-r2/1188))))
}

// betaFraction evaluates the continued fraction
// 1/(1+ d₁/(1+ d₂/(1+ …))) of I_x(a, b), with
// d_{2m+1} = −(a+m)(a+b+m)x/((a+2m)(a+2m+1)) and
// d_{2m} = m(b−m)x/((a+2m−1)(a+2m)), by the modified Lentz method: it
// carries the ratios C and D of consecutive numerators and denominators
// and multiplies the value by C·D at each term, until that factor is 1 to
// within 1e−15.
func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c := 1.0
	d := 1 / guard(1-(a+b)*x/(a+1)) // the term d₁
	f := d
	// term folds the next partial numerator into C and D and returns C·D.
	term := func(coef float64) float64 {
		d = 1 / guard(1+coef*d)
		c = guard(1 + coef/c)
		return c * d
	}
	for m := 1.0; m < 1e5; m++ {
		f *= term(m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m)))
		delta := term(-(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1)))
		f *= delta
		if math.Abs(delta-1) < 1e-15 {
			break
		}
	}
	return f
}
