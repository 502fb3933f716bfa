package perm

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// MaxSobolDegree bounds the degree of the recurrence polynomial DrawSobol
// picks.
const MaxSobolDegree = 10

// Sobol is the permutation of {1, …, 2^k} given by a one-dimensional Sobol
// sequence (seed 001 §3) in Gray-code order with a digital shift and a
// fold: At costs O(k) word operations, each Next of an Iter O(1). The zero
// value is not usable; build one with NewSobol, DrawSobol or New.
//
// The direction numbers m_1, m_2, … (m_i odd, m_i < 2^i) follow the
// Bratley–Fox recurrence of a primitive polynomial x^s + a_1 x^(s−1) + … +
// a_(s−1) x + 1 of degree s:
//
//	m_i = 2a_1·m_(i−1) ⊕ 4a_2·m_(i−2) ⊕ … ⊕ 2^(s−1)a_(s−1)·m_(i−s+1) ⊕ 2^s·m_(i−s) ⊕ m_(i−s)
//
// from s given initial values, and v_i = m_i·2^(k−i) are k-bit integers.
// With gray(j) = j ⊕ ⌊j/2⌋,
//
//	x(j) = shift ⊕ (XOR of v_(i+1) over the set bits i of gray(j)),
//	π(j) = 1 + F(x(j)),  F(x) = x ⊕ (reverse_k(x) mod 2^⌊k/2⌋),
//
// where reverse_k reverses the k low bits. The lowest set bit of v_i is bit
// k−i, so the v_i are linearly independent over GF(2) and x is a bijection;
// F is its own inverse (it only adds high-half bits into the low half).
//
// Why F: v_1, …, v_b live in the top b bits, so an aligned block of 2^b
// consecutive j (a PE's block) has x(j) running over a coset of the top-b-bit
// subspace — every top-b-bit pattern once (the (0,1)-sequence property), but
// all with the same low k−b bits. Read from the low bit up, such a block
// would be one whole subtree: no randomization at all. After F every aligned
// block of 2^b, for every b, takes every pattern of its low d bits and of its
// high d bits equally often (2^(b−d) times for d ≤ b; TestSobolEnumerates
// checks this for all k ≤ 20), so whichever end π(j) − 1 is read from, a PE
// gets the same number of leaves in every subtree of depth d ≤ b.
type Sobol struct {
	k      int
	degree int
	shift  uint64
	v      [MaxLCGLevels]uint64
}

// NewSobol returns, in O(k·s) word operations, the Sobol permutation of {1,
// …, 2^k} with the tabulated primitive polynomial of degree s, the initial
// direction numbers init = (m_1, …, m_s) and the digital shift (taken mod
// 2^k). It fails unless 0 ≤ k ≤ MaxLCGLevels, 1 ≤ s ≤ MaxLevels, len(init)
// = s and each m_i is odd and below 2^i.
func NewSobol(k, s int, init []uint64, shift uint64) (*Sobol, error) {
	if k < 0 || k > MaxLCGLevels {
		return nil, fmt.Errorf("perm: sobol: k = %d outside [0, %d]", k, MaxLCGLevels)
	}
	if s < 1 || s > MaxLevels {
		return nil, fmt.Errorf("perm: sobol: degree %d outside [1, %d]", s, MaxLevels)
	}
	if len(init) != s {
		return nil, fmt.Errorf("perm: sobol: %d initial direction numbers for degree %d", len(init), s)
	}
	for i, m := range init {
		if m&1 == 0 || m>>(i+1) != 0 {
			return nil, fmt.Errorf("perm: sobol: m_%d = %d is not odd and below 2^%d", i+1, m, i+1)
		}
	}
	p := primitive[s]
	var m [MaxLCGLevels + 1]uint64 // m[i] = m_i, 1-based
	for i := 1; i <= k; i++ {
		if i <= s {
			m[i] = init[i-1]
			continue
		}
		x := m[i-s] ^ m[i-s]<<s
		for r := 1; r < s; r++ {
			if p>>(s-r)&1 != 0 {
				x ^= m[i-r] << r
			}
		}
		m[i] = x
	}
	q := &Sobol{k: k, degree: s, shift: shift & (uint64(1)<<k - 1)}
	for i := 1; i <= k; i++ {
		q.v[i-1] = m[i] << (k - i)
	}
	return q, nil
}

// DrawSobol returns, in O(k·s) word operations, a Sobol permutation with a
// degree s uniform in [1, min(k, MaxSobolDegree)] (1 for k = 0), initial
// direction numbers uniform among the valid ones and a uniform shift, all
// drawn from rng.
func DrawSobol(k int, rng *rand.Rand) (*Sobol, error) {
	if k < 0 || k > MaxLCGLevels {
		return nil, fmt.Errorf("perm: sobol: k = %d outside [0, %d]", k, MaxLCGLevels)
	}
	s := 1
	if k > 1 {
		s = 1 + rng.IntN(min(k, MaxSobolDegree))
	}
	init := make([]uint64, s)
	for i := range init {
		// odd and below 2^(i+1): i random bits above a set bit 0.
		init[i] = (rng.Uint64()&(uint64(1)<<i-1))<<1 | 1
	}
	return NewSobol(k, s, init, rng.Uint64())
}

// K returns k in O(1).
func (q *Sobol) K() int { return q.k }

// Degree returns the degree s of the recurrence polynomial in O(1).
func (q *Sobol) Degree() int { return q.degree }

// Len returns 2^k in O(1).
func (q *Sobol) Len() uint64 { return uint64(1) << q.k }

// At returns π(j) in O(k) word operations, with no state. It panics if j ≥
// Len().
func (q *Sobol) At(j uint64) uint64 {
	if j >= q.Len() {
		panic(fmt.Sprintf("perm: sobol: index %d out of range [0, %d)", j, q.Len()))
	}
	x := q.shift
	for g := j ^ j>>1; g != 0; g &= g - 1 {
		x ^= q.v[bits.TrailingZeros64(g)]
	}
	return q.fold(x) + 1
}

// fold returns F(x) = x ⊕ (reverse_k(x) mod 2^⌊k/2⌋) in O(1).
func (q *Sobol) fold(x uint64) uint64 {
	if q.k < 2 {
		return x
	}
	return x ^ bits.Reverse64(x)>>(64-q.k)&(uint64(1)<<(q.k/2)-1)
}

// Iter returns an iterator over π(from), …, π(2^k − 1) in O(k) word
// operations; each of its Next calls costs O(1). A from ≥ Len() gives an
// exhausted iterator.
func (q *Sobol) Iter(from uint64) Iterator {
	it := &sobolIter{q: q, j: from}
	if from < q.Len() {
		it.x = q.fold(q.At(from) - 1) // F is an involution
	}
	return it
}

// sobolIter walks a Sobol permutation; x is x(j), before the fold.
type sobolIter struct {
	q    *Sobol
	j, x uint64
}

// Next returns the next value in O(1): gray(j+1) differs from gray(j) in
// bit ctz(j+1) only.
func (it *sobolIter) Next() (uint64, bool) {
	if it.j >= it.q.Len() {
		return 0, false
	}
	v := it.q.fold(it.x) + 1
	it.j++
	if it.j < it.q.Len() {
		it.x ^= it.q.v[bits.TrailingZeros64(it.j)]
	}
	return v, true
}
