package tree

import (
	"math"
	"sync/atomic"
)

// maxTables bounds the depths that get a step table; deeper geometric nodes
// (only in expdec trees or absurd depth parameters) compute their count
// one by one, correctly but slowly.
const maxTables = 4096

// leafCount is the count of a node whose reference count is negative: the
// C (int) conversion of NaN or of a quotient beyond the 32-bit range.
const leafCount = math.MinInt32

// geometric gives the children of geometric nodes. Its step tables are
// built on first use of a depth; that is safe for concurrent use (two
// builders of one depth store equal tables).
type geometric struct {
	p      Params
	cr     *crConst
	fixed  *steps                  // Fixed: the one table of depths < Depth
	tables []atomic.Pointer[steps] // other shapes: per depth, nil until built
}

// steps is the count of children at one depth as a step function of the
// node's 31-bit number h.
type steps struct {
	at   []uint32 // at[k] is the least h with at least k+1 children; increasing
	over uint32   // h ≥ over: the quotient overflows C's int, a leaf
}

// count returns the number of children of a node with number h; leafCount
// when the reference's is negative.
func (s *steps) count(h uint32) int32 {
	if h >= s.over {
		return leafCount
	}
	n := 0
	for n < len(s.at) && h >= s.at[n] {
		n++
	}
	return int32(n)
}

// init prepares the geometric rule for depths below maxDepth.
func (g *geometric) init(p Params, maxDepth int) {
	g.p = p
	g.cr = newCRConst()
	if p.Shape == Fixed {
		g.fixed = g.build(g.logQ(0))
		return
	}
	n := maxTables
	switch p.Shape {
	case Linear:
		// b_i reaches 0 at depth d: no node is deeper.
		if p.Depth >= 1 {
			n = min(n, p.Depth+1)
		}
	case Cyclic:
		if p.Depth >= 0 {
			n = min(n, 5*p.Depth+2)
		}
	}
	n = max(min(n, maxDepth), 1)
	g.tables = make([]atomic.Pointer[steps], n)
}

// count returns the number of children of a geometric node with number h
// at the given height, capped at MaxChildren, or leafCount.
func (g *geometric) count(h uint32, height int) int32 {
	if g.fixed != nil {
		if height == 0 || height < g.p.Depth { // the root always has b_0
			return g.fixed.count(h)
		}
		return 0 // b_i = 0: p = 1, ln(1−p) = −∞, the quotient is ±0
	}
	if height < len(g.tables) {
		s := g.tables[height].Load()
		if s == nil {
			s = g.build(g.logQ(height))
			g.tables[height].Store(s)
		}
		return s.count(h)
	}
	return g.countAt(h, g.logQ(height))
}

// bi is the mean number of children at a depth, the reference's b_i, with
// its floating-point operations in its order.
func (g *geometric) bi(depth int) float64 {
	b0 := g.p.B
	if depth == 0 {
		return b0
	}
	d, mx := float64(depth), float64(int32(g.p.Depth))
	switch g.p.Shape {
	case ExpDec:
		return b0 * g.cr.pow(d, -g.cr.log(b0)/g.cr.log(mx))
	case Cyclic:
		if depth > int(5*int32(g.p.Depth)) { // C int arithmetic
			return 0
		}
		return g.cr.pow(b0, g.cr.sin(2.0*3.141592653589793*d/mx))
	case Fixed:
		if depth < g.p.Depth {
			return b0
		}
		return 0
	default: // Linear
		return b0 * (1.0 - d/mx)
	}
}

// logQ returns ln(1−p) at a depth, p = 1/(1+b_i): the denominator of the
// reference's inverse geometric distribution ⌊ln(1−u)/ln(1−p)⌋.
func (g *geometric) logQ(depth int) float64 {
	p := 1.0 / (1.0 + g.bi(depth))
	return g.cr.log(1 - p)
}

// atLeast reports whether ln(1−h/2³¹)/l ≥ k in the reference's double
// arithmetic (l < 0 finite, k ≥ 1). Go's math.Log is within an ulp or so
// of the correctly rounded logarithm; only when the fast quotient lies
// within 10⁻¹² of k is the logarithm computed correctly rounded.
func (g *geometric) atLeast(h uint32, l, k float64) bool {
	x := 1 - float64(h)/(1<<31)
	q := math.Log(x) / l
	if math.Abs(q-k) > 1e-12*k {
		return q >= k
	}
	return g.cr.log(x)/l >= k
}

// countAt returns the count of a node with number h where ln(1−p) = l: the
// reference's (int)⌊ln(1−u)/l⌋ capped at MaxChildren.
func (g *geometric) countAt(h uint32, l float64) int32 {
	switch {
	case math.IsNaN(l) || l == 0:
		return leafCount // the quotient is NaN or ±∞
	case l > 0 || math.IsInf(l, -1):
		// The quotient is ≤ 0 (the reference's count then is ≤ 0): a
		// leaf either way.
		return 0
	}
	if g.atLeast(h, l, 1<<31) {
		return leafCount
	}
	// The quotient is in [0, 2³¹): find its floor, at most MaxChildren.
	x := 1 - float64(h)/(1<<31)
	n := int32(min(math.Floor(math.Log(x)/l), MaxChildren))
	for n > 0 && !g.atLeast(h, l, float64(n)) {
		n--
	}
	for n < MaxChildren && g.atLeast(h, l, float64(n+1)) {
		n++
	}
	return n
}

// build returns the step table for ln(1−p) = l.
func (g *geometric) build(l float64) *steps {
	s := &steps{over: 1 << 31}
	switch {
	case math.IsNaN(l) || l == 0:
		s.over = 0
		return s
	case l > 0 || math.IsInf(l, -1):
		return s
	}
	// The quotient grows with h: bisect for each step.
	least := func(k float64) uint32 {
		if !g.atLeast(1<<31-1, l, k) {
			return 1 << 31
		}
		lo, hi := uint32(0), uint32(1<<31-1) // !atLeast(lo) unless lo = 0; atLeast(hi)
		if g.atLeast(0, l, k) {
			return 0
		}
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if g.atLeast(mid, l, k) {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi
	}
	s.over = least(1 << 31)
	for k := 1; k <= MaxChildren; k++ {
		h := least(float64(k))
		if h >= s.over {
			break
		}
		s.at = append(s.at, h)
	}
	return s
}
