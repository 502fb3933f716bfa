// Package ruler finds shortest Golomb rulers: n marks at integer positions,
// the first at 0, all pairwise differences distinct, the last mark (the
// length) as small as possible (seed 002, §6.1).
//
// The search is heuristic backtracking over bitsets in the style of the
// shift-register OGR searches: for the current last mark it keeps the set L
// of distances back to every mark, the set D of differences used so far and
// the set C = D − L of distances that the next mark may not take. Placing the
// next mark at distance d gives D' = D ∪ (L+d), L' = {0} ∪ (L+d) and
// C' = D' ∪ (C » d), a few shifts and ors per node. Pruning uses the optimal
// lengths of shorter rulers, which Solve computes first, and mirror images
// are skipped by demanding that the first difference be smaller than the
// last.
//
// The depth-first search runs on an explicit stack, so a Search is an
// lb.Task: it works for a bounded number of nodes, resumes, splits off the
// shallowest open alternatives and travels as bytes.
package ruler

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/treelb/treelb/cert"
	"github.com/treelb/treelb/lb"
)

// MaxMarks is the most marks the search supports: distances live in 256-bit
// sets, and the shortest 20-mark ruler is 283 long (OEIS A003022).
const MaxMarks = 19

// RoughNodes is a rough estimate, within a factor of a few, of the nodes
// that a search for a shortest ruler with marks marks expands (all its
// steps): the measured 1.5·10⁹ for 13 marks, times ten per further mark
// (the growth from 9 to 13 marks is 7 to 18 per mark). O(1).
func RoughNodes(marks int) float64 {
	return 1.5e9 * math.Pow(10, float64(marks-13))
}

// MaxLength is the longest ruler the bitsets can hold.
const MaxLength = 255

// Mode says what a Problem searches for.
type Mode int

const (
	// Shortest is branch-and-bound for a shortest ruler: every ruler found
	// tightens the bound to one less than its length.
	Shortest Mode = iota
	// Count counts every ruler up to a fixed length, with no tightening:
	// an exhaustive search whose node count is the same however it is split.
	Count
)

// Problem is one rank's view of a search for rulers with N marks: the
// bounds, the incumbent and the results found on this rank. It implements
// lb.App. It is not safe for concurrent use.
type Problem struct {
	n      int
	mode   Mode
	g      []int         // g[m] = length of a shortest m-mark ruler, m < n
	maxLen int           // search rulers of length ≤ maxLen
	lim    [MaxMarks]int // lim[k]: mark k may stand at most here (maxLen − g[n−k])
	// lim0 is lim for the initial maxLen, which every rank of a parallel
	// search shares: Split prunes with it, so that every rank splits a task
	// alike whatever bounds it learnt since (static placement and fast
	// initialisation compute the pieces on every rank alone).
	lim0 [MaxMarks]int
	// near is the deepest level at which Split gives work away when it
	// can (Shortest mode; 0 in Count mode): see nearLevel.
	near int

	best      []int  // Shortest: best ruler found on this rank, or nil
	solutions int64  // Count: rulers found on this rank
	digest    uint64 // Count: the sum of the Hash of the rulers found here
	nodes     int64
	// replayed counts the frames rebuilt because a task was split or
	// moved: the path of a chain of restrictions (divideBelow), which the
	// part that keeps the chain expands again as nodes, and the path a
	// decoded task replays (Unmarshal). They are not nodes of the tree.
	replayed int64
}

// NewProblem returns a problem for rulers with n marks. g[m] must be the
// length of a shortest m-mark ruler for 1 ≤ m < n (g[1] = 0; g[0] unused).
// In Shortest mode the search looks for rulers of length ≤ maxLen and then
// shorter ones; in Count mode it counts the rulers of length ≤ maxLen.
func NewProblem(n int, g []int, mode Mode, maxLen int) (*Problem, error) {
	p := new(Problem)
	if err := p.reset(n, g, mode, maxLen); err != nil {
		return nil, err
	}
	return p, nil
}

