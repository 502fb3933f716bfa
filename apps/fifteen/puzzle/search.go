package puzzle

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// Search is one iteration of IDA* as a tree-shaped computation: a
// depth-first search below a root with a threshold on f = g + h, which can
// be run in slices (Work), split into two searches that together cover
// exactly its remaining tree (Split), and serialised (MarshalBinary). It
// explores the same tree in the same order as Iterate and counts the same
// nodes: every generated node, including those pruned for exceeding the
// threshold, but not the root. Each piece from a split counts its own nodes
// and minimum exceeded f; sum the counts and take the minimum of the minima.
//
// A Search is an explicit stack of frames, one per node on the current path
// from the root, each holding the board, the move that led to it and the set
// of its moves still to try that this search owns. When all it owns is the
// one move left at the top of the stack, it may own only part of that
// move's subtree: a chain of restrictions on the moves of the frames below
// (one move per level, then a subset), which Split builds to keep halving
// and Work applies as it creates those frames. The zero value is empty;
// make a useful one with NewIteration, Split or UnmarshalBinary. A Search
// is not safe for concurrent use.
type Search struct {
	root      uint64 // the root board, packed
	threshold int
	stack     []frame // stack[g] is the node at depth g on the current path
	// chain[i] restricts the moves of the frame Work creates at depth
	// len(stack)+i below the top's one move; empty: no restriction.
	chain []uint8
	path  []frame // scratch: the frames of a chain's path (divide)
	// floor..near are the levels at which Split looks first for moves to
	// give away (SetNear); near 0: the shallowest open level, always.
	floor, near int
	nodes       int64
	minExc      int
	// replayed counts the frames rebuilt because the search was split or
	// decoded: a chain's path (divideBelow), whose nodes the part keeping
	// the chain generates again, and a decoded path (UnmarshalBinary).
	replayed int64
	solved   bool
	solution []Move
	fast     fastSearch
}

// frame is a node on the current path of a Search.
type frame struct {
	b       uint64 // board, packed
	blank   uint8  // position of the blank
	prev    Move   // move from the parent, noMove at the root
	h       uint8  // Manhattan distance
	pending uint8  // bit m set: move m is still to try, by this search
}

// NewIteration returns the search of one IDA* iteration from root with the
// given threshold, not yet started: Nodes is 0 (the root is not counted),
// and a root with h > threshold is pruned at once, leaving an empty search
// whose MinExceeded is h. It fails for an invalid board or a threshold out
// of 0..MaxThreshold. The root need not be solvable.
func NewIteration(root State, threshold int) (*Search, error) {
	if err := root.Validate(); err != nil {
		return nil, err
	}
	if threshold < 0 || threshold > MaxThreshold {
		return nil, fmt.Errorf("puzzle: threshold %d out of range 0..%d", threshold, MaxThreshold)
	}
	s := newSearch(pack(root), threshold)
	s.Reroot()
	return s, nil
}

// Reroot makes the search the whole iteration again, not yet started, as
// NewIteration returns it, keeping its counters (lb.Halver): a root with
// h > threshold is pruned at once, lowering MinExceeded to h, and a root
// that is the goal is solved.
func (s *Search) Reroot() {
	s.stack, s.chain = s.stack[:0], s.chain[:0]
	root := unpack(s.root)
	h := root.Manhattan()
	switch {
	case h > s.threshold:
		s.minExc = min(s.minExc, h)
	case h == 0:
		s.solved = true
		s.solution = []Move{}
	default:
		blank := root.Blank()
		s.stack = append(s.stack, frame{b: s.root, blank: uint8(blank), prev: noMove, h: uint8(h), pending: moveMask[blank]})
	}
}

func newSearch(root uint64, threshold int) *Search {
	return &Search{
		root:      root,
		threshold: threshold,
		stack:     make([]frame, 0, threshold+1),
		minExc:    NoExceeded,
		fast:      fastSearch{spill: make([]frame, 0, threshold+1)},
	}
}

// SetNear makes Split give away work near the search's frontier, not at
// the shallowest open level of the stack: at the deepest level from floor
// up to near that has an untried move; failing that, at the shallowest
// level deeper than near (smaller pieces); only then at the deepest level
// shallower than floor. At a level under the top of the stack it gives
// every other untried move there, starting with the next one the
// depth-first order visits, so the victim keeps the subtree it is in and
// the thief takes the one after it; at the top (two or more moves untried)
// the victim keeps the next move and gives every other one after it.
//
// The pieces stay in about the sequential order: the ranks of an iteration
// that stops at its first solution then search where the sequential
// search would, instead of far ahead of it in subtrees that hang near the
// root (docs/scaling.md). The floor keeps those near-root subtrees with
// their owner as long as it holds anything deeper; near bounds how small
// the pieces get. near ≤ 0 restores the shallowest split, the default.
// Where a search splits changes neither what the pieces cover together
// nor the nodes of a failing iteration. The levels are not encoded by
// MarshalBinary: set them again on a decoded search; Split passes them on.
func (s *Search) SetNear(floor, near int) { s.floor, s.near = max(floor, 0), max(near, 0) }

