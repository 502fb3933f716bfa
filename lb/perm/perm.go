package perm

import (
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"math/rand/v2"
)

// Perm is a permutation π of {1, …, Len()} queried by 0-based index in at
// most O(k²) word operations for the kinds here (GF; O(k) for LCG and
// Sobol): At(j) is π(j) for j ∈ [0, Len()), and panics for other j.
type Perm interface {
	Len() uint64
	At(j uint64) uint64
}

// Iterator walks a permutation from some index on: each Next returns the
// next value and true, or 0 and false past the end. The iterators of this
// package cost O(k) (GF), O(1) (LCG, Sobol) word operations per Next.
type Iterator interface {
	Next() (uint64, bool)
}

// iterable is a Perm with a cheap sequential walk.
type iterable interface {
	Iter(from uint64) Iterator
}

// Walk returns an iterator over p.At(from), p.At(from+1), …, p.At(p.Len()−1)
// in O(1) plus the cost of the first element; it uses p's own incremental
// Iter when p has one, and calls At for each element otherwise.
func Walk(p Perm, from uint64) Iterator {
	if it, ok := p.(iterable); ok {
		return it.Iter(from)
	}
	return &atIter{p: p, j: from}
}

// atIter walks any Perm with At, at the cost of At per element.
type atIter struct {
	p Perm
	j uint64
}

// Next returns p.At(j) and advances, at the cost of one At.
func (it *atIter) Next() (uint64, bool) {
	if it.j >= it.p.Len() {
		return 0, false
	}
	v := it.p.At(it.j)
	it.j++
	return v, true
}

// Values returns the sequence of pairs (j, π(j)) for j ∈ [from, to) (to
// clipped to p.Len()), computing the first by At and the others
// incrementally (see Walk); for range loops.
func Values(p Perm, from, to uint64) iter.Seq2[uint64, uint64] {
	return func(yield func(uint64, uint64) bool) {
		if to > p.Len() {
			to = p.Len()
		}
		if from >= to {
			return
		}
		it := Walk(p, from)
		for j := from; j < to; j++ {
			v, ok := it.Next()
			if !ok || !yield(j, v) {
				return
			}
		}
	}
}

// Block returns in O(1) the 0-based index range [lo, hi) of the block of
// rank ∈ [0, ranks) when m indices are dealt out in contiguous blocks: lo =
// ⌊rank·m/ranks⌋, so block sizes differ by at most one (seed 000 §4, Fig. 1,
// footnote 10, for ranks not a power of two). It panics unless 0 ≤ rank <
// ranks.
func Block(m uint64, rank, ranks int) (lo, hi uint64) {
	if ranks <= 0 || rank < 0 || rank >= ranks {
		panic(fmt.Sprintf("perm: block: rank %d outside [0, %d)", rank, ranks))
	}
	at := func(r int) uint64 {
		h, l := bits.Mul64(m, uint64(r))
		q, _ := bits.Div64(h, l, uint64(ranks))
		return q
	}
	return at(rank), at(rank + 1)
}

// Kinds lists, in O(1), the kind names accepted by New; the first is the
// default.
func Kinds() []string { return []string{"gf", "lcg", "sobol"} }

// New returns, in O(k²) word operations, a permutation of {1, …, 2^k} of the
// given kind — "gf" (or ""), "lcg" or "sobol" — with its parameters drawn
// from rng by DrawGF, DrawLCG or DrawSobol. Ranks that must agree on the
// permutation pass identically seeded sources. It fails for an unknown kind,
// a nil rng or k outside [0, MaxLevels].
func New(kind string, k int, rng *rand.Rand) (Perm, error) {
	if rng == nil {
		return nil, errors.New("perm: nil random source")
	}
	if k < 0 || k > MaxLevels {
		return nil, fmt.Errorf("perm: k = %d outside [0, %d]", k, MaxLevels)
	}
	switch kind {
	case "", "gf":
		l, at, err := DrawGF(k, rng)
		if err != nil {
			return nil, err
		}
		return NewGF(k, l, at)
	case "lcg":
		a, c, x0 := DrawLCG(k, rng)
		return NewLCG(k, a, c, x0)
	case "sobol":
		return DrawSobol(k, rng)
	}
	return nil, fmt.Errorf("perm: unknown kind %q (want one of %q)", kind, Kinds())
}
