package quad

import (
	"math"
	"strings"
	"testing"
)

// TestRandomPolyGolden pins the random polynomials of a few seeds, bit for
// bit, so that a change of generator or of the order of the draws shows:
// the seed's experiment must draw the same polynomials on every machine.
func TestRandomPolyGolden(t *testing.T) {
	for _, g := range []struct {
		seed         uint64
		degree       int
		factor       float64
		first, last  uint64 // bits of the first and last root
		evalAt03Bits uint64 // bits of f(0.3)
	}{
		{1, 57, 373, 0x3fef12745ddf664a, 0x3feeaaa81657fe0c, 0x30be86fabb11f654},
		{2, 59, 375, 0x3fe30f7797fbafca, 0x3fecb5fd5bcac149, 0x2d06f31fcaa80a09},
		{42, 74, 80, 0x3fd1d499d5c4c3e6, 0x3fea23446b958200, 0x2bbcabe33172c376},
	} {
		p := RandomPoly(g.seed)
		r := p.Roots()
		if p.Degree() != g.degree || p.Factor() != g.factor || math.Float64bits(r[0]) != g.first ||
			math.Float64bits(r[len(r)-1]) != g.last || math.Float64bits(p.Eval(0.3)) != g.evalAt03Bits {
			t.Errorf("seed %d: degree %d factor %v roots %#x…%#x f(0.3) %#x; want %d %v %#x…%#x %#x", g.seed,
				p.Degree(), p.Factor(), math.Float64bits(r[0]), math.Float64bits(r[len(r)-1]), math.Float64bits(p.Eval(0.3)),
				g.degree, g.factor, g.first, g.last, g.evalAt03Bits)
		}
	}
}

// TestRandomPolyRanges: over many seeds the draws stay in their ranges and
// cover them (degree 0 and 100, factor 1 and 500 appear).
func TestRandomPolyRanges(t *testing.T) {
	seenD := map[int]bool{}
	seenA := map[float64]bool{}
	for seed := range uint64(20000) {
		p := RandomPoly(seed)
		d, a := p.Degree(), p.Factor()
		if d < 0 || d > MaxDegree || a < 1 || a > MaxFactor || a != math.Trunc(a) {
			t.Fatalf("seed %d: degree %d factor %v", seed, d, a)
		}
		for _, r := range p.roots {
			if r < 0 || r >= 1 {
				t.Fatalf("seed %d: root %v", seed, r)
			}
		}
		seenD[d], seenA[a] = true, true
		if seed < 50 {
			q, err := RandomPolyDegree(seed, d)
			if err != nil || q.String() != p.String() {
				t.Fatalf("seed %d: RandomPolyDegree(seed, %d) = %v, %v; want %v", seed, d, q, err, p)
			}
		}
	}
	if len(seenD) != MaxDegree+1 || len(seenA) != MaxFactor {
		t.Errorf("%d degrees and %d factors seen, want all %d and %d", len(seenD), len(seenA), MaxDegree+1, MaxFactor)
	}
}

func TestPolyValidation(t *testing.T) {
	for _, c := range []struct {
		factor float64
		roots  []float64
		want   string
	}{
		{1, make([]float64, MaxDegree+1), "degree 101"},
		{math.NaN(), nil, "factor"},
		{math.Inf(1), nil, "factor"},
		{1, []float64{0.5, math.Inf(-1)}, "root 2"},
	} {
		if _, err := NewPoly(c.factor, c.roots); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPoly(%v, %d roots) = %v, want an error about %q", c.factor, len(c.roots), err, c.want)
		}
	}
	for _, d := range []int{-1, MaxDegree + 1} {
		if _, err := RandomPolyDegree(1, d); err == nil {
			t.Errorf("RandomPolyDegree(1, %d) accepted", d)
		}
	}
	if _, err := NewPoly(500, make([]float64, MaxDegree)); err != nil {
		t.Errorf("degree %d refused: %v", MaxDegree, err)
	}
}