// Root returns the root board.
func (s *Search) Root() State { return unpack(s.root) }

// Threshold returns the bound on f of the iteration.
func (s *Search) Threshold() int { return s.threshold }

// Nodes returns the number of nodes this search has generated.
func (s *Search) Nodes() int64 { return s.nodes }

// Digest returns the sum modulo 2^64 of the boards of the nodes this
// search expanded (IterStats.Digest): summed over the pieces of an
// iteration, it is the iteration's, however the iteration was split.
func (s *Search) Digest() uint64 { return s.fast.sum }

// Replayed returns the number of frames this search rebuilt because it was
// split or decoded (a split's or a decoded task's path): overhead, not
// nodes of the tree.
func (s *Search) Replayed() int64 { return s.replayed }

// MinExceeded returns the smallest f above the threshold among the nodes
// this search pruned, or NoExceeded. Once every piece of a failing
// iteration is done, the minimum over the pieces is the next threshold.
func (s *Search) MinExceeded() int { return s.minExc }

// Solved reports whether this search found the goal.
func (s *Search) Solved() bool { return s.solved }

// Solution returns a copy of the moves from the root to the goal, nil if
// the search has not found it. Its length is the threshold in an iteration
// of IDA* proper (one whose threshold never exceeds the optimal length).
func (s *Search) Solution() []Move {
	if !s.solved {
		return nil
	}
	return append([]Move{}, s.solution...)
}

// Empty reports whether the search has nothing left to do: its tree is
// exhausted or it found the goal. O(1).
func (s *Search) Empty() bool { return s.solved || len(s.stack) == 0 }

// Depth returns the number of frames on the stack, the depth of the current
// node plus one, 0 when exhausted.
func (s *Search) Depth() int { return len(s.stack) }

// Work continues the depth-first search, generating at most budget nodes,
// and returns the number it generated and whether the search is now Empty.
// It uses the whole budget unless it becomes Empty; it stops at the goal.
// Work generates the children of the top frame one by one and hands each
// child that passes the threshold to the specialised recursion of Iterate,
// which, when the budget runs out, leaves its stack as new frames. Work
// allocates nothing, except once to record a solution.
func (s *Search) Work(budget int64) (nodes int64, done bool) {
	var n int64
	threshold := s.threshold
	for n < budget && !s.solved {
		top := len(s.stack) - 1
		if top < 0 {
			break
		}
		fr := &s.stack[top]
		if fr.pending == 0 {
			s.stack = s.stack[:top]
			s.chain = s.chain[:0] // a chain ends with its path
			continue
		}
		m := Move(bits.TrailingZeros8(fr.pending))
		fr.pending &^= 1 << m
		n++
		c := fr.child(m)
		nb, h, b := int(c.blank), int(c.h), c.b
		g := top + 1
		f := g + h
		if f > threshold {
			s.minExc = min(s.minExc, f)
			continue
		}
		if h == 0 {
			s.found(top, m, nil)
			break
		}
		if len(s.chain) > 0 {
			// A restricted level: push the child's frame with the moves
			// the chain leaves it, instead of searching below at once.
			pending := moveMask[nb] &^ (1 << m.Inverse()) & s.chain[0]
			s.chain = append(s.chain[:0], s.chain[1:]...)
			s.stack = append(s.stack, frame{b: b, blank: uint8(nb), prev: m, h: uint8(h), pending: pending})
			s.fast.sum += b // expanded here, not in fast_gen.go
			continue
		}
		fs := &s.fast
		fs.left, fs.pruned = budget-n, false
		fs.path, fs.spill = fs.path[:0], fs.spill[:0]
		r := fs.searchBelow(nb, m, b, threshold-f)
		n = budget - fs.left
		if fs.pruned || r == fastDone {
			s.minExc = min(s.minExc, nextThreshold(threshold, threshold-f))
		}
		switch r {
		case fastFound:
			s.found(top, m, fs.path)
		case fastStopped:
			for i := len(fs.spill) - 1; i >= 0; i-- {
				fr := fs.spill[i]
				fr.h = uint8(threshold - int(fr.h) - len(s.stack)) // from the slack
				s.stack = append(s.stack, fr)
			}
		}
	}
	s.trim()
	s.nodes += n
	return n, s.Empty()
}

