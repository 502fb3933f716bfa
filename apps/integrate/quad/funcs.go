package quad

import (
	"fmt"
	"math"
	"strings"
)

// Func is a named test integrand with a closed-form antiderivative, so its
// exact integral over any interval is known. Its functions are pure and
// safe for concurrent use.
type Func struct {
	Name    string
	Formula string                // f(x), for people
	Why     string                // what it tests
	F       func(float64) float64 // the integrand
	G       func(float64) float64 // an antiderivative: G′ = F
	// Exact, where set, is ∫ₐᵇ F in a form that does not cancel where
	// G(b) − G(a) does (gauss's tails, where erf is 1 to the last place,
	// exp on a short interval).
	Exact func(a, b float64) float64
}

// Integral returns ∫ₐᵇ F: Exact(a, b) where set, else G(b) − G(a), exact up
// to the rounding of G and of the difference (a few units in the last
// place of max |G|).
func (f Func) Integral(a, b float64) float64 {
	if f.Exact != nil {
		return f.Exact(a, b)
	}
	return f.G(b) - f.G(a)
}

// erfDiff returns erf(v) − erf(u) without the cancellation of the tails:
// from erfc where both are on one side of 0 (erf(25) − erf(24) is 0 in
// float64, its erfc form 4.4·10⁻²⁵³).
func erfDiff(u, v float64) float64 {
	switch {
	case u >= 0 && v >= 0:
		return math.Erfc(u) - math.Erfc(v)
	case u <= 0 && v <= 0:
		return math.Erfc(-v) - math.Erfc(-u)
	}
	return math.Erf(v) - math.Erf(u)
}

// third is where kink and step change, 1/3 rounded: not a dyadic point, so
// no bisection ever lands on it.
const third = 1.0 / 3

// Funcs returns the named test functions, a new slice on every call:
//
//	sqrt   √x                 G = ⅔x^(3/2)                 ∫₀¹ = 2/3
//	exp    eˣ                 G = eˣ                        ∫₀¹ = e − 1
//	runge  1/(1+25x²)         G = atan(5x)/5                ∫₀¹ = atan(5)/5
//	gauss  e^(−100(x−½)²)     G = (√π/20)·erf(10(x−½))      ∫₀¹ = (√π/10)·erf(5)
//	osc    x·sin(30x)         G = sin(30x)/900 − x·cos(30x)/30  ∫₀¹ ≈ −0.0062395
//	kink   |x − ⅓|            G = (x−⅓)|x−⅓|/2               ∫₀¹ = 5/18
//	step   0 below ⅓, 1 from ⅓ on   G = max(0, x−⅓)          ∫₀¹ = 2/3
//
// sqrt is defined for x ≥ 0 only (NaN below).
func Funcs() []Func {
	return []Func{
		{Name: "sqrt", Formula: "√x", Why: "infinite slope at 0: deep refinement near the left end",
			F: math.Sqrt, G: func(x float64) float64 { return 2 * x * math.Sqrt(x) / 3 }},
		{Name: "exp", Formula: "eˣ", Why: "smooth and convex: a nearly uniform tree",
			F: math.Exp, G: math.Exp,
			Exact: func(a, b float64) float64 { return math.Exp(a) * math.Expm1(b-a) }},
		{Name: "runge", Formula: "1/(1+25x²)", Why: "Runge's function: smooth with a sharp peak at 0",
			F: func(x float64) float64 { return 1 / (1 + 25*x*x) },
			G: func(x float64) float64 { return math.Atan(5*x) / 5 }},
		{Name: "gauss", Formula: "e^(−100(x−½)²)", Why: "narrow bump in the middle, flat tails",
			F:     func(x float64) float64 { d := x - 0.5; return math.Exp(-100 * d * d) },
			G:     func(x float64) float64 { return math.Sqrt(math.Pi) / 20 * math.Erf(10*(x-0.5)) },
			Exact: func(a, b float64) float64 { return math.Sqrt(math.Pi) / 20 * erfDiff(10*(a-0.5), 10*(b-0.5)) }},
		{Name: "osc", Formula: "x·sin(30x)", Why: "oscillating with growing amplitude, changes sign",
			F: func(x float64) float64 { return x * math.Sin(30*x) },
			G: func(x float64) float64 { return math.Sin(30*x)/900 - x*math.Cos(30*x)/30 }},
		{Name: "kink", Formula: "|x − ⅓|", Why: "a kink off the dyadic grid",
			F: func(x float64) float64 { return math.Abs(x - third) },
			G: func(x float64) float64 { d := x - third; return d * math.Abs(d) / 2 }},
		{Name: "step", Formula: "0 for x < ⅓, 1 for x ≥ ⅓", Why: "a jump: refinement down to θ_a-sized intervals at ⅓",
			F: func(x float64) float64 {
				if x < third {
					return 0
				}
				return 1
			},
			G: func(x float64) float64 { return max(0, x-third) }},
	}
}

// LookupFunc returns the named test function called name.
func LookupFunc(name string) (Func, error) {
	var names []string
	for _, f := range Funcs() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Func{}, fmt.Errorf("quad: no test function %q (have %s)", name, strings.Join(names, ", "))
}
