package skeleton

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/treelb/treelb/lb"
)

// Space describes a search tree by its nodes. Its methods must be
// deterministic and must not keep state between calls: every rank of a run
// has its own copy and generates the same children of the same node.
// Give a pointer (methods with pointer receivers): a call through the
// interface to a value receiver copies the value first.
type Space[N any] interface {
	// Root returns the root of the tree.
	Root() N
	// Child returns the first child of n at or after cursor c, and the
	// cursor after it; ok is false when n has no child at or after c.
	// Cursors start at 0, and after must exceed c.
	Child(n N, c int) (child N, after int, ok bool)
	// AppendNode appends the encoding of n to b.
	AppendNode(b []byte, n N) []byte
	// DecodeNode decodes a node from the front of b, as AppendNode
	// encoded it, and returns the rest of b.
	DecodeNode(b []byte) (n N, rest []byte, err error)
}

// Brancher is an optional method of a Space: all the children of a node in
// one call. A Space that has it is expanded with Children alone (one call
// a node, where Child takes one call a child and one more: on N-queens,
// 1.0-1.15 times the CPU time a node of a hand-written Task instead of
// 1.6, docs/skeleton.md); Children must append the children that Child
// generates, in the same order (CheckChildren tests it).
type Brancher[N any] interface {
	// Children appends the children of n to buf and returns the extended
	// slice.
	Children(n N, buf []N) []N
}

// CheckChildren returns an error when s's Children (a Brancher) and Child
// generate different children, in number or order, for a node of the first
// limit nodes of s's tree (depth first, Child's order), or when Children
// does not append to its buf, keeping what buf held (the skeleton's
// searches pass it a buf that holds the nodes still to expand); nil for a
// Space without Children. Nodes are compared with ==, hence N comparable.
func CheckChildren[N comparable](s Space[N], limit int) error {
	br, ok := s.(Brancher[N])
	if !ok {
		return nil
	}
	root := s.Root()
	stack := []N{root}
	var out []N
	for seen := 0; len(stack) > 0 && seen < limit; seen++ {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// Two nodes before the children: a Children that ignored buf, or
		// wrote over it, passed with an empty one, and the searches then
		// counted wrong without an error.
		out = br.Children(n, append(out[:0], root, n))
		if len(out) < 2 || out[0] != root || out[1] != n {
			return fmt.Errorf("skeleton: Children(%v, buf) did not append to buf: buf held %v, the result begins %v (Children must return append(buf, children...))", n, []N{root, n}, out[:min(2, len(out))])
		}
		buf := out[2:]
		i := 0
		for c := 0; ; i++ {
			child, after, ok := s.Child(n, c)
			if !ok {
				break
			}
			if after <= c {
				return fmt.Errorf("skeleton: Child(%v, %d) returned after = %d: after must exceed c, or the children never end", n, c, after)
			}
			if i >= len(buf) || buf[i] != child {
				return fmt.Errorf("skeleton: Children(%v)[%d] is not Child's child %v (Children gave %v)", n, i, child, buf)
			}
			c = after
		}
		if i != len(buf) {
			return fmt.Errorf("skeleton: Children(%v) gave %d children, Child %d", n, len(buf), i)
		}
		for j := len(buf) - 1; j >= 0; j-- {
			stack = append(stack, buf[j])
		}
	}
	return nil
}

// visitor is what a search does at the nodes that a node's expansion
// generated (a batch: visited when generated, all at once, so that the
// inner loop makes one call a node and one a batch): visit keeps at the
// front of batch, in order, the nodes to expand (not pruned) and returns
// how many nodes count (not pruned) and how many it kept. A search that
// stops (a Decision) sets its tree's stop. stale reports whether a node
// that visit kept is pruned by now, when its turn to be expanded comes
// (an Optimisation whose incumbent improved); the tree calls it only when
// its recheck is set.
type visitor[N any] interface {
	visit(batch []N) (counted int64, keep int)
	stale(n N) bool
}