// child returns the frame of the node the blank's move m leads to from fr,
// its Manhattan distance updated incrementally, with no move pending. m
// must be legal at fr.
func (fr *frame) child(m Move) frame {
	blank := int(fr.blank)
	nb := blank + int(moveOffset[m])
	t := fr.b >> (4 * nb) & 15
	h := int(fr.h) + 1
	if closer[nb][m]>>t&1 != 0 {
		h -= 2
	}
	return frame{b: fr.b ^ t<<(4*nb) ^ t<<(4*blank), blank: uint8(nb), prev: m, h: uint8(h)}
}

// trim pops the exhausted frames off the top of the stack, so that the top
// frame, if any, has moves to try; a chain of restrictions ends with them.
func (s *Search) trim() {
	for len(s.stack) > 0 && s.stack[len(s.stack)-1].pending == 0 {
		s.stack = s.stack[:len(s.stack)-1]
		s.chain = s.chain[:0]
	}
}

// found records the solution through the frames up to top, move m, then the
// moves below in reverse order, and empties the stack.
func (s *Search) found(top int, m Move, below []Move) {
	path := make([]Move, 0, top+1+len(below))
	for _, fr := range s.stack[1 : top+1] {
		path = append(path, fr.prev)
	}
	path = append(path, m)
	for i := len(below) - 1; i >= 0; i-- {
		path = append(path, below[i])
	}
	s.solution = path
	s.solved = true
	s.stack = s.stack[:0]
}

// Split gives away part of the remaining work as a new search, ok is false
// if there is nothing to give. It takes the shallowest open alternatives:
// the untried moves of the lowest frame that has any. If that frame is the
// top of the stack, which holds all the remaining work, it keeps the first
// half of them (rounded up) and gives the rest. A single move there is
// split below: Split follows single moves down to the first node with two
// or more, gives away the later half of its moves and keeps the rest as a
// chain of restrictions; it fails only when that path ends in a node that
// is pruned or the goal. The new search has the frames of the path down to
// its level, owns only the given moves and starts with no nodes counted;
// together the two searches cover exactly the tree s had left, each node
// counted once (the nodes of a chain by s, when its Work generates them).
// Split allocates the new search; its cost is O(depth).
func (s *Search) Split() (other *Search, ok bool) {
	lvl, give, ok := s.divide()
	if !ok {
		return nil, false
	}
	o := newSearch(s.root, s.threshold)
	o.floor, o.near = s.floor, s.near
	o.stack = append(append(o.stack, s.stack[:min(lvl+1, len(s.stack))]...), s.path...)
	o.own(give)
	s.keep(lvl, give)
	return o, true
}

// SplitEven splits as Split does without the near levels (SetNear): at the
// shallowest open level, about half of the search, for a balancer that needs
// every piece to be a constant fraction of the work (lb.EvenSplitter).
// Both searches keep s's near levels for their later splits.
func (s *Search) SplitEven() (other *Search, ok bool) {
	near := s.near
	s.near = 0
	o, ok := s.Split()
	s.near = near
	if ok {
		o.near = near
	}
	return o, ok
}

// Halve splits the search in place as Split would, keeping the part Split
// gives away when give is true (lb.Halver).
func (s *Search) Halve(give bool) bool {
	lvl, g, ok := s.divide()
	if !ok {
		return false
	}
	if give {
		s.stack = append(s.stack[:min(lvl+1, len(s.stack))], s.path...)
		s.chain = s.chain[:0]
		s.own(g)
	} else {
		s.keep(lvl, g)
	}
	return true
}

// own makes the search own only the moves give of its top frame.
func (s *Search) own(give uint8) {
	top := len(s.stack) - 1
	for i := range top {
		s.stack[i].pending = 0
	}
	s.stack[top].pending = give
}

// keep applies a division to the part that stays: the moves given away at
// level lvl of the stack, or, below the top (lvl past the stack), at the
// chain's last level.
func (s *Search) keep(lvl int, give uint8) {
	if lvl < len(s.stack) {
		s.stack[lvl].pending &^= give
	} else {
		s.chain[len(s.chain)-1] &^= give
	}
}

// laterHalf returns the moves of set but its first half (rounded up) in
// search order.
func laterHalf(set uint8) uint8 {
	for keep := (bits.OnesCount8(set) + 1) / 2; keep > 0; keep-- {
		set &= set - 1 // drop the lowest move: it stays
	}
	return set
}

