package knap

import (
	"math"
	"math/big"
	"math/bits"
)

// mul128 returns a·b as a signed 128-bit number hi·2^64 + lo.
func mul128(a, b int64) (hi int64, lo uint64) {
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	h, l := bits.Mul64(ua, ub)
	if (a < 0) != (b < 0) {
		l = -l
		h = ^h
		if l == 0 {
			h++
		}
	}
	return int64(h), l
}

// lessWide reports whether a·b < c·d, exactly.
func lessWide(a, b, c, d int64) bool {
	h1, l1 := mul128(a, b)
	h2, l2 := mul128(c, d)
	return h1 < h2 || h1 == h2 && l1 < l2
}

// less reports whether a·b < c·d; narrow promises that neither product
// overflows int64, and then it costs two multiplications.
func less(narrow bool, a, b, c, d int64) bool {
	if narrow {
		return a*b < c*d
	}
	return lessWide(a, b, c, d)
}

// fitsProduct reports whether a·b ≤ MaxInt64 for a, b ≥ 0.
func fitsProduct(a, b int64) bool {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi == 0 && lo <= math.MaxInt64
}

// floorMulDiv returns ⌊a·b/d⌋ for d > 0, saturated to the int64 range.
func floorMulDiv(a, b, d int64) int64 {
	hi, lo := mul128(a, b)
	if hi == 0 && lo <= math.MaxInt64 || hi == -1 && lo > math.MaxInt64 {
		x := int64(lo) // a·b fits in int64
		q, r := x/d, x%d
		if r < 0 {
			q--
		}
		return q
	}
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	x.Div(x, big.NewInt(d)) // Euclidean division: the floor, as d > 0
	switch {
	case x.IsInt64():
		return x.Int64()
	case x.Sign() < 0:
		return math.MinInt64
	default:
		return math.MaxInt64
	}
}
