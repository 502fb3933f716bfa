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
// Give a pointer (methods with pointer receivers): the skeleton calls
// Child once or twice a node, and a call through the interface to a value
// receiver copies the value first (on N-queens, a third of the skeleton's
// time: docs/skeleton.md).
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

// visitor is what a search does at a node: visit reports whether the node
// counts (false: pruned, not a node) and whether to expand it. A search
// that stops (a Decision) sets its tree's stop instead of answering a
// call at every node.
type visitor[N any] interface {
	visit(n N) (counted, expand bool)
}

// frame is a node whose children from cursor cur on, below stop (stop < 0:
// none), are still to visit.
type frame[N any] struct {
	node      N
	cur, stop int
}

// tree is the part of a search's App that its tasks share.
type tree[N any] struct {
	space Space[N]
	v     visitor[N]
	nodes int64 // nodes visited on this rank
	stop  bool  // the whole search stopped on this rank
}

// task is a part of the search: the root when root is set, the owed nodes
// (expanded by a split, visited by the next Work) and the frames, the
// shallowest first. A frame may have no child left; Empty drops such
// frames from the top.
type task[N any] struct {
	t     *tree[N]
	root  bool
	owed  []N
	stack []frame[N]
}

var _ lb.Halver = (*task[int])(nil)

// next returns f's next child and the cursor after it, false when f has
// none left.
func (t *tree[N]) next(f *frame[N]) (N, int, bool) {
	child, after, ok := t.space.Child(f.node, f.cur)
	if !ok || (f.stop >= 0 && after > f.stop) {
		var zero N
		return zero, 0, false
	}
	return child, after, true
}

// Work visits at most budget nodes, depth first: the owed nodes, then the
// root, then the frames. The loop over the frames is the search's inner
// loop: one Child call and one visit a node, one more Child call, failing,
// when a frame's children are exhausted.
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
			t.stack = append(t.stack, frame[N]{node: node, stop: -1})
		}
	}
	sp, v, stack := tr.space, tr.v, t.stack
	for n < budget && len(stack) > 0 && !tr.stop {
		f := &stack[len(stack)-1]
		child, after, ok := sp.Child(f.node, f.cur)
		if !ok || (f.stop >= 0 && after > f.stop) {
			stack = stack[:len(stack)-1]
			continue
		}
		f.cur = after
		counted, expand := v.visit(child)
		if counted {
			n++
		}
		if expand {
			stack = append(stack, frame[N]{node: child, stop: -1})
		}
	}
	t.stack = stack
	tr.nodes += n
	return n
}

// Empty reports whether no node is left to visit (or the search stopped).
// It drops the frames at the top that have no child left.
func (t *task[N]) Empty() bool {
	if t.t.stop {
		return true
	}
	t.trim()
	return !t.root && len(t.owed) == 0 && len(t.stack) == 0
}

// trim drops the frames at the top that have no child left.
func (t *task[N]) trim() {
	for len(t.stack) > 0 {
		if _, _, ok := t.t.next(&t.stack[len(t.stack)-1]); ok {
			return
		}
		t.stack = t.stack[:len(t.stack)-1]
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
		t.stack = append(t.stack, frame[N]{node: root, stop: -1})
	}
	for t.trim(); len(t.stack) > 0; t.trim() {
		top := len(t.stack) - 1
		for i := range t.stack {
			f := &t.stack[i]
			k, cut := t.remaining(f)
			switch {
			case k >= 2: // give the later half
				p := &task[N]{t: t.t, stack: []frame[N]{{node: f.node, cur: cut, stop: f.stop}}}
				f.stop = cut
				return p
			case k == 1 && i < top: // one child, deeper work left: give it
				p := &task[N]{t: t.t, stack: []frame[N]{*f}}
				f.cur = cut
				return p
			}
		}
		// One path: its deepest node has one child left; expand it.
		f := &t.stack[top]
		c, after, _ := t.t.next(f)
		f.cur = after
		t.owed = append(t.owed, c)
		t.stack = append(t.stack, frame[N]{node: c, stop: -1})
	}
	return nil // owed nodes only
}

// remaining returns the number of children f has left, up to 2, and the
// cursor after its first ⌈k/2⌉ of its k children (after the first, for one).
func (t *task[N]) remaining(f *frame[N]) (int, int) {
	sp := t.t.space
	var afters []int
	var buf [64]int
	afters = buf[:0]
	for c := f.cur; ; {
		_, after, ok := sp.Child(f.node, c)
		if !ok || (f.stop >= 0 && after > f.stop) {
			break
		}
		afters = append(afters, after)
		c = after
	}
	k := len(afters)
	if k == 0 {
		return 0, f.cur
	}
	return k, afters[(k+1)/2-1]
}

// Halve splits in place (lb.Halver).
func (t *task[N]) Halve(give bool) bool {
	p := t.Split()
	if p == nil {
		return false
	}
	if give {
		pt := p.(*task[N])
		t.root, t.owed, t.stack = false, t.owed[:0], append(t.stack[:0], pt.stack...)
	}
	return true
}

// Reroot makes t the root again.
func (t *task[N]) Reroot() {
	t.root, t.owed, t.stack = true, t.owed[:0], t.stack[:0]
}

// AppendBinary appends the task: whether it holds the root, its owed
// nodes, and its frames (node, cursor of the next child, stop + 1).
func (t *task[N]) AppendBinary(b []byte) ([]byte, error) {
	sp := t.t.space
	r := byte(0)
	if t.root {
		r = 1
	}
	b = append(b, r)
	b = binary.AppendUvarint(b, uint64(len(t.owed)))
	for _, n := range t.owed {
		b = sp.AppendNode(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(t.stack)))
	for i := range t.stack {
		f := &t.stack[i]
		b = sp.AppendNode(b, f.node)
		b = binary.AppendUvarint(b, uint64(f.cur))
		b = binary.AppendUvarint(b, uint64(f.stop+1))
	}
	return b, nil
}

// errTask is the error of a task that does not decode.
var errTask = errors.New("skeleton: a task does not decode")

// decode decodes a task encoded by AppendBinary.
func (t *tree[N]) decode(b []byte) (*task[N], error) {
	sp := t.space
	if len(b) < 1 || b[0] > 1 {
		return nil, errTask
	}
	k := &task[N]{t: t, root: b[0] == 1}
	b = b[1:]
	uvarint := func(max uint64) (int, error) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > max {
			return 0, errTask
		}
		b = b[n:]
		return int(v), nil
	}
	count := func() (int, error) { return uvarint(uint64(len(b))) }
	no, err := count()
	if err != nil {
		return nil, err
	}
	for range no {
		var n N
		if n, b, err = sp.DecodeNode(b); err != nil {
			return nil, fmt.Errorf("%w: %v", errTask, err)
		}
		k.owed = append(k.owed, n)
	}
	nf, err := count()
	if err != nil {
		return nil, err
	}
	for range nf {
		var n N
		if n, b, err = sp.DecodeNode(b); err != nil {
			return nil, fmt.Errorf("%w: %v", errTask, err)
		}
		cur, err := uvarint(math.MaxInt)
		if err != nil {
			return nil, err
		}
		stop, err := uvarint(math.MaxInt)
		if err != nil {
			return nil, err
		}
		k.stack = append(k.stack, frame[N]{node: n, cur: cur, stop: stop - 1})
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes too many", errTask, len(b))
	}
	return k, nil
}