// alternate returns every other move of set in search order, starting with
// the first.
func alternate(set uint8) uint8 {
	var out uint8
	for i := 0; set != 0; i++ {
		if i%2 == 0 {
			out |= lowest(set)
		}
		set &= set - 1
	}
	return out
}

// lowest returns the first move of set in search order, 0 if set is empty.
func lowest(set uint8) uint8 { return set & -set }

// divide finds where Split divides the search: the level of the moves to
// give away and the moves. Below the top (lvl ≥ len(stack)) the frames from
// the top's one move down to lvl are in s.path, and the chain ends at lvl
// with all of that node's moves left to this search but give. ok is false
// when there is nothing to give.
func (s *Search) divide() (lvl int, give uint8, ok bool) {
	s.path = s.path[:0]
	if s.Empty() {
		return 0, 0, false
	}
	s.trim()
	top := len(s.stack) - 1
	if top < 0 {
		return 0, 0, false
	}
	for s.stack[lvl].pending == 0 {
		lvl++ // the top frame has moves pending, so this stops
	}
	if s.near > 0 && len(s.chain) == 0 {
		// Near the frontier first (SetNear): the deepest level from floor
		// up to near with a move to give, then the shallowest below near,
		// then the deepest above floor.
		try := func(k int) (uint8, bool) {
			p := s.stack[k].pending
			switch {
			case k < top && p != 0:
				return alternate(p), true
			case k == top && bits.OnesCount8(p) >= 2:
				return alternate(p &^ lowest(p)), true
			}
			return 0, false
		}
		floor := max(lvl+1, min(s.floor, s.near, top+1))
		for k := min(s.near, top); k >= floor; k-- {
			if g, ok := try(k); ok {
				return k, g, true
			}
		}
		for k := max(s.near+1, lvl+1); k <= top; k++ {
			if g, ok := try(k); ok {
				return k, g, true
			}
		}
		for k := floor - 1; k > lvl; k-- {
			if g, ok := try(k); ok {
				return k, g, true
			}
		}
	}
	give = s.stack[lvl].pending
	if lvl == top {
		if bits.OnesCount8(give) < 2 || len(s.chain) > 0 {
			return s.divideBelow()
		}
		give = laterHalf(give)
	}
	return lvl, give, true
}

// divideBelow divides the subtree of the one move left at the top of the
// stack; see Split and divide.
func (s *Search) divideBelow() (int, uint8, bool) {
	top := len(s.stack) - 1
	fr := s.stack[top]
	m := Move(bits.TrailingZeros8(fr.pending))
	for i := 0; ; i++ {
		fr = fr.child(m)
		s.replayed++
		if top+1+i+int(fr.h) > s.threshold || fr.h == 0 {
			return 0, 0, false // a pruned node or the goal: nothing below to split
		}
		moves := moveMask[fr.blank] &^ (1 << m.Inverse())
		if i < len(s.chain) {
			moves &= s.chain[i]
		}
		s.path = append(s.path, fr)
		switch {
		case i+1 < len(s.chain):
			m = Move(bits.TrailingZeros8(s.chain[i])) // a level of the chain: its one move
		case moves == 0:
			return 0, 0, false
		case bits.OnesCount8(moves) == 1:
			s.chain = append(s.chain[:i], moves)
			m = Move(bits.TrailingZeros8(moves))
		default:
			s.chain = append(s.chain[:i], moves)
			return top + 1 + i, laterHalf(moves), true
		}
	}
}

// Encoding of MarshalBinary: a version byte, the root packed (8 bytes,
// little endian), the threshold and the number of frames as uvarints, then
// one byte per frame: the pending moves in the low 4 bits and, except for
// the last frame, the move to the next frame in bits 4-5. Version 2 (a
// search with a chain of restrictions) then has the chain's length as a
// uvarint and one byte per level, the moves it allows in the low 4 bits.
const (
	marshalVersion      = 1
	marshalVersionChain = 2
)

var errTruncated = errors.New("truncated data")

// MarshalBinary encodes the remaining work of s: the root, the threshold,
// the path from the root to the current node and the moves still to try at
// each level, about 11 bytes plus one per level. The counters and the
// solution are not encoded. It never fails.
func (s *Search) MarshalBinary() ([]byte, error) {
	s.trim()
	n := len(s.stack)
	if s.solved {
		n = 0
	}
	chain := s.chain
	if s.solved || n == 0 {
		chain = nil
	}
	buf := make([]byte, 0, 1+8+3*binary.MaxVarintLen16+n+len(chain))
	if len(chain) > 0 {
		buf = append(buf, marshalVersionChain)
	} else {
		buf = append(buf, marshalVersion)
	}
	buf = binary.LittleEndian.AppendUint64(buf, s.root)
	buf = binary.AppendUvarint(buf, uint64(s.threshold))
	buf = binary.AppendUvarint(buf, uint64(n))
	for i := 0; i < n; i++ {
		c := s.stack[i].pending
		if i+1 < n {
			c |= uint8(s.stack[i+1].prev) << 4
		}
		buf = append(buf, c)
	}
	if len(chain) > 0 {
		buf = binary.AppendUvarint(buf, uint64(len(chain)))
		buf = append(buf, chain...)
	}
	return buf, nil
}