// reset makes p what NewProblem(n, g, mode, maxLen) returns, reusing the
// storage of its g.
func (p *Problem) reset(n int, g []int, mode Mode, maxLen int) error {
	if n < 2 || n > MaxMarks {
		return fmt.Errorf("ruler: %d marks: need 2 to %d", n, MaxMarks)
	}
	if len(g) < n {
		return fmt.Errorf("ruler: %d marks need the lengths of shorter rulers up to %d marks, got %d", n, n-1, len(g)-1)
	}
	if maxLen < 1 || maxLen > MaxLength {
		return fmt.Errorf("ruler: maximum length %d out of 1..%d", maxLen, MaxLength)
	}
	*p = Problem{n: n, mode: mode, g: append(p.g[:0], g[:n]...)}
	p.setMaxLen(maxLen)
	p.lim0 = p.lim
	if mode == Shortest {
		p.near = nearLevel(n)
	}
	return nil
}

// nearLevel returns how deep Split of a branch-and-bound search for n marks
// looks first for work to give away (Search.divide): the deepest level up
// to it that has two or more untried distances. Splitting at the shallowest
// level instead, as an exhaustive count does, deals the ranks pieces from
// all over the tree at once, which they search with the weak bounds of the
// start, while the sequential search finds its good bounds early, in the
// leftmost subtrees. Giving away the distances just after the victim's own
// keeps the ranks near the sequential search's frontier, so that they learn
// the bounds in about the order it does. Deeper pieces are smaller and
// cost more steals: level 2 pays from 12 marks on, level 1 at 11, and
// smaller searches, shorter than a few thousand work slices, keep the
// shallowest split. Level 3 searches fewer nodes at 1024 ranks (`golomb
// 13` on the simulated GCel, seed 1: 1.01 times the sequential nodes
// against 1.09 at level 2) but takes longer at every P measured, 2 to
// 1024 (14.5 against 11.5 virtual seconds there; 1.06-2.2 times level 2's
// time on 2 to 64 simulated cluster ranks; docs/scaling.md).
func nearLevel(n int) int {
	switch {
	case n >= 12:
		return 2
	case n == 11:
		return 1
	}
	return 0
}

// setMaxLen sets the longest ruler searched for and the limits it implies.
func (p *Problem) setMaxLen(l int) {
	p.maxLen = l
	for k := 1; k < p.n; k++ {
		p.lim[k] = l - p.g[p.n-k]
	}
}

// frame is one level of the search stack: the mark at depth k, the sets after
// placing it, and the distances for mark k+1 still to try.
type frame struct {
	pos   int
	list  bitset // distances from this mark back to every mark, 0 included
	dist  bitset // differences used
	comp  bitset // distances the next mark may not take
	avail bitset // distances for the next mark still to try
}

// Search is a subproblem: the path to level base is fixed, and the task owns
// the untried alternatives of the levels base..top. When its only work is
// the subtree of the one alternative left at level top, it may own just a
// part of that subtree: a chain of restrictions (levels top+1..rtop) that
// Work applies to the frames it creates below it, one alternative per level
// down to the last, which keeps a subset. That is how Split keeps halving a
// task below its shallowest level (static placement cuts the root into 2^k
// pieces). It implements lb.Task and lb.Halver and is not safe for
// concurrent use.
type Search struct {
	p    *Problem
	base int
	top  int // top < base: empty
	st   [MaxMarks]frame
	// rtop > top: when Work creates the frame of level k, top < k ≤ rtop,
	// its untried distances are cut to mask[k].
	rtop int
	mask [MaxMarks]bitset
	// built: the frames st[top+1..built] are the chain's path, as Split
	// last computed them (Work overwrites them; then built ≤ top).
	built int
}

