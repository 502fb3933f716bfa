package tree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/treelb/treelb/internal/wire"
)

// Counts are the statistics of a tree or of the part of it a rank
// searched, as the reference reports them: nodes, leaves and the greatest
// depth (the root has depth 0), and the digest of the leaves that certifies
// them (package cert). The zero value is the empty tree.
type Counts struct {
	Nodes  int64
	Leaves int64
	Depth  int
	// Digest is the sum modulo 2^64 of the leaves' hashes: the first 64
	// bits of each leaf's state, a SHA-1 digest. It does not depend on
	// which rank generated which leaf.
	Digest uint64
}

// MarshalBinary encodes c in 32 bytes (nodes, leaves, depth, digest: a
// wire tally), the encoding lb's reductions and checkpoints use.
func (c Counts) MarshalBinary() ([]byte, error) {
	b, err := wire.AppendTally(make([]byte, 0, 32), c.Digest, c.Nodes, c.Leaves, int64(c.Depth))
	if err != nil {
		return nil, fmt.Errorf("uts: counts: %w", err)
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary encoded; any other bytes are
// an error.
func (c *Counts) UnmarshalBinary(b []byte) error {
	var v Counts
	var depth int64
	if err := wire.Tally(b, &v.Digest, &v.Nodes, &v.Leaves, &depth); err != nil {
		return fmt.Errorf("uts: malformed counts: %w", err)
	}
	if depth > math.MaxInt {
		return fmt.Errorf("uts: malformed counts: depth %d", depth)
	}
	v.Depth = int(depth)
	*c = v
	return nil
}

// Add returns the statistics of two disjoint parts of a tree together.
func (c Counts) Add(o Counts) Counts {
	return Counts{Nodes: c.Nodes + o.Nodes, Leaves: c.Leaves + o.Leaves, Depth: max(c.Depth, o.Depth), Digest: c.Digest + o.Digest}
}

// Shape returns the counts without the digest: what the reference prints
// and the samples publish.
func (c Counts) Shape() Counts { return Counts{Nodes: c.Nodes, Leaves: c.Leaves, Depth: c.Depth} }

// leafHash is the hash of a leaf that the digest adds: the first 64 bits
// of its state, already a cryptographic hash of its path from the root.
func leafHash(w0, w1 uint32) uint64 { return uint64(w0)<<32 | uint64(w1) }

// lanes is the number of children hashed together.
const lanes = 16

// batch is the scratch space of one hashing step: lane j hashes child
// in[5][j] of the node whose state is in[0..4][j].
type batch struct {
	in     [6][lanes]uint32
	out    [5][lanes]uint32
	height [lanes]int32
}

// entry is a node of the search stack whose children are still to be
// generated: next, next+step, next+2·step, … below n (other children of
// the node may belong to other tasks).
type entry struct {
	s      State
	height int32
	next   int32
	step   int32
	n      int32
}

// pending returns how many children of the entry are left to this task.
func (e *entry) pending() int64 {
	return (int64(e.n) - int64(e.next) + int64(e.step) - 1) / int64(e.step)
}

// halvable reports whether the entry's pending children can be shared by
// doubling the step (which must stay a 32-bit int).
func (e *entry) halvable() bool { return e.pending() >= 2 && e.step <= math.MaxInt32/2 }

// Search is a part of a tree searched depth first: the root, if it is not
// yet counted, and a stack of nodes with children left to generate. It
// implements lb.Task. Its statistics go to the Counts given when it was
// made (one per rank). It is not safe for concurrent use.
//
// The whole tree's search starts with the root's children pending (its
// number of children follows from its state alone) and the root itself
// still to count, so that it splits at once: fast initialisation and
// static placement share the root's children before any rank works. The
// root stays with the part a split keeps, so exactly one piece counts it.
type Search struct {
	t      *Tree
	c      *Counts
	kernel Kernel
	root   bool // the root is still to be counted
	stack  []entry
	b      *batch
}

// NewSearch returns the search of the whole tree, adding its statistics to
// c.
func (t *Tree) NewSearch(c *Counts) *Search {
	s := &Search{t: t, c: c, kernel: BestKernel()}
	s.reroot()
	return s
}

// reroot makes s the whole tree's search again (in its own storage): the
// root to count and its children pending.
func (s *Search) reroot() {
	t := s.t
	s.root = true
	s.stack = s.stack[:0]
	if n := t.children(t.root.Rand(), 0); n > 0 {
		s.stack = append(s.stack, entry{s: t.root, n: n, step: 1})
	}
}

// Count searches the whole tree sequentially.
func (t *Tree) Count() Counts {
	c, _ := t.CountWith(BestKernel())
	return c
}

// CountWith searches the whole tree sequentially, hashing with kernel k,
// which must be supported.
func (t *Tree) CountWith(k Kernel) (Counts, error) {
	var c Counts
	s := t.NewSearch(&c)
	if err := s.SetKernel(k); err != nil {
		return c, err
	}
	for !s.Empty() {
		s.Work(1 << 20)
	}
	return c, nil
}

// Empty reports whether the search has nothing left.
func (s *Search) Empty() bool { return !s.root && len(s.stack) == 0 }

// Work generates about budget nodes (whole batches of up to 16, so up to 15
// more) and returns how many. A node is counted when it is generated: its
// number of children is known from its own state at once, so leaves never
// enter the stack.
func (s *Search) Work(budget int64) int64 {
	t := s.t
	var nodes, leaves int64
	var digest uint64
	depth := s.c.Depth
	if s.root {
		s.root = false
		nodes++
		if t.children(t.root.Rand(), 0) == 0 {
			leaves++
			digest += leafHash(t.root[0], t.root[1])
		}
	}
	if s.b == nil && len(s.stack) > 0 {
		s.b = new(batch)
	}
	b := s.b
	gran := t.p.Gran
	binomial := t.p.Type == Binomial
	for nodes < budget && len(s.stack) > 0 {
		// Take up to 16 pending children from the top of the stack.
		k := 0
		for k < lanes && len(s.stack) > 0 {
			e := &s.stack[len(s.stack)-1]
			for k < lanes && e.next < e.n {
				for w := range 5 {
					b.in[w][k] = e.s[w]
				}
				b.in[5][k] = uint32(e.next)
				b.height[k] = e.height + 1
				e.next = int32(min(int64(e.next)+int64(e.step), int64(e.n))) // no overflow
				k++
			}
			if e.next < e.n {
				break
			}
			s.stack = s.stack[:len(s.stack)-1]
		}
		for range gran {
			s.hash(k)
		}
		for j := range k {
			h := b.height[j]
			r := b.out[4][j] & 0x7fffffff // State.Rand
			var n int32
			if binomial { // below the root, inlined
				if float64(r) < t.qScaled {
					n = t.m
				}
			} else {
				n = t.children(r, int(h))
			}
			if n > 0 {
				cs := State{b.out[0][j], b.out[1][j], b.out[2][j], b.out[3][j], b.out[4][j]}
				s.stack = append(s.stack, entry{s: cs, height: h, n: n, step: 1})
			} else {
				leaves++
				digest += leafHash(b.out[0][j], b.out[1][j])
			}
			depth = max(depth, int(h))
		}
		nodes += int64(k)
	}
	s.c.Nodes += nodes
	s.c.Leaves += leaves
	s.c.Digest += digest
	s.c.Depth = depth
	return nodes
}

// splitScan is how many stack entries, from the bottom, a split divides:
// enough for the thief to get a good share of a deep binomial stack, few
// enough to keep a task's encoding small.
const splitScan = 512

// split gives away about half of the pending children of the bottom
// entries of the stack (see halve) in a new search, or returns nil when
// there is nothing to give (no pending child, or a single one).
func (s *Search) split() *Search {
	if !s.divisible() {
		return nil
	}
	scan := min(len(s.stack), splitScan)
	o := &Search{t: s.t, c: s.c, kernel: s.kernel, stack: append([]entry(nil), s.stack[:scan]...)}
	o.halve(true)
	s.halve(false)
	return o
}

// divisible reports whether the search has two pending children or more
// among the entries halve divides.
func (s *Search) divisible() bool {
	scan := min(len(s.stack), splitScan)
	return scan > 1 || scan == 1 && s.stack[0].halvable()
}

// halve keeps, in place, the part of the search that a split gives away
// (give) or the part it keeps (not give). A split divides the bottom
// entries of the stack (the shallowest nodes, which hold the most work in
// geometric trees; in binomial trees every subtree below the root is
// alike): every other child of each entry with two or more, and every
// other entry of those with one, the first to the given part. The entries
// above the first splitScan and the root, if not yet counted, stay with
// the part kept.
func (s *Search) halve(give bool) {
	scan := min(len(s.stack), splitScan)
	w := 0
	turn := true // whether the next entry with one child goes to the given part
	for i := range scan {
		e := s.stack[i]
		if e.halvable() {
			if give {
				e.next += e.step
			}
			e.step *= 2
			s.stack[w] = e
			w++
			continue
		}
		if turn == give {
			s.stack[w] = e
			w++
		}
		turn = !turn
	}
	if give {
		s.stack = s.stack[:w]
		s.root = false
		return
	}
	s.stack = append(s.stack[:w], s.stack[scan:]...)
}

// AppendBinary appends the task: a flag byte (1 when the root is still to
// be counted), the number of entries, then per entry the 20 state bytes
// and the height, next child and step as uvarints (about 24 bytes).
func (s *Search) AppendBinary(b []byte) ([]byte, error) {
	flag := byte(0)
	if s.root {
		flag = 1
	}
	b = append(b, flag)
	b = binary.AppendUvarint(b, uint64(len(s.stack)))
	for i := range s.stack {
		e := &s.stack[i]
		sb := e.s.Bytes()
		b = append(b, sb[:]...)
		b = binary.AppendUvarint(b, uint64(e.height))
		b = binary.AppendUvarint(b, uint64(e.next))
		b = binary.AppendUvarint(b, uint64(e.step))
	}
	return b, nil
}

var errTrailing = errors.New("trailing bytes")

// Decode decodes a task made by AppendBinary for this tree, adding its
// statistics to c. It recomputes each node's number of children and
// rejects a task whose nodes do not have the children it claims.
func (t *Tree) Decode(b []byte, c *Counts) (*Search, error) {
	if len(b) < 1 || b[0] > 1 {
		return nil, fmt.Errorf("uts: malformed task (%d bytes)", len(b))
	}
	s := &Search{t: t, c: c, kernel: BestKernel(), root: b[0] == 1}
	b = b[1:]
	count, k := binary.Uvarint(b)
	if k <= 0 || count > uint64(len(b))/23 {
		return nil, fmt.Errorf("uts: malformed task: %d entries", count)
	}
	b = b[k:]
	s.stack = make([]entry, 0, count)
	for i := range count {
		if len(b) < 20 {
			return nil, fmt.Errorf("uts: malformed task: entry %d truncated", i)
		}
		st := stateOf(b)
		b = b[20:]
		var v [3]uint64
		for j := range v {
			x, k := binary.Uvarint(b)
			if k <= 0 || x > 1<<31-1 {
				return nil, fmt.Errorf("uts: malformed task: entry %d", i)
			}
			v[j], b = x, b[k:]
		}
		e := entry{s: st, height: int32(v[0]), next: int32(v[1]), step: int32(v[2])}
		e.n = t.children(st.Rand(), int(e.height))
		if e.step < 1 || e.next >= e.n {
			return nil, fmt.Errorf("uts: malformed task: entry %d at height %d has %d children, not child %d", i, e.height, max(e.n, 0), e.next)
		}
		s.stack = append(s.stack, e)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("uts: malformed task: %w", errTrailing)
	}
	return s, nil
}