// UnmarshalBinary replaces s with the work encoded by MarshalBinary, with
// its counters at zero and no solution. It checks that the data describes a
// valid board, a valid path of legal moves that never undoes the previous
// one and stays within the threshold, and pending moves that the search
// would generate; on error s is unchanged.
func (s *Search) UnmarshalBinary(data []byte) error {
	bad := func(err error) error { return fmt.Errorf("puzzle: decoding a search: %w", err) }
	if len(data) < 9 {
		return bad(errTruncated)
	}
	version := data[0]
	if version != marshalVersion && version != marshalVersionChain {
		return bad(fmt.Errorf("unknown version %d", data[0]))
	}
	root := binary.LittleEndian.Uint64(data[1:9])
	rs := unpack(root)
	if err := rs.check(); err != nil {
		return bad(err)
	}
	data = data[9:]
	threshold, k := binary.Uvarint(data)
	if k <= 0 {
		return bad(errTruncated)
	}
	if threshold > MaxThreshold {
		return bad(fmt.Errorf("threshold %d out of range 0..%d", threshold, MaxThreshold))
	}
	data = data[k:]
	n, k := binary.Uvarint(data)
	if k <= 0 {
		return bad(errTruncated)
	}
	data = data[k:]
	var chain []byte
	if version == marshalVersionChain {
		if n > uint64(len(data)) {
			return bad(errTruncated)
		}
		c, k := binary.Uvarint(data[n:])
		if k <= 0 || c == 0 || c != uint64(len(data[n:])-k) {
			return bad(errors.New("malformed chain of restrictions"))
		}
		chain = data[int(n)+k:]
		data = data[:n]
		for _, r := range chain {
			if r == 0 || r>>4 != 0 {
				return bad(fmt.Errorf("a restriction %#x", r))
			}
		}
	}
	if n != uint64(len(data)) {
		return bad(fmt.Errorf("%d frames announced, %d bytes follow", n, len(data)))
	}
	o := newSearch(root, int(threshold))
	if n > 0 {
		h := rs.Manhattan()
		if h > int(threshold) || h == 0 {
			return bad(errors.New("work below a root that is pruned or the goal"))
		}
		blank := rs.Blank()
		o.stack = append(o.stack, frame{b: root, blank: uint8(blank), prev: noMove, h: uint8(h)})
	}
	for i, c := range data {
		fr := &o.stack[i]
		allowed := moveMask[fr.blank]
		if fr.prev != noMove {
			allowed &^= 1 << fr.prev.Inverse()
		}
		if c&0xf&^allowed != 0 {
			return bad(fmt.Errorf("frame %d: pending moves %04b not generated there", i, c&0xf))
		}
		fr.pending = c & 0xf
		if i+1 == len(data) {
			if c>>4 != 0 {
				return bad(fmt.Errorf("frame %d: stray bits %#x", i, c))
			}
			break
		}
		if c>>6 != 0 {
			return bad(fmt.Errorf("frame %d: stray bits %#x", i, c))
		}
		m := Move(c >> 4)
		if allowed&(1<<m) == 0 {
			return bad(fmt.Errorf("frame %d: move %v not generated there", i, m))
		}
		if fr.pending&(1<<m) != 0 {
			return bad(fmt.Errorf("frame %d: move %v both pending and in progress", i, m))
		}
		c := fr.child(m)
		o.replayed++
		if i+1+int(c.h) > int(threshold) || c.h == 0 {
			return bad(fmt.Errorf("frame %d: path leaves the threshold or meets the goal", i+1))
		}
		o.stack = append(o.stack, c)
	}
	if len(chain) > 0 {
		// A chain belongs to the one move at the top, all the search owns.
		for i, fr := range o.stack {
			if want := i == len(o.stack)-1; want != (fr.pending != 0) || want && bits.OnesCount8(fr.pending) != 1 {
				return bad(errors.New("a chain of restrictions below more than one move"))
			}
		}
		o.chain = append(o.chain, chain...)
	}
	*s = *o
	s.trim()
	return nil
}
