package quad

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/treelb/treelb/hashtable"
)

// MaxDegree is the highest degree d of a random polynomial (seed 003 §4.2:
// d ∈ {0, 1, …, 100}); polynomials given by their roots have at most this
// many roots too.
const MaxDegree = 100

// MaxFactor is the largest amplifier a of a random polynomial (seed 003
// §4.2: a ∈ {1, 2, …, 500}).
const MaxFactor = 500

// Poly is the integrand of seed 003 §4.2: f(x) = (a·π(x))², the square of a
// polynomial π(x) = (x−r₁)(x−r₂)…(x−r_d) given by its roots, amplified by a.
// It is evaluated in this product form, which keeps the relative error of
// f(x) within about 2(d+1) rounding errors wherever x is, where expanded
// coefficients would cancel catastrophically for large d. A Poly is
// immutable and safe for concurrent use.
type Poly struct {
	factor float64
	roots  []float64
}

// NewPoly returns (factor·∏(x−rᵢ))² for the given roots. The roots and the
// factor must be finite and there may be at most MaxDegree roots; the
// random polynomials have roots in [0, 1) and an integer factor in
// 1..MaxFactor, but any finite values are accepted here.
func NewPoly(factor float64, roots []float64) (*Poly, error) {
	if len(roots) > MaxDegree {
		return nil, fmt.Errorf("quad: polynomial of degree %d: at most %d roots", len(roots), MaxDegree)
	}
	if math.IsNaN(factor) || math.IsInf(factor, 0) {
		return nil, fmt.Errorf("quad: polynomial factor %v is not finite", factor)
	}
	for i, r := range roots {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("quad: polynomial root %d is %v, not finite", i+1, r)
		}
	}
	return &Poly{factor: factor, roots: append([]float64(nil), roots...)}, nil
}

// RandomPoly returns the random polynomial of seed 003 §4.2 for a seed: a
// degree d uniform in {0, …, 100}, a factor a uniform in {1, …, 500} and d
// roots uniform in [0, 1). The values are the same on every machine; they
// come, in this order, from the SplitMix64 generator hashtable.NewRand(seed):
// d = Below(101), a = 1 + Below(500), then the roots r₁, …, r_d = Float64()
// (multiples of 2^−53). It is O(d).
func RandomPoly(seed uint64) *Poly {
	rng := hashtable.NewRand(seed)
	d := int(rng.Below(MaxDegree + 1))
	return randomRest(rng, d)
}

// RandomPolyDegree is RandomPoly with the degree fixed at d instead of
// drawn: the first draw of the stream is still made and discarded, so
// RandomPolyDegree(seed, RandomPoly(seed).Degree()) is RandomPoly(seed).
func RandomPolyDegree(seed uint64, d int) (*Poly, error) {
	if d < 0 || d > MaxDegree {
		return nil, fmt.Errorf("quad: polynomial degree %d out of 0..%d", d, MaxDegree)
	}
	rng := hashtable.NewRand(seed)
	rng.Below(MaxDegree + 1)
	return randomRest(rng, d), nil
}

// randomRest draws the factor and d roots.
func randomRest(rng *hashtable.Rand, d int) *Poly {
	p := &Poly{factor: float64(1 + rng.Below(MaxFactor)), roots: make([]float64, d)}
	for i := range p.roots {
		p.roots[i] = rng.Float64()
	}
	return p
}

// Degree returns d, the number of roots (the integrand has degree 2d).
func (p *Poly) Degree() int { return len(p.roots) }

// Factor returns the amplifier a.
func (p *Poly) Factor() float64 { return p.factor }

// Roots returns a copy of the roots.
func (p *Poly) Roots() []float64 { return append([]float64(nil), p.roots...) }

// Eval returns (a·∏(x−rᵢ))². It is O(d) and allocates nothing.
func (p *Poly) Eval(x float64) float64 {
	v := p.factor
	for _, r := range p.roots {
		v *= x - r
	}
	return v * v
}

