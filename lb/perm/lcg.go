package perm

import (
	"fmt"
	"math/rand/v2"
)

// MaxLCGLevels is the largest k of an LCG or Sobol permutation: Len() = 2^k
// must fit a uint64.
const MaxLCGLevels = 63

// LCG is the permutation of {1, …, 2^k} given by a full-period linear
// congruential generator (seed 000 §4): At costs O(k) word operations (jump
// ahead), each Next of an Iter O(1). The zero value is not usable; build one
// with NewLCG or New.
//
// With x_0 = x0 and x_{j+1} = a·x_j + c mod 2^k, π(j) = x_j + 1. By the
// Hull–Dobell theorem (Knuth, TAOCP vol. 2, §3.2.1.2, Theorem A) the period
// is the full 2^k exactly when c is odd and a ≡ 1 (mod 4) (for k ≥ 2; a odd
// for k = 1), so x_0, …, x_{2^k−1} is a permutation of [0, 2^k).
//
// Bit i of x_j has period 2^(i+1) in j, so any 2^b consecutive values take
// every residue mod 2^b exactly once. Read from the low bit up, the path
// π(j) − 1 of a PE's block of 2^b consecutive j therefore visits every
// subtree of depth b exactly once (a regular, stratified placement rather
// than a random one); read from the high bit down, the placement looks
// random. GF looks random both ways.
type LCG struct {
	k        int
	mask     uint64 // 2^k − 1
	a, c, x0 uint64
	// f^(2^i) is x ↦ jumpA[i]·x + jumpC[i] mod 2^k, for i < k.
	jumpA, jumpC [MaxLCGLevels]uint64
}

// NewLCG returns the LCG permutation with multiplier a, increment c and start
// x0 (all taken mod 2^k) in O(k) word operations. It fails unless 0 ≤ k ≤
// MaxLCGLevels and, for k ≥ 1, c is odd and a ≡ 1 (mod 4) (a odd for k = 1):
// the Hull–Dobell conditions for full period.
func NewLCG(k int, a, c, x0 uint64) (*LCG, error) {
	if k < 0 || k > MaxLCGLevels {
		return nil, fmt.Errorf("perm: lcg: k = %d outside [0, %d]", k, MaxLCGLevels)
	}
	mask := uint64(1)<<k - 1
	a, c, x0 = a&mask, c&mask, x0&mask
	switch {
	case k >= 1 && c&1 == 0:
		return nil, fmt.Errorf("perm: lcg: increment c = %d is even: period below 2^%d", c, k)
	case k == 1 && a&1 == 0, k >= 2 && a&3 != 1:
		return nil, fmt.Errorf("perm: lcg: multiplier a = %d is not 1 mod 4: period below 2^%d", a, k)
	}
	g := &LCG{k: k, mask: mask, a: a, c: c, x0: x0}
	// f^(2^i) as x ↦ A·x + C; f^(2^(i+1)) = f^(2^i) ∘ f^(2^i).
	A, C := a, c
	for i := 0; i < k; i++ {
		g.jumpA[i], g.jumpC[i] = A, C
		A, C = A*A&mask, (A*C+C)&mask
	}
	return g, nil
}

// DrawLCG draws, in O(1) draws from rng, parameters for NewLCG: a ≡ 5
// (mod 8) for k ≥ 3 (the best potency, Knuth §3.2.1.3; a = 1 for k ≤ 2), c
// odd and x0 uniform, all below 2^k. rng must not be nil.
func DrawLCG(k int, rng *rand.Rand) (a, c, x0 uint64) {
	if k < 0 || k > MaxLCGLevels {
		k = 0
	}
	mask := uint64(1)<<k - 1
	a = 1
	if k >= 3 {
		a = (rng.Uint64()<<3 | 5) & mask
	}
	c = (rng.Uint64() | 1) & mask
	x0 = rng.Uint64() & mask
	return a, c, x0
}

// K returns k in O(1).
func (g *LCG) K() int { return g.k }

// Len returns 2^k in O(1).
func (g *LCG) Len() uint64 { return g.mask + 1 }

// Params returns the multiplier, increment and start in O(1).
func (g *LCG) Params() (a, c, x0 uint64) { return g.a, g.c, g.x0 }

// state returns x_j = f^j(x0) in O(k) word operations by composing the
// precomputed maps f^(2^i) for the bits i of j.
func (g *LCG) state(j uint64) uint64 {
	x := g.x0
	for i := 0; j != 0 && i < g.k; i++ {
		if j&1 != 0 {
			x = (g.jumpA[i]*x + g.jumpC[i]) & g.mask
		}
		j >>= 1
	}
	return x
}

// At returns π(j) = x_j + 1 in O(k) word operations, by jumping ahead with
// no state. It panics if j ≥ Len().
func (g *LCG) At(j uint64) uint64 {
	if j > g.mask {
		panic(fmt.Sprintf("perm: lcg: index %d out of range [0, %d)", j, g.mask+1))
	}
	return g.state(j) + 1
}

// Iter returns an iterator over π(from), …, π(2^k − 1) in O(k) word
// operations; each of its Next calls costs O(1). A from ≥ Len() gives an
// exhausted iterator.
func (g *LCG) Iter(from uint64) Iterator {
	it := &lcgIter{g: g, j: from}
	if from <= g.mask {
		it.x = g.state(from)
	}
	return it
}

// lcgIter walks an LCG permutation; x is the state for index j.
type lcgIter struct {
	g    *LCG
	j, x uint64
}

// Next returns the next value in O(1), or false once past the end.
func (it *lcgIter) Next() (uint64, bool) {
	g := it.g
	if it.j > g.mask {
		return 0, false
	}
	v := it.x + 1
	it.j++
	it.x = (g.a*it.x + g.c) & g.mask
	return v, true
}
