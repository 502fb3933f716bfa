package tree

import (
	"math"
	"math/big"
)

// The reference computes its geometric branching factors with the C
// library's log, pow and sin. Go's math package is accurate to about one
// unit in the last place but is not glibc: measured on this project's
// machine (glibc 2.36, x86-64), math.Log, math.Pow and math.Sin differ from
// glibc's log, pow and sin in the last bit for 4%, 36% and 31% of random
// arguments, and the per-depth ln(1−p) of the cyclic and expdec trees T2,
// T2L, T4 and three others differ at 88 of 667 depths. glibc's functions
// round correctly in all but rare cases (0.05–0.14% of the same arguments),
// so the per-depth constants here are computed correctly rounded, in
// big.Float arithmetic with far more bits than a float64 holds, rounded
// once; they then differ from glibc's at 1 of those 667 depths. A constant
// that differs in the last bit changes a child count only if one of the
// count's steps falls within that bit, which the step digests of the tests
// rule out for the trees they cover.

// prec is the working precision of the correctly rounded functions, in bits;
// the series below lose a few bits, far fewer than prec − 53.
const prec = 192

// crConst holds the constants of the correctly rounded functions; the zero
// value is not usable, see newCRConst.
type crConst struct {
	ln2, pi, twoPi *big.Float
}

// newCRConst computes ln 2 and π to prec bits.
func newCRConst() *crConst {
	c := &crConst{}
	// ln 2 = 2·atanh(1/3).
	third := newF().Quo(newF().SetInt64(1), newF().SetInt64(3))
	c.ln2 = atanhSeries(third)
	c.ln2.Mul(c.ln2, newF().SetInt64(2))
	// Machin: π = 16·atan(1/5) − 4·atan(1/239).
	a := atanInv(5)
	b := atanInv(239)
	c.pi = newF().Sub(a.Mul(a, newF().SetInt64(16)), b.Mul(b, newF().SetInt64(4)))
	c.twoPi = newF().Mul(c.pi, newF().SetInt64(2))
	return c
}

func newF() *big.Float { return new(big.Float).SetPrec(prec) }

// epsExp is the binary exponent below which a series term is negligible:
// the series stop at terms smaller than 2^−(prec+8).
const epsExp = -(prec + 8)

// small reports whether a series term is negligible.
func small(t *big.Float) bool {
	return t.Sign() == 0 || t.MantExp(nil) < epsExp
}

// atanhSeries returns atanh(t) = t + t³/3 + t⁵/5 + … for |t| ≤ 1/3.
func atanhSeries(t *big.Float) *big.Float {
	sum := newF().Set(t)
	t2 := newF().Mul(t, t)
	pow := newF().Set(t)
	for k := int64(3); ; k += 2 {
		pow.Mul(pow, t2)
		term := newF().Quo(pow, newF().SetInt64(k))
		if small(term) {
			return sum
		}
		sum.Add(sum, term)
	}
}

// atanInv returns atan(1/n) = Σ (−1)^k / ((2k+1)·n^(2k+1)) for n ≥ 2.
func atanInv(n int64) *big.Float {
	x := newF().Quo(newF().SetInt64(1), newF().SetInt64(n))
	x2 := newF().Mul(x, x)
	sum := newF().Set(x)
	pow := newF().Set(x)
	for k := int64(1); ; k++ {
		pow.Mul(pow, x2)
		term := newF().Quo(pow, newF().SetInt64(2*k+1))
		if small(term) {
			return sum
		}
		if k%2 == 1 {
			sum.Sub(sum, term)
		} else {
			sum.Add(sum, term)
		}
	}
}

// bigLog returns ln x for a finite x > 0 as a big.Float.
func (c *crConst) bigLog(x float64) *big.Float {
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	m := newF().SetFloat64(frac * 2)
	exp--
	// m in [1, 2): move it to [√½, √2] so that |t| ≤ 0.172 below.
	if m.Cmp(newF().SetFloat64(math.Sqrt2)) > 0 {
		m.Quo(m, newF().SetInt64(2))
		exp++
	}
	num := newF().Sub(m, newF().SetInt64(1))
	den := newF().Add(m, newF().SetInt64(1))
	r := atanhSeries(num.Quo(num, den))
	r.Mul(r, newF().SetInt64(2))
	return r.Add(r, newF().Mul(c.ln2, newF().SetInt64(int64(exp))))
}

// log returns the correctly rounded natural logarithm of x, with the special
// cases of math.Log (which are C's).
func (c *crConst) log(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) || x == 1 {
		return math.Log(x)
	}
	v, _ := c.bigLog(x).Float64()
	return v
}

// bigExp returns e^y for a big.Float y of moderate size (|y| < 2^20).
func (c *crConst) bigExp(y *big.Float) *big.Float {
	// y = n·ln2 + r with |r| ≤ ln2/2; e^r by Taylor on r/2^8, squared 8 times.
	q := newF().Quo(y, c.ln2)
	qf, _ := q.Float64()
	n := math.Round(qf)
	r := newF().Sub(y, newF().Mul(c.ln2, newF().SetFloat64(n)))
	const halvings = 8
	r.SetMantExp(r, -halvings)
	sum := newF().SetInt64(1)
	term := newF().SetInt64(1)
	for k := int64(1); ; k++ {
		term.Mul(term, r)
		term.Quo(term, newF().SetInt64(k))
		if small(term) {
			break
		}
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(n))
}

// pow returns x^y correctly rounded for finite x > 0 and finite y whose
// result is a normal float64; otherwise it returns math.Pow(x, y), whose
// special cases are C's.
func (c *crConst) pow(x, y float64) float64 {
	if !(x > 0) || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(y) || x == 1 || y == 0 {
		return math.Pow(x, y)
	}
	approx := math.Pow(x, y)
	if approx == 0 || math.IsInf(approx, 0) || math.Abs(approx) < 0x1p-1000 || math.Abs(approx) > 0x1p1000 {
		return approx
	}
	l := c.bigLog(x)
	v, _ := c.bigExp(l.Mul(l, newF().SetFloat64(y))).Float64()
	return v
}

// sin returns the correctly rounded sine of a finite x with |x| < 2^20;
// otherwise math.Sin(x).
func (c *crConst) sin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.Abs(x) >= 1<<20 {
		return math.Sin(x)
	}
	// Reduce to r in [−π, π].
	r := newF().SetFloat64(x)
	k := newF().Quo(r, c.twoPi)
	kf, _ := k.Float64()
	n := math.Round(kf)
	r.Sub(r, newF().Mul(c.twoPi, newF().SetFloat64(n)))
	r2 := newF().Mul(r, r)
	sum := newF().Set(r)
	term := newF().Set(r)
	for k := int64(1); ; k++ {
		term.Mul(term, r2)
		term.Quo(term, newF().SetInt64((2*k)*(2*k+1)))
		term.Neg(term)
		if small(term) {
			break
		}
		sum.Add(sum, term)
	}
	v, _ := sum.Float64()
	return v
}
