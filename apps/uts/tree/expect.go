package tree

import "fmt"

// Expected sizes. A UTS tree is a branching process: its expected size is
// the sum over the depths of the product of the mean numbers of children
// above them, and it is infinite when that mean stays at 1 or more at every
// depth from some depth on. Such a tree's count may still end (a binomial
// tree with q·m = 1 ends with probability 1), but a search of it has no
// bound on its expected time or memory; the commands refuse it unless a
// node bound (--max-nodes) ends the run.

// tailDepth is the depth at which Unbounded looks at the mean number of
// children of the shapes whose depth has no bound (expdec, and linear
// with d < 0).
const tailDepth = 1 << 20

// Unbounded reports whether the expected size of the tree of valid
// parameters p is infinite, and why: a binomial rule (binomial trees
// below the root, hybrid trees below f·d) with q·min(m, 100) ≥ 1, a linear
// shape with d < 0 (b_i grows with the depth), or an expdec shape whose
// mean number of children is still 1 or more at depth 2²⁰ (b_i = b·i^e
// with e = −ln b / ln d ≥ 0: b ≥ 1 and d > 1 with e = 0, d ≤ 1, or b < 1
// with d > 1; also a decreasing b_i that reaches 1 only beyond 2²⁰, whose
// tree is finite but larger than any search). The means are the counts'
// own, MaxChildren cap and all (the step tables of the geometric rule).
func Unbounded(p Params) (string, bool) {
	t, err := New(p)
	if err != nil {
		return "", false
	}
	switch p.Type {
	case Binomial:
		if t.rootCount <= 0 {
			return "", false // the root is a leaf
		}
		if m := t.binMean(); m >= 1 {
			children := "children"
			if t.m == 1 {
				children = "child"
			}
			return fmt.Sprintf("binomial tree with q·m = %.6g ≥ 1 (every node but the root has %d %s with probability %g)", m, t.m, children, p.Q), true
		}
	case Hybrid:
		m := t.binMean()
		if m < 1 {
			return "", false
		}
		// The binomial rule applies below depth f·d if the geometric part
		// above reaches it.
		for d := 0; d < t.geoDepth && d < maxTables; d++ {
			if t.geoMean(d) == 0 {
				return "", false
			}
		}
		return fmt.Sprintf("hybrid tree whose binomial part (below depth %d) has q·m = %.6g ≥ 1", t.geoDepth, m), true
	case Geometric:
		switch p.Shape {
		case Linear:
			if int32(p.Depth) < 0 {
				return fmt.Sprintf("geometric tree of linear shape with d = %d < 0: the mean number of children b·(1 − i/d) grows with the depth i", p.Depth), true
			}
		case ExpDec:
			if m := t.geoMean(tailDepth); m >= 1 {
				return fmt.Sprintf("geometric tree of expdec shape with b = %g and d = %d: the mean number of children is still %.3g at depth %d", p.B, p.Depth, m, tailDepth), true
			}
		}
	}
	return "", false
}

// binMean is the mean number of children of a node under the binomial
// rule: min(m, MaxChildren) with probability ⌈q·2³¹⌉/2³¹ (the exact share
// of the 31-bit numbers h < q·2³¹).
func (t *Tree) binMean() float64 {
	n := 0.0
	if t.qScaled > 0 {
		n = float64(uint64(t.qScaled))
		if n < t.qScaled {
			n++
		}
	}
	return float64(t.m) * min(n, 1<<31) / (1 << 31)
}

// geoMean is the mean number of children of a node at depth d under the
// geometric rule: the sum over k ≥ 1 of the share of the node numbers with
// at least k children, from the depth's step table.
func (t *Tree) geoMean(d int) float64 {
	g := &t.geo
	if g.cr == nil {
		return 0
	}
	var s *steps
	if g.fixed != nil {
		if d > 0 && d >= g.p.Depth {
			return 0
		}
		s = g.fixed
	} else {
		s = g.build(g.logQ(d))
	}
	sum := 0.0
	for _, at := range s.at {
		if at < s.over {
			sum += float64(s.over - at)
		}
	}
	return sum / (1 << 31)
}
