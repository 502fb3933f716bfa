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
// a node, where Child takes one call a child and one more); Children must
// append the children that Child generates, in the same order
// (CheckChildren tests it).
type Brancher[N any] interface {
	// Children appends the children of n to buf and returns the extended
	// slice.
	Children(n N, buf []N) []N
}

// CheckChildren returns an error when s's Children (a Brancher) and Child
// generate different children, in number or order, for a node of the first
// max nodes of s's tree (depth first, Child's order); nil for a Space
// without Children. Nodes are compared with ==, hence N comparable.
func CheckChildren[N comparable](s Space[N], max int) error {
	br, ok := s.(Brancher[N])
	if !ok {
		return nil
	}
	stack := []N{s.Root()}
	var buf []N
	for seen := 0; len(stack) > 0 && seen < max; seen++ {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		buf = br.Children(n, buf[:0])
		i := 0
		for c := 0; ; i++ {
			child, after, ok := s.Child(n, c)
			if !ok {
				break
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

// visitor is what a search does at a node: visit reports whether the node
// counts (false: pruned, not a node) and whether to expand it. A search
// that stops (a Decision) sets its tree's stop instead of answering a
// call at every node.
type visitor[N any] interface {
	visit(n N) (counted, expand bool)
}

// frame is a level of a task's stack: the children of one node, at
// kids[next:end], not visited yet.
type frame struct{ next, end int }

// tree is the part of a search's App that its tasks share.
type tree[N any] struct {
	space    Space[N]
	br       Brancher[N] // the Space's Children, or Child's children
	v        visitor[N]
	nodes    int64 // nodes visited on this rank
	stop     bool  // the whole search stopped on this rank
}

// newTree returns the tree of a search on space, visited by v.
func newTree[N any](space Space[N], v visitor[N]) tree[N] {
	t := tree[N]{space: space, v: v}
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
		buf, c = append(buf, child), after
	}
}

// task is a part of the search: the root when root is set, the owed nodes
// (expanded by a split, visited by the next Work) and the frames, the
// shallowest first, whose nodes are in kids. A frame's children are
// above its parent's in kids; the nodes of kids that no frame holds
// (visited, or given away by a split) are dropped when the frame above
// them ends.
type task[N any] struct {
	t      *tree[N]
	root   bool
	owed   []N
	frames []frame
	kids   []N
}

var _ lb.Halver = (*task[int])(nil)

// Work visits at most budget nodes, depth first: the owed nodes, then the
// root, then the frames. The loop over the frames is the search's inner
// loop: one visit and one children call (a Brancher's Children, or Child
// until it fails) a node.
func (t *task[N]) Work(budget int64) int64 {
	tr := t.t
	var n int64
	for n < budget && !tr.stop && len(t.owed) > 0 {
		node := t.owed[len(t.owed)-1]
		t.owed = t.owed[:len(t.owed)-1]
		tr.v.visit(node) // its children are on the stack already
		n++
	}
	if n < budget && !tr.stop && t.root {
		t.root = false
		node := tr.space.Root()
		counted, expand := tr.v.visit(node)
		if counted {
			n++
		}
		if expand {
			t.push(node)
		}
	}
	br, v, frames, kids := tr.br, tr.v, t.frames, t.kids
	for n < budget && len(frames) > 0 && !tr.stop {
		f := &frames[len(frames)-1]
		if f.next == f.end {
			frames = frames[:len(frames)-1]
			kids = kids[:top(frames)]
			continue
		}
		node := kids[f.next]
		f.next++
		counted, expand := v.visit(node)
		if counted {
			n++
		}
		if expand {
			m := len(kids)
			if kids = br.Children(node, kids); len(kids) > m {
				frames = append(frames, frame{m, len(kids)})
			}
		}
	}
	t.frames, t.kids = frames, kids
	tr.nodes += n
	return n
}

// top returns the end of the top frame's children, 0 for no frame.
func top(frames []frame) int {
	if len(frames) == 0 {
		return 0
	}
	return frames[len(frames)-1].end
}

// push pushes the frame of n's children, if it has any.
func (t *task[N]) push(n N) {
	m := len(t.kids)
	if t.kids = t.t.br.Children(n, t.kids); len(t.kids) > m {
		t.frames = append(t.frames, frame{m, len(t.kids)})
	}
}

// Empty reports whether no node is left to visit (or the search stopped).
// It drops the frames at the top that have no child left.
func (t *task[N]) Empty() bool {
	if t.t.stop {
		return true
	}
	t.trim()
	return !t.root && len(t.owed) == 0 && len(t.frames) == 0
}

// trim drops the frames at the top that have no child left.
func (t *task[N]) trim() {
	for len(t.frames) > 0 {
		if f := t.frames[len(t.frames)-1]; f.next < f.end {
			return
		}
		t.frames = t.frames[:len(t.frames)-1]
		t.kids = t.kids[:top(t.frames)]
	}
}

// Split gives away the later half of the remaining children of the
// shallowest frame that has two or more, or the shallowest frame's one
// child when deeper work is left; a task of one path is expanded in
// place until it splits (its visits owed to the next Work) or ends in a
// leaf (nil).
func (t *task[N]) Split() lb.Task {
	if t.Empty() {
		return nil
	}
	if t.root {
		t.root = false
		root := t.t.space.Root()
		t.owed = append(t.owed, root)
		t.push(root)
	}
	for t.trim(); len(t.frames) > 0; t.trim() {
		last := len(t.frames) - 1
		for i := range t.frames {
			f := &t.frames[i]
			switch k := f.end - f.next; {
			case k >= 2: // give the later half
				cut := f.next + (k+1)/2
				p := &task[N]{t: t.t, kids: append([]N(nil), t.kids[cut:f.end]...)}
				p.frames = []frame{{0, len(p.kids)}}
				f.end = cut
				return p
			case k == 1 && i < last: // one child, deeper work left: give it
				p := &task[N]{t: t.t, kids: []N{t.kids[f.next]}, frames: []frame{{0, 1}}}
				f.next++
				return p
			}
		}
		// One path: its deepest frame has one child left; expand it.
		f := &t.frames[last]
		c := t.kids[f.next]
		f.next++
		t.owed = append(t.owed, c)
		t.push(c)
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
		t.root, t.owed = false, t.owed[:0]
		t.frames = append(t.frames[:0], pt.frames...)
		t.kids = append(t.kids[:0], pt.kids...)
	}
	return true
}

// Reroot makes t the root again.
func (t *task[N]) Reroot() {
	t.root, t.owed, t.frames, t.kids = true, t.owed[:0], t.frames[:0], t.kids[:0]
}

// format is the first byte of an encoded task, plus 1 when it holds the
// root: the skeleton's encodings before frames held their children
// (a node and two cursors a frame) began with 0 or 1.
const format = 2

// AppendBinary appends the task: the format byte (whether it holds the
// root), its owed nodes, and its frames' remaining children.
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
		b = binary.AppendUvarint(b, uint64(f.end-f.next))
		for _, n := range t.kids[f.next:f.end] {
			b = sp.AppendNode(b, n)
		}
	}
	return b, nil
}

// errTask is the error of a task that does not decode.
var errTask = errors.New("skeleton: a task does not decode")

// decode decodes a task encoded by AppendBinary.
func (t *tree[N]) decode(b []byte) (*task[N], error) {
	sp := t.space
	if len(b) < 1 || b[0] < format || b[0] > format+1 {
		return nil, errTask
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
		nk, err := count()
		if err != nil {
			return nil, err
		}
		if nk == 0 {
			return nil, fmt.Errorf("%w: a frame of no node", errTask)
		}
		m := len(k.kids)
		if k.kids, err = nodes(k.kids, nk); err != nil {
			return nil, err
		}
		k.frames = append(k.frames, frame{m, len(k.kids)})
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes too many", errTask, len(b))
	}
	return k, nil
}
