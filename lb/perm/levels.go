package perm

import (
	"fmt"
	"math"
)

// Default parameters of the level bounds: tolerated imbalance ε, standard
// deviation σ of the splitting factor (σ = ½ − α of α-splitting, so 0.25
// means "the smaller piece is about a quarter"), and the exponent β of the
// failure probability p^−β of LevelsWHP.
const (
	DefaultEpsilon = 0.1
	DefaultSigma   = 0.25
	DefaultBeta    = 1.0
)

// checkLevelArgs panics, in O(1), on arguments outside the bounds' domain.
func checkLevelArgs(p int, eps, sigma float64) {
	if p < 1 || !(eps > 0) || !(sigma >= 0 && sigma <= 0.5) {
		panic(fmt.Sprintf("perm: levels: need p ≥ 1, ε > 0, 0 ≤ σ ≤ ½; got p=%d ε=%v σ=%v", p, eps, sigma))
	}
}

// LevelsLower returns, in O(1), the real k of seed 001 §5.2 (Theorem 4):
//
//	k_lower = (log₂ p + log₂(1/ε)) / log₂(1/(σ + ½)),
//
// the least k with (σ+½)^k ≤ ε/p, i.e. with the expected size of the leaf
// reached by always keeping the larger piece (seed 001 Theorem 2) at most ε
// times a PE's average load 1/p. It is 0 when ε ≥ p, +Inf otherwise for σ
// = ½, and panics unless p ≥ 1, ε > 0 and 0 ≤ σ ≤ ½.
func LevelsLower(p int, eps, sigma float64) float64 {
	checkLevelArgs(p, eps, sigma)
	return ratio(math.Log2(float64(p))-math.Log2(eps), -math.Log2(sigma+0.5))
}

// ratio returns num/den in O(1) for den ≥ 0, as 0 when num ≤ 0 (k = 0
// already suffices) and +Inf when only den is 0.
func ratio(num, den float64) float64 {
	if num <= 0 {
		return 0
	}
	if den <= 0 { // also −0 from −log₂ 1
		return math.Inf(1)
	}
	return num / den
}

// LevelsUpper returns, in O(1), the real k of seed 001 Theorem 5:
//
//	k_upper = 2(log₂ p + log₂(1/ε)) / log₂(1/(2σ² + ½)),
//
// for which the seed proves E max_i Z_i ≤ (1+2ε)/p for the PE loads Z_i
// (via the variance bound of its Theorem 3 and Chebyshev). It is 0 when ε ≥
// p, +Inf otherwise for σ = ½, and panics unless p ≥ 1, ε > 0 and 0 ≤ σ ≤
// ½.
func LevelsUpper(p int, eps, sigma float64) float64 {
	checkLevelArgs(p, eps, sigma)
	return ratio(2*(math.Log2(float64(p))-math.Log2(eps)), -math.Log2(2*sigma*sigma+0.5))
}

// LevelsWHP returns, in O(1), the real h of seed 000 Theorem 3 with the
// constant c = 2(β+1)/ε² of the proof of its Theorem 2:
//
//	h = log₂(c·p·ln p) / log₂(1/(½ + σ)),
//
// which makes the largest leaf of α-splitting with α = ½ − σ at most (1 −
// α)^h = 1/(c·p·ln p), so that P[L_max > (1+ε)/p] ≤ p^−β even against the
// adversary of Lemma 1. It is 0 for p = 1 (no imbalance is possible) or
// c·p·ln p ≤ 1, +Inf otherwise for σ = ½, and panics unless p ≥ 1, ε > 0, β ≥ 0 and 0 ≤ σ ≤ ½.
func LevelsWHP(p int, eps, sigma, beta float64) float64 {
	checkLevelArgs(p, eps, sigma)
	if !(beta >= 0) {
		panic(fmt.Sprintf("perm: levels: need β ≥ 0; got %v", beta))
	}
	if p == 1 {
		return 0
	}
	c := 2 * (beta + 1) / (eps * eps)
	return ratio(math.Log2(c*float64(p)*math.Log(float64(p))), -math.Log2(sigma+0.5))
}

// DefaultLevels returns, in O(1), the default number k of splitting levels
// for p ranks, tolerated imbalance ε and splitting-factor deviation σ:
//
//	k = min(MaxLevels, max(⌈log₂ p⌉, 1, ⌈(log₂ p + log₂(1/ε)) / log₂(1/(σ+½))⌉)).
//
// The middle term is LevelsLower, the bound of seed 001 §5.2. Reading of
// the seeds: both give m = 2^k ≈ p^x leaves with the same exponent x =
// 1/log₂(1/(½+σ)) (x(α) of seed 000 with α = ½ − σ, as seed 000 §3
// translates the models). Seed 001 §5.2 (and seed 000 Theorem 4) says that
// with fewer levels the leaf reached by always keeping the larger piece has
// expected size (σ+½)^k > ε/p — exactly so under the two-point splitting
// model, which is the worst case for a given σ — so the PE that gets it
// carries about (1+ε)/p: the bound is necessary. Seed 000 Theorem 3 says
// that x·(log₂ p + log₂ ln p + log₂(2(β+1)/ε²)) levels suffice with
// probability 1 − p^−β against any adversary (LevelsWHP), and seed 001
// Theorem 5 that 2(log₂ p + log₂(1/ε))/log₂(1/(2σ²+½)) levels suffice on
// average (LevelsUpper). The default keeps the common x·log₂ p term with
// the log₂(1/ε) margin of seed 001 and drops the log log p and β/ε² slack
// of the worst case, because the splitting cost k·2^k/p per rank grows like
// 2^k: for p = 64, σ = ¼ the sufficient bounds ask for 2^5 (Theorem 5) to
// 2^18 (Theorem 3) times more leaves. The floor ⌈log₂ p⌉ gives every rank a
// leaf.
//
// With ε = 0.1 and σ = 0.25: p = 1 → 9, 2 → 11, 4 → 13, 8 → 16, 16 → 18,
// 64 → 23. It panics unless p ≥ 1, ε > 0 and 0 ≤ σ ≤ ½ (σ = ½ gives
// MaxLevels unless ε ≥ p).
func DefaultLevels(p int, eps, sigma float64) int {
	k := max(1, bitsLen(p-1))
	lower := LevelsLower(p, eps, sigma)
	// A hair below the integer so that float noise cannot add a level.
	if lower-1e-9 > MaxLevels {
		return MaxLevels
	}
	k = max(k, int(math.Ceil(lower-1e-9)))
	return min(k, MaxLevels)
}

// bitsLen returns ⌈log₂(x+1)⌉ in O(log x), i.e. ⌈log₂ p⌉ for x = p − 1.
func bitsLen(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}