// TestPolyEval: the product form against a direct expansion for small
// degrees, where the expansion is accurate.
func TestPolyEval(t *testing.T) {
	p, _ := NewPoly(3, []float64{0.25, 0.5})
	for _, x := range []float64{-1, 0, 0.25, 0.3, 0.5, 2} {
		want := 9 * (x*x - 0.75*x + 0.125) * (x*x - 0.75*x + 0.125)
		if got := p.Eval(x); math.Abs(got-want) > 1e-15*math.Max(1, want) {
			t.Errorf("f(%v) = %v, want %v", x, got, want)
		}
	}
	if got := p.String(); got != "(3·(x−0.25)(x−0.5))²" {
		t.Errorf("String = %q", got)
	}
	// The factor inside the square: a negative one read as a negative function.
	q, _ := NewPoly(-2, []float64{0.5})
	if got := q.String(); got != "(-2·(x−0.5))²" || q.Eval(0) != 1 {
		t.Errorf("String = %q, f(0) = %v", got, q.Eval(0))
	}
}

// TestPolyIntegralExact checks the exact integral on closed forms.
func TestPolyIntegralExact(t *testing.T) {
	for _, c := range []struct {
		factor float64
		roots  []float64
		a, b   float64
		want   float64
	}{
		{3, nil, -1, 2.5, 9 * 3.5},
		{1, []float64{0}, 0, 1, 1.0 / 3},
		{1, []float64{0.5}, 0, 1, 1.0 / 12},
		{2, []float64{0, 1}, 0, 1, 2.0 / 15},                // 4·∫x²(1−x)² = 4/30
		{1, []float64{0, 0}, -1, 1, 2.0 / 5},                // ∫x⁴
		{0.5, []float64{1, 1, 1}, 0, 2, 0.25 * 2 / 7},       // ∫(x−1)⁶ = 2/7
		{1, []float64{0}, 0, 0x1p-100, 0x1p-300 / 3},        // tiny scale: E far above 53
		{1, []float64{1e-300}, 0, 1, 1.0 / 3},               // (1/3)(1−r)³ + r³/3 rounds to 1/3
		{-7, []float64{2}, 2, 3, 49.0 / 3},                  // sign of the factor is squared away
		{0, []float64{0.1, 0.2}, 0, 1, 0},                   // zero polynomial
		{1, []float64{-0.5, 0.5}, -0.5, 0.5, 1.0 / 30},      // ∫(x²−¼)² over [−½,½] = 1/30
		{4, []float64{0.125}, 0.125, 0.625, 16 * 0.125 / 3}, // 16·(½)³/3
	} {
		p, err := NewPoly(c.factor, c.roots)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Integral(c.a, c.b); got != c.want {
			t.Errorf("%v over [%v, %v]: %v, want %v", p, c.a, c.b, got, c.want)
		}
	}
}

// TestPolyIntegralRelations checks the exact integral of random polynomials
// of high degree against relations it must satisfy: additivity over a split
// interval and invariance under the reflection x → 1−x.
func TestPolyIntegralRelations(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		p := RandomPoly(seed)
		whole := p.Integral(0, 1)
		parts := p.Integral(0, 0.375) + p.Integral(0.375, 1)
		if math.Abs(whole-parts) > 4e-16*whole {
			t.Errorf("seed %d: ∫₀¹ = %v, ∫₀^⅜ + ∫⅜¹ = %v", seed, whole, parts)
		}
		r := p.Roots()
		for i := range r {
			r[i] = 1 - r[i] // exact: r is a multiple of 2^−53 in [0, 1)
		}
		q, _ := NewPoly(p.Factor(), r)
		if mirror := q.Integral(0, 1); mirror != whole {
			t.Errorf("seed %d: ∫₀¹ = %v, mirrored %v", seed, whole, mirror)
		}
	}
}