// frame is a level of a task's stack: children of one node, at
// kids[next:end], to expand; visited already unless fresh (a split
// expanded their parent: their visits are owed to the next Work).
type frame struct {
	next, end int
	fresh     bool
}

// tree is the part of a search's App that its tasks share.
type tree[N any] struct {
	space   Space[N]
	br      Brancher[N] // the Space's Children, or Child's children
	v       visitor[N]
	recheck bool  // call v.stale before expanding a node
	nodes   int64 // nodes visited on this rank
	stop    bool  // the whole search stopped on this rank
}

// newTree returns the tree of a search on space, visited by v.
func newTree[N any](space Space[N], v visitor[N], recheck bool) tree[N] {
	t := tree[N]{space: space, v: v, recheck: recheck}
	if br, ok := space.(Brancher[N]); ok {
		t.br = br
	} else {
		t.br = childLoop[N]{space}
	}
	return t
}

// childLoop is the Brancher of a Space without Children: Child until it
// fails.
type childLoop[N any] struct{ s Space[N] }

func (l childLoop[N]) Children(n N, buf []N) []N {
	for c := 0; ; {
		child, after, ok := l.s.Child(n, c)
		if !ok {
			return buf
		}
		if after <= c {
			// A Space's mistake, which would loop for ever, growing buf: a
			// panic, which a run reports as an internal error with its
			// stack, and the checkers as a failure.
			panic(fmt.Sprintf("skeleton: %T.Child(%v, %d) returned after = %d: after must exceed c, or the children never end", l.s, n, c, after))
		}
		buf, c = append(buf, child), after
	}
}

// task is a part of the search: the root when root is set, the owed nodes
// (expanded by a split, not visited yet: the next Work visits them) and
// the frames, the shallowest first, whose nodes are in kids. A frame's
// nodes are above its parent's in kids; the nodes of kids that no frame
// holds (expanded, pruned, or given away by a split) are dropped when
// the frame above them ends. fresh is set when a frame may be fresh.
type task[N any] struct {
	t      *tree[N]
	root   bool
	fresh  bool
	owed   []N
	frames []frame
	kids   []N
}

var _ lb.Halver = (*task[int])(nil)

// Work visits about budget nodes, depth first: the owed nodes, the root,
// the fresh frames, then the frames' nodes, until the task ends or budget
// nodes are counted. It may count more than budget: the children of a
// node are visited together, when they are generated, and so are a
// split's owed and fresh nodes (lbtest.AppOptions.Overshoot: the largest
// number of children of a node plus the depth of the tree bounds the
// excess). The loop over the frames is the search's inner loop: a node's
// expansion is one call of Children (or of Child until it fails) and,
// when it has children, one visit of them all.
func (t *task[N]) Work(budget int64) int64 {
	tr := t.t
	var n int64
	if budget <= 0 {
		return 0
	}
	if len(t.owed) > 0 && !tr.stop {
		tr.v.visit(t.owed) // their children are on the stack already
		n += int64(len(t.owed))
		t.owed = t.owed[:0]
	}
	if t.root && !tr.stop {
		t.root = false
		m := len(t.kids)
		t.kids = append(t.kids, tr.space.Root())
		n += t.visit(m)
	}
	if t.fresh && !tr.stop {
		t.fresh = false
		for i := 0; i < len(t.frames) && !tr.stop; i++ {
			if f := &t.frames[i]; f.fresh {
				c, keep := tr.v.visit(t.kids[f.next:f.end])
				n += c
				f.end, f.fresh = f.next+keep, false
			}
		}
	}
	br, v, frames, kids, recheck := tr.br, tr.v, t.frames, t.kids, tr.recheck
	for n < budget && len(frames) > 0 && !tr.stop {
		f := &frames[len(frames)-1]
		if f.next == f.end {
			frames = frames[:len(frames)-1]
			kids = kids[:top(frames)]
			continue
		}
		node := kids[f.next]
		f.next++
		if recheck && v.stale(node) {
			continue
		}
		m := len(kids)
		if kids = br.Children(node, kids); len(kids) > m {
			c, keep := v.visit(kids[m:])
			n += c
			if kids = kids[:m+keep]; keep > 0 {
				frames = append(frames, frame{next: m, end: m + keep})
			}
		} else if len(kids) < m {
			panic(errShortChildren)
		}
	}
	t.frames, t.kids = frames, kids
	tr.nodes += n
	return n
}