// String returns the polynomial as factor and roots in the shortest decimal
// form that reads back exactly, the factor inside the square as Eval has
// it: "(500·(x−0.25)(x−0.5))²" (it read "500·((x−0.25)(x−0.5))²", a
// function negative for a negative factor).
func (p *Poly) String() string {
	var b strings.Builder
	b.WriteString("(")
	b.WriteString(strconv.FormatFloat(p.factor, 'g', -1, 64))
	if len(p.roots) > 0 {
		b.WriteString("·")
	}
	for _, r := range p.roots {
		b.WriteString("(x−")
		b.WriteString(strconv.FormatFloat(r, 'g', -1, 64))
		b.WriteString(")")
	}
	b.WriteString(")²")
	return b.String()
}

// Integral returns ∫ₐᵇ f exactly, rounded once to the nearest float64: the
// real integral of (factor·∏(x−rᵢ))² for the float64 values of factor,
// roots and ends, not an approximation. It expands the polynomial in
// integers (big.Int): every root and both ends are k/2^E for one common E,
// so π(x) = 2^(−Ed)·Q(2^E·x) with an integer polynomial Q, and
// ∫ₐᵇ f = factor²·2^(−2Ed−E)·Σₖ sₖ(β^(k+1) − α^(k+1))/(k+1), where the sₖ are
// the coefficients of Q², α = 2^E·a and β = 2^E·b. It takes O(d²)
// multiplications of numbers of O(d·E) bits: milliseconds for d = 100
// and roots drawn by RandomPoly (E = 53).
func (p *Poly) Integral(a, b float64) float64 {
	e := max(scaleExp(a), scaleExp(b))
	for _, r := range p.roots {
		e = max(e, scaleExp(r))
	}
	// q = Q, coefficients low degree first.
	q := []*big.Int{big.NewInt(1)}
	for _, r := range p.roots {
		n := scaled(r, e)
		next := make([]*big.Int, len(q)+1)
		for k := range next {
			next[k] = new(big.Int)
		}
		var t big.Int
		for k, c := range q {
			next[k+1].Add(next[k+1], c)
			next[k].Sub(next[k], t.Mul(c, n))
		}
		q = next
	}
	// s = Q².
	s := make([]*big.Int, 2*len(q)-1)
	for k := range s {
		s[k] = new(big.Int)
	}
	var t big.Int
	for i, ci := range q {
		for j, cj := range q {
			s[i+j].Add(s[i+j], t.Mul(ci, cj))
		}
	}
	// num/den = Σₖ sₖ(β^(k+1) − α^(k+1))/(k+1), over den = lcm(1..2d+1).
	lo, hi := scaled(a, e), scaled(b, e)
	den := big.NewInt(1)
	for k := 2; k <= len(s); k++ {
		kk := big.NewInt(int64(k))
		den.Div(new(big.Int).Mul(den, kk), new(big.Int).GCD(nil, nil, den, kk))
	}
	num := new(big.Int)
	pa, pb := new(big.Int).Set(lo), new(big.Int).Set(hi) // α^(k+1), β^(k+1)
	var term, w big.Int
	for k, sk := range s {
		term.Sub(pb, pa)
		term.Mul(&term, sk)
		term.Mul(&term, w.Div(den, big.NewInt(int64(k+1))))
		num.Add(num, &term)
		pa.Mul(pa, lo)
		pb.Mul(pb, hi)
	}
	// × factor² / (den · 2^(2Ed+E)).
	var fr big.Rat
	fr.SetFloat64(p.factor)
	fr.Mul(&fr, &fr)
	r := new(big.Rat).SetFrac(num, den.Lsh(den, uint(2*e*len(p.roots)+e)))
	r.Mul(r, &fr)
	v, _ := r.Float64()
	return v
}

// scaleExp returns the least E ≥ 0 for which x·2^E is an integer.
func scaleExp(x float64) int {
	if x == 0 {
		return 0
	}
	m, e := math.Frexp(x) // x = m·2^e, 0.5 ≤ |m| < 1, m has 53 bits
	mi := int64(math.Ldexp(m, 53))
	tz := 0
	for mi&1 == 0 {
		mi >>= 1
		tz++
	}
	return max(0, 53-e-tz)
}

// scaled returns x·2^e as an integer; x·2^e must be one.
func scaled(x float64, e int) *big.Int {
	f := new(big.Float).SetFloat64(x)
	f.SetMantExp(f, e)
	n, _ := f.Int(nil)
	return n
}