func (s *Search) rootFrame() {
	f := &s.st[0]
	*f = frame{}
	f.list.set(0)
	f.avail = bitset{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	f.avail.clear(0)
	s.base, s.top, s.rtop, s.built = 0, 0, 0, 0
}

// Root returns the whole search.
func (p *Problem) Root() lb.Task {
	s := &Search{p: p}
	s.rootFrame()
	return s
}

// Work expands up to budget nodes (placed marks) depth first.
func (s *Search) Work(budget int64) int64 {
	p := s.p
	n := p.n
	var nodes int64
	top, rtop := s.top, s.rtop
	for nodes < budget && top >= s.base {
		f := &s.st[top]
		d := f.avail.lowest()
		if d == 256 {
			top--
			rtop = min(rtop, top) // a chain of restrictions ends with its path
			continue
		}
		f.avail.clear(d)
		k := top + 1
		np := f.pos + int(d)
		if np > p.lim[k] {
			f.avail = bitset{} // larger distances are longer still
			continue
		}
		nodes++
		if k == n-1 {
			if n == 2 || int(d) > s.st[1].pos {
				s.found(np, k)
			}
			continue
		}
		g := &s.st[k]
		var nl, c bitset
		if d < 64 {
			// Inline shifts for the common short distances; r, l < 64.
			r, l := d&63, (64-d)&63
			nl = bitset{f.list[0] << r, f.list[1]<<r | f.list[0]>>l, f.list[2]<<r | f.list[1]>>l, f.list[3]<<r | f.list[2]>>l}
			c = bitset{f.comp[0]>>r | f.comp[1]<<l, f.comp[1]>>r | f.comp[2]<<l, f.comp[2]>>r | f.comp[3]<<l, f.comp[3] >> r}
		} else {
			nl, c = f.list.shl(d), f.comp.shr(d)
		}
		g.pos = np
		g.list = bitset{nl[0] | 1, nl[1], nl[2], nl[3]}
		g.dist = bitset{f.dist[0] | nl[0], f.dist[1] | nl[1], f.dist[2] | nl[2], f.dist[3] | nl[3]}
		g.comp = bitset{c[0] | g.dist[0], c[1] | g.dist[1], c[2] | g.dist[2], c[3] | g.dist[3]}
		g.avail = bitset{^g.comp[0] &^ 1, ^g.comp[1], ^g.comp[2], ^g.comp[3]}
		if k <= rtop {
			g.avail = g.avail.and(s.mask[k])
		}
		top = k
	}
	s.top, s.rtop, s.built = top, rtop, 0
	p.nodes += nodes
	return nodes
}

// child sets g to the frame after placing the next mark of f at distance d
// (not below, not in f.comp), with every distance untried.
func (f *frame) child(d uint, g *frame) {
	nl := f.list.shl(d)
	c := f.comp.shr(d)
	g.pos = f.pos + int(d)
	g.list = bitset{nl[0] | 1, nl[1], nl[2], nl[3]}
	g.dist = bitset{f.dist[0] | nl[0], f.dist[1] | nl[1], f.dist[2] | nl[2], f.dist[3] | nl[3]}
	g.comp = bitset{c[0] | g.dist[0], c[1] | g.dist[1], c[2] | g.dist[2], c[3] | g.dist[3]}
	g.avail = bitset{^g.comp[0] &^ 1, ^g.comp[1], ^g.comp[2], ^g.comp[3]}
}

// legal returns the distances of level k's untried ones that place the mark
// of level k+1 within its initial limit (lim0); the others Work prunes
// without counting a node.
func (s *Search) legal(k int) bitset {
	f := &s.st[k]
	room := s.p.lim0[k+1] - f.pos
	if room < 1 {
		return bitset{}
	}
	return f.avail.and(below(min(room, MaxLength) + 1))
}

// found records a ruler whose last mark, at depth k, is at np.
func (s *Search) found(np, k int) {
	p := s.p
	if p.mode == Count {
		p.solutions++
		h := startHash(p.n)
		for i := 0; i < k; i++ {
			h = nextHash(h, s.st[i].pos)
		}
		p.digest += nextHash(h, np)
		return
	}
	r := make([]int, 0, p.n)
	for i := 0; i < k; i++ {
		r = append(r, s.st[i].pos)
	}
	r = append(r, np)
	if p.best == nil || better(r, p.best) {
		p.best = r
	}
	p.setMaxLen(min(p.maxLen, np-1))
}

// Hash returns the hash of a ruler that a counting search adds into its
// digest (Outcome.Digest) when it finds the ruler: its marks, in order,
// mixed one after the other into a hash of their number. O(len(marks)).
func Hash(marks []int) uint64 {
	h := startHash(len(marks))
	for _, m := range marks {
		h = nextHash(h, m)
	}
	return h
}

// startHash and nextHash are the steps of Hash.
func startHash(n int) uint64          { return cert.Mix(uint64(n)) }
func nextHash(h uint64, m int) uint64 { return cert.Mix(h ^ uint64(m)) }

// better orders rulers by length, then lexicographically.
func better(a, b []int) bool {
	if a[len(a)-1] != b[len(b)-1] {
		return a[len(a)-1] < b[len(b)-1]
	}
	return slices.Compare(a, b) < 0
}

// Empty reports whether no alternative is left to try.
func (s *Search) Empty() bool {
	for k := s.base; k <= s.top; k++ {
		if !s.st[k].avail.empty() {
			return false
		}
	}
	return true
}

// Split gives away every other untried distance within the length limit,
// starting with the next, of the deepest level up to the problem's near
// level (nearLevel; 0 in Count mode) that has two or more, so that a
// branch-and-bound search hands out the work next to its own first;
// failing that, of the shallowest level that has any; when that
// level has only one left and deeper levels hold work, it gives that one
// away. When the one alternative left at the top level is all the task
// holds, it splits that alternative's subtree instead: it follows single
// children down to the first level with two or more legal ones and gives
// away every other of those, the task keeping the rest as a chain of
// restrictions (rtop). It returns nil when nothing is left to give. Split
// expands no node: the nodes of the chain are counted by the task when its
// Work reaches them. O(depth) word operations.
func (s *Search) Split() lb.Task { return s.split(s.p.near) }

// SplitEven splits as Split does but at the shallowest level that has work
// (Split with no near level), giving away about half of the task
// (lb.EvenSplitter): poll-and-shuffle's phases need it. On the simulated
// GCel at 1024 ranks, `golomb 12` under ps took 382 virtual seconds with
// Split's near pieces (busy fraction 0.002) against 6.0 with the
// shallowest split (docs/apps/golomb.md).
func (s *Search) SplitEven() lb.Task { return s.split(0) }

// split is Split with the given near level.
func (s *Search) split(near int) lb.Task {
	k, give, below, ok := s.divide(near)
	if !ok {
		return nil
	}
	o := &Search{p: s.p, base: k, top: k, rtop: k}
	copy(o.st[:k+1], s.st[:k+1])
	o.st[k].avail = give
	s.keep(k, give, below)
	return o
}

// Halve splits the task in place as Split would, keeping the part Split
// gives away when give is true (lb.Halver).
func (s *Search) Halve(give bool) bool {
	k, g, below, ok := s.divide(s.p.near)
	if !ok {
		return false
	}
	if give {
		// The frames of a chain's path are in s.st already (divide).
		s.st[k].avail = g
		s.base, s.top, s.rtop, s.built = k, k, k, 0
	} else {
		s.keep(k, g, below)
	}
	return true
}

// Reroot makes the search the whole problem again (lb.Halver).
func (s *Search) Reroot() { s.rootFrame() }

// divide finds where Split divides the task: the level k and the distances
// to give away there, below reporting a split below the top level, whose
// path frames it then leaves in s.st[top+1..k] (slots Work overwrites
// before it uses them) with s.mask[k] the candidates at k. It drops the
// distances Work would prune uncounted and extends the chain of
// restrictions along single children, which change nothing that the task
// holds; ok is false when there is nothing to give.
func (s *Search) divide(near int) (k int, give bitset, below, ok bool) {
	if s.rtop <= s.top {
		// Near the frontier first (near, from Problem.near): the deepest
		// level up to near with two or more distances within the limit,
		// above base (the loop below does base and the levels under it).
		for k = min(s.top, near); k > s.base; k-- {
			f := &s.st[k]
			if f.avail = s.legal(k); f.avail.count() >= 2 {
				return k, f.avail.alternate(), false, true
			}
		}
	}
	for k = s.base; k <= s.top; k++ {
		f := &s.st[k]
		if s.rtop <= s.top {
			f.avail = s.legal(k)
		}
		if f.avail.empty() {
			continue
		}
		if k == s.top && (s.rtop > s.top || f.avail.count() == 1) {
			return s.divideBelow()
		}
		if f.avail.count() == 1 {
			return k, f.avail, false, true // k < top: deeper levels keep work
		}
		return k, f.avail.alternate(), false, true
	}
	return 0, bitset{}, false, false
}

// keep applies a division to the part that stays.
func (s *Search) keep(k int, give bitset, below bool) {
	set := &s.st[k].avail
	if below {
		set = &s.mask[k]
	} else if s.emptyBelow(k) {
		s.base = k // levels below k are fixed for both parts now
	}
	*set = bitset{set[0] &^ give[0], set[1] &^ give[1], set[2] &^ give[2], set[3] &^ give[3]}
}

// emptyBelow reports whether the levels from base up to k (excluded) have
// no untried distances left. O(k − base).
func (s *Search) emptyBelow(k int) bool {
	for j := s.base; j < k; j++ {
		if !s.st[j].avail.empty() {
			return false
		}
	}
	return true
}

// divideBelow divides the subtree of the one alternative left at level
// top; see divide.
func (s *Search) divideBelow() (int, bitset, bool, bool) {
	n := s.p.n
	if s.rtop <= s.top {
		if s.top+1 >= n-1 {
			// The level below is the last mark's, which Work counts as
			// leaves and no task holds as a frame (nor decodes: Unmarshal
			// refuses top + restricted ≥ n − 1): nothing to split.
			return 0, bitset{}, false, false
		}
		s.rtop = s.top + 1
		s.mask[s.rtop] = bitset{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
	}
	// Build the chain's path, but for what the last division built: level
	// j+1 follows the one distance kept at level j.
	for j := max(s.top, s.built); j < s.rtop; j++ {
		d := s.st[j].avail.lowest()
		if j > s.top {
			d = s.mask[j].lowest()
		}
		s.st[j].child(d, &s.st[j+1])
		s.p.replayed++
	}
	s.built = s.rtop
	for {
		k := s.rtop
		s.st[k].avail = s.st[k].avail.and(s.mask[k])
		cand := s.legal(k)
		switch c := cand.count(); {
		case c == 0:
			return 0, bitset{}, false, false // nothing but the chain's own nodes
		case c >= 2:
			s.mask[k] = cand
			return k, cand.alternate(), true, true
		case k+1 >= n-1:
			return 0, bitset{}, false, false // one leaf below: nothing to split
		default:
			s.mask[k] = cand
			s.st[k].child(cand.lowest(), &s.st[k+1])
			s.p.replayed++
			s.rtop, s.built = k+1, k+1
			s.mask[k+1] = bitset{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		}
	}
}

// AppendBinary encodes the task as its levels, the marks of its path
// (levels 1..top), the untried distances of the levels base..top it owns
// and its chain of restrictions: 3 + top + 32·(rtop−base+1) bytes (3 for an
// empty task).
func (s *Search) AppendBinary(b []byte) ([]byte, error) {
	if s.top < s.base {
		return append(b, 0, 0, 0), nil // empty: base 0, top 0, nothing to try
	}
	r := max(0, s.rtop-s.top)
	b = append(b, byte(s.base), byte(s.top), byte(r))
	for i := 1; i <= s.top; i++ {
		b = append(b, byte(s.st[i].pos))
	}
	for k := s.base; k <= s.top+r; k++ {
		set := &s.st[k].avail
		if k > s.top {
			set = &s.mask[k]
		}
		for _, w := range set {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	return b, nil
}

// Unmarshal decodes a task made by AppendBinary, replaying its path.
func (p *Problem) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) == 3 && b[0] == 0 && b[1] == 0 && b[2] == 0 {
		return &Search{p: p, base: 0, top: -1}, nil
	}
	if len(b) < 3 {
		return nil, fmt.Errorf("ruler: malformed task of %d bytes", len(b))
	}
	base, top, r := int(b[0]), int(b[1]), int(b[2])
	if base > top || top+r >= p.n-1 || len(b) != 3+top+32*(top+r-base+1) {
		return nil, fmt.Errorf("ruler: malformed task of %d bytes (levels %d..%d, %d restricted)", len(b), base, top, r)
	}
	s := &Search{p: p}
	s.rootFrame()
	s.st[0].avail = bitset{}
	for i := 1; i <= top; i++ {
		f, g := &s.st[i-1], &s.st[i]
		pos := int(b[2+i])
		d := pos - f.pos
		if d <= 0 || f.comp.has(uint(d)) {
			return nil, fmt.Errorf("ruler: malformed task: mark %d at %d", i, pos)
		}
		nl := f.list.shl(uint(d))
		g.pos = pos
		g.list = nl
		g.list.set(0)
		g.dist = bitset{f.dist[0] | nl[0], f.dist[1] | nl[1], f.dist[2] | nl[2], f.dist[3] | nl[3]}
		c := f.comp.shr(uint(d))
		g.comp = bitset{c[0] | g.dist[0], c[1] | g.dist[1], c[2] | g.dist[2], c[3] | g.dist[3]}
	}
	off := 3 + top
	for k := base; k <= top+r; k++ {
		set := &s.st[k].avail
		if k > top {
			set = &s.mask[k]
		}
		for w := range 4 {
			set[w] = binary.LittleEndian.Uint64(b[off:])
			off += 8
		}
	}
	s.base, s.top, s.rtop = base, top, top+r
	if r > 0 {
		// A chain belongs to the one alternative at the top, all the task
		// owns.
		for k := base; k <= top; k++ {
			if c := s.st[k].avail.count(); k < top && c != 0 || k == top && c != 1 {
				return nil, fmt.Errorf("ruler: malformed task: a chain of restrictions below %d alternatives at level %d", c, k)
			}
		}
	}
	p.replayed += int64(top) // the path's frames, rebuilt
	return s, nil
}

// Sense is lb.Minimize: shorter rulers are better.
func (p *Problem) Sense() lb.Sense { return lb.Minimize }

// Incumbent returns one more than the longest ruler still searched for,
// once a ruler is known or the search was bounded from the start; never in
// Count mode, which has no incumbent.
func (p *Problem) Incumbent() (int64, bool) {
	if p.mode == Count || (p.best == nil && p.maxLen == MaxLength) {
		return 0, false
	}
	return int64(p.maxLen) + 1, true
}

// Improve learns that a ruler of length v exists.
func (p *Problem) Improve(v int64) {
	if p.mode == Shortest && v-1 < int64(p.maxLen) {
		p.setMaxLen(int(v - 1))
	}
}

// Outcome is what a search found: on one rank (Problem.Result) or on all,
// combined (Problem.Combine).
type Outcome struct {
	Nodes     int64 // nodes expanded
	Solutions int64 // Count: rulers found
	// Digest is, in Count mode, the sum modulo 2^64 of the Hash of every
	// ruler found: with Nodes and Solutions it certifies a count
	// (package cert), the same however the search was split.
	Digest uint64
	// Replayed counts the frames rebuilt because tasks were split or
	// moved (Problem.replayed): overhead of the balancing, never in Nodes.
	Replayed int64
	Ruler    []int // Shortest: the best ruler found, nil when none
}

// Result returns what the search found on this rank.
func (p *Problem) Result() Outcome {
	return Outcome{Nodes: p.nodes, Solutions: p.solutions, Digest: p.digest, Replayed: p.replayed, Ruler: slices.Clone(p.best)}
}

// Combine adds nodes, solutions, digests and replayed frames and keeps the
// better ruler (shorter, then lexicographically smaller), so the
// combination does not depend on the order.
func (p *Problem) Combine(a, b Outcome) Outcome {
	a.Nodes += b.Nodes
	a.Solutions += b.Solutions
	a.Digest += b.Digest
	a.Replayed += b.Replayed
	if b.Ruler != nil && (a.Ruler == nil || better(b.Ruler, a.Ruler)) {
		a.Ruler = b.Ruler
	}
	return a
}

// MarshalBinary encodes o compactly for the reduction of results (lb uses
// it instead of gob): uvarints of Nodes, Solutions and Replayed, the Digest
// in 8 bytes (little endian), then the uvarints of the number of marks and
// the marks; O(marks).
func (o Outcome) MarshalBinary() ([]byte, error) {
	if o.Nodes < 0 || o.Solutions < 0 || o.Replayed < 0 || len(o.Ruler) > MaxMarks {
		return nil, fmt.Errorf("ruler: an outcome of %d nodes, %d solutions, %d replayed frames and %d marks does not encode",
			o.Nodes, o.Solutions, o.Replayed, len(o.Ruler))
	}
	b := make([]byte, 0, 40+2*len(o.Ruler))
	for _, x := range []int64{o.Nodes, o.Solutions, o.Replayed} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	b = binary.LittleEndian.AppendUint64(b, o.Digest)
	b = binary.AppendUvarint(b, uint64(len(o.Ruler)))
	for _, m := range o.Ruler {
		if m < 0 || m > MaxLength {
			return nil, fmt.Errorf("ruler: an outcome with a mark at %d does not encode", m)
		}
		b = binary.AppendUvarint(b, uint64(m))
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary encoded; any other bytes are
// an error (counts beyond int64, a digest cut short, more than MaxMarks
// marks, a mark beyond MaxLength, a uvarint longer than needed, bytes left
// over). O(len(b)).
func (o *Outcome) UnmarshalBinary(b []byte) error {
	var v [3]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 || x > math.MaxInt64 || n != uvarintLen(x) {
			return fmt.Errorf("ruler: a malformed outcome")
		}
		v[i], b = x, b[n:]
	}
	if len(b) < 8 {
		return fmt.Errorf("ruler: an outcome cut short in its digest")
	}
	digest := binary.LittleEndian.Uint64(b)
	b = b[8:]
	nm, n := binary.Uvarint(b)
	if n <= 0 || n != uvarintLen(nm) {
		return fmt.Errorf("ruler: a malformed outcome")
	}
	b = b[n:]
	if nm > MaxMarks {
		return fmt.Errorf("ruler: an outcome of %d marks (at most %d)", nm, MaxMarks)
	}
	var marks []int
	if nm > 0 {
		marks = make([]int, nm)
	}
	for i := range marks {
		x, n := binary.Uvarint(b)
		if n <= 0 || x > MaxLength || n != uvarintLen(x) {
			return fmt.Errorf("ruler: an outcome with a malformed mark")
		}
		marks[i], b = int(x), b[n:]
	}
	if len(b) > 0 {
		return fmt.Errorf("ruler: %d bytes after an outcome", len(b))
	}
	*o = Outcome{Nodes: int64(v[0]), Solutions: int64(v[1]), Replayed: int64(v[2]), Digest: digest, Ruler: marks}
	return nil
}

// uvarintLen is the length of x's shortest uvarint, the only one
// UnmarshalBinary accepts (so that decoding and encoding are inverses).
func uvarintLen(x uint64) int {
	return len(binary.AppendUvarint(make([]byte, 0, binary.MaxVarintLen64), x))
}

// Valid reports whether marks form a Golomb ruler starting at 0.
func Valid(marks []int) bool {
	if len(marks) == 0 || marks[0] != 0 {
		return false
	}
	var small bitset // the distances up to 255, without a map (issue 23)
	var seen map[int]bool
	for i := range marks {
		for j := i + 1; j < len(marks); j++ {
			d := marks[j] - marks[i]
			switch {
			case d <= 0:
				return false
			case d < 256:
				if small.has(uint(d)) {
					return false
				}
				small.set(uint(d))
			default:
				if seen[d] {
					return false
				}
				if seen == nil {
					seen = map[int]bool{}
				}
				seen[d] = true
			}
		}
	}
	return true
}

var (
	_ lb.Halver           = (*Search)(nil)
	_ lb.EvenSplitter     = (*Search)(nil)
	_ lb.Reducer[Outcome] = (*Problem)(nil)
	_ lb.Bounded          = (*Problem)(nil) // its incumbent spreads to every rank
)