// visit visits kids[m:] and pushes the frame of those to expand, and
// returns the nodes that count.
func (t *task[N]) visit(m int) int64 {
	c, keep := t.t.v.visit(t.kids[m:])
	if t.kids = t.kids[:m+keep]; keep > 0 {
		t.frames = append(t.frames, frame{next: m, end: m + keep})
	}
	return c
}

// top returns the end of the top frame's nodes, 0 for no frame.
func top(frames []frame) int {
	if len(frames) == 0 {
		return 0
	}
	return frames[len(frames)-1].end
}

// expand pushes the fresh frame of n's children, if it has any.
func (t *task[N]) expand(n N) {
	m := len(t.kids)
	if t.kids = t.t.br.Children(n, t.kids); len(t.kids) > m {
		t.frames = append(t.frames, frame{next: m, end: len(t.kids), fresh: true})
		t.fresh = true
	} else if len(t.kids) < m {
		panic(errShortChildren)
	}
}

// errShortChildren is the panic of a search whose Brancher returned fewer
// nodes than the buf it was given: the nodes still to expand were lost
// (CheckChildren finds it in a test; the counts went wrong without an
// error). The runner turns a rank's panic into exit status 70.
var errShortChildren = errors.New("skeleton: Children returned fewer nodes than the buf it was given: it must return append(buf, children...) (skeleton.CheckChildren tests it)")

// Empty reports whether no node is left to visit (or the search stopped).
// It drops the frames at the top that have no node left.
func (t *task[N]) Empty() bool {
	if t.t.stop {
		return true
	}
	t.trim()
	return !t.root && len(t.owed) == 0 && len(t.frames) == 0
}

// trim drops the frames at the top that have no node left.
func (t *task[N]) trim() {
	for len(t.frames) > 0 {
		if f := t.frames[len(t.frames)-1]; f.next < f.end {
			return
		}
		t.frames = t.frames[:len(t.frames)-1]
		t.kids = t.kids[:top(t.frames)]
	}
}

// Split gives away the later half of the remaining nodes of the
// shallowest frame that has two or more, or the shallowest frame's one
// node when deeper work is left; a task of one path is expanded in place
// until it splits (the visits of the nodes it generates owed to the next
// Work) or ends in a leaf (nil).
func (t *task[N]) Split() lb.Task {
	if t.Empty() {
		return nil
	}
	if t.root {
		t.root = false
		m := len(t.kids)
		t.kids = append(t.kids, t.t.space.Root())
		t.frames = append(t.frames, frame{next: m, end: m + 1, fresh: true})
		t.fresh = true
	}
	for t.trim(); len(t.frames) > 0; t.trim() {
		last := len(t.frames) - 1
		for i := range t.frames {
			f := &t.frames[i]
			switch k := f.end - f.next; {
			case k >= 2: // give the later half
				cut := f.next + (k+1)/2
				p := &task[N]{t: t.t, fresh: f.fresh, kids: append([]N(nil), t.kids[cut:f.end]...)}
				p.frames = []frame{{next: 0, end: len(p.kids), fresh: f.fresh}}
				f.end = cut
				return p
			case k == 1 && i < last: // one node, deeper work left: give it
				p := &task[N]{t: t.t, fresh: f.fresh, kids: []N{t.kids[f.next]}}
				p.frames = []frame{{next: 0, end: 1, fresh: f.fresh}}
				f.next++
				return p
			}
		}
		// One path: its deepest frame has one node left; expand it.
		f := &t.frames[last]
		c := t.kids[f.next]
		f.next++
		if f.fresh {
			t.owed = append(t.owed, c)
		}
		t.expand(c)
	}
	return nil // owed nodes only
}

// Halve splits in place (lb.Halver).
func (t *task[N]) Halve(give bool) bool {
	p := t.Split()
	if p == nil {
		return false
	}
	if give {
		pt := p.(*task[N])
		t.root, t.fresh, t.owed = false, pt.fresh, t.owed[:0]
		t.frames = append(t.frames[:0], pt.frames...)
		t.kids = append(t.kids[:0], pt.kids...)
	}
	return true
}

// Reroot makes t the root again.
func (t *task[N]) Reroot() {
	t.root, t.fresh, t.owed, t.frames, t.kids = true, false, t.owed[:0], t.frames[:0], t.kids[:0]
}

// format is the first byte of an encoded task, plus 1 when it holds the
// root: the skeleton's encodings before frames held their children
// (a node and two cursors a frame) began with 0 or 1.
const format = 2

// AppendBinary appends the task: the format byte (whether it holds the
// root), its owed nodes, and its frames' remaining nodes (2·count, plus 1
// for a fresh frame, then the nodes).
func (t *task[N]) AppendBinary(b []byte) ([]byte, error) {
	sp := t.t.space
	r := byte(format)
	if t.root {
		r++
	}
	b = append(b, r)
	b = binary.AppendUvarint(b, uint64(len(t.owed)))
	for _, n := range t.owed {
		b = sp.AppendNode(b, n)
	}
	nf := 0
	for _, f := range t.frames {
		if f.next < f.end {
			nf++
		}
	}
	b = binary.AppendUvarint(b, uint64(nf))
	for _, f := range t.frames {
		if f.next == f.end {
			continue
		}
		fresh := uint64(0)
		if f.fresh {
			fresh = 1
		}
		b = binary.AppendUvarint(b, uint64(f.end-f.next)<<1|fresh)
		for _, n := range t.kids[f.next:f.end] {
			b = sp.AppendNode(b, n)
		}
	}
	return b, nil
}

// errTask is the error of a task that does not decode.
var errTask = errors.New("skeleton: a task does not decode")

// unmarshal is the Apps' Unmarshal: decode's task, or a nil Task (not a
// Task holding a nil *task) with the error.
func (t *tree[N]) unmarshal(b []byte) (lb.Task, error) {
	k, err := t.decode(b)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// decode decodes a task encoded by AppendBinary.
func (t *tree[N]) decode(b []byte) (*task[N], error) {
	sp := t.space
	switch {
	case len(b) < 1 || b[0] > format+1:
		return nil, errTask
	case b[0] < format:
		return nil, fmt.Errorf("%w: an encoding of an older skeleton (a frame per node), not this one's", errTask)
	}
	k := &task[N]{t: t, root: b[0] == format+1}
	b = b[1:]
	count := func() (int, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > uint64(len(b)) || v > math.MaxInt32 {
			return 0, errTask
		}
		b = b[n:]
		return int(v), nil
	}
	nodes := func(dst []N, count int) ([]N, error) {
		for range count {
			var n N
			var err error
			if n, b, err = sp.DecodeNode(b); err != nil {
				return nil, fmt.Errorf("%w: %v", errTask, err)
			}
			dst = append(dst, n)
		}
		return dst, nil
	}
	no, err := count()
	if err != nil {
		return nil, err
	}
	if k.owed, err = nodes(k.owed, no); err != nil {
		return nil, err
	}
	nf, err := count()
	if err != nil {
		return nil, err
	}
	for range nf {
		v, n := binary.Uvarint(b)
		if n <= 0 || v>>1 > uint64(len(b)) {
			return nil, errTask
		}
		b = b[n:]
		nk, fresh := int(v>>1), v&1 == 1
		if nk == 0 {
			return nil, fmt.Errorf("%w: a frame of no node", errTask)
		}
		m := len(k.kids)
		if k.kids, err = nodes(k.kids, nk); err != nil {
			return nil, err
		}
		k.frames = append(k.frames, frame{next: m, end: len(k.kids), fresh: fresh})
		k.fresh = k.fresh || fresh
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes too many", errTask, len(b))
	}
	return k, nil
}
