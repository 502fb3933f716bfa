// Package nodestack holds what the integrate apps' tasks share: the stack
// of open nodes of a depth-first expansion of a binary tree, how it splits
// (the shallowest open node goes) and how it travels as bytes (a count,
// then each node's own encoding), and the task built on it, which an app
// completes with its expansion step.
package nodestack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/treelb/treelb/lb"
)

// Node is an open node of a binary tree.
type Node interface {
	// Level returns the node's level; the root is level 0.
	Level() int
	// AppendBinary appends the node's encoding to b.
	AppendBinary(b []byte) []byte
}

// Stack is the open nodes of a depth-first expansion, shallowest first:
// the last is expanded next, the first is the largest piece of work. The
// tasks keep it as an embedded field and push and pop Open directly. The
// zero value is empty; a Stack is not safe for concurrent use.
type Stack[E Node] struct {
	Open []E
}

// Empty reports whether no node is open.
func (s *Stack[E]) Empty() bool { return len(s.Open) == 0 }

// Level returns the level of the shallowest open node, or −1 when none is
// open. A task that has just expanded its only node, at level l, into two
// children holds them at level l+1, and so do both parts after a split:
// the level of seed 003's tasks, by which KOSO orders its queues.
func (s *Stack[E]) Level() int {
	if len(s.Open) == 0 {
		return -1
	}
	return s.Open[0].Level()
}

// SplitOff removes the shallowest open node and returns a stack holding
// it; ok is false, and nothing changes, when fewer than two nodes are open
// (a lone node is not given away before it is expanded). It is O(depth).
func (s *Stack[E]) SplitOff() (piece Stack[E], ok bool) {
	if len(s.Open) < 2 {
		return Stack[E]{}, false
	}
	piece.Open = []E{s.Open[0]}
	copy(s.Open, s.Open[1:])
	var zero E
	s.Open[len(s.Open)-1] = zero
	s.Open = s.Open[:len(s.Open)-1]
	return piece, true
}

// AppendBinary appends the number of open nodes (uvarint) and each node's
// encoding, shallowest first.
func (s *Stack[E]) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(s.Open)))
	for _, n := range s.Open {
		b = n.AppendBinary(b)
	}
	return b, nil
}

// ErrMalformed is wrapped by every error of Decode.
var ErrMalformed = errors.New("malformed task")

// Decode decodes a stack encoded by AppendBinary. next decodes one node
// from the front of b and returns it and the bytes it took; minSize is the
// fewest bytes a node takes, which bounds the count before anything is
// allocated. Errors wrap ErrMalformed.
func Decode[E Node](b []byte, minSize int, next func(b []byte) (E, int, error)) (Stack[E], error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)/minSize) {
		return Stack[E]{}, fmt.Errorf("%w: bad count", ErrMalformed)
	}
	if k != len(binary.AppendUvarint(nil, n)) {
		// One encoding per stack: a padded varint (80 00 for 0) is not ours.
		return Stack[E]{}, fmt.Errorf("%w: count not in its shortest form", ErrMalformed)
	}
	b = b[k:]
	s := Stack[E]{Open: make([]E, 0, n)}
	for i := range n {
		e, used, err := next(b)
		if err != nil {
			return Stack[E]{}, fmt.Errorf("%w: node %d: %v", ErrMalformed, i, err)
		}
		b = b[used:]
		s.Open = append(s.Open, e)
	}
	if len(b) != 0 {
		return Stack[E]{}, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(b))
	}
	return s, nil
}

// Expand is an app's expansion step: it expands nodes from the end of
// open, depth first, pushing the children of those that spawn, until it
// has expanded budget nodes or open is empty, and returns the stack and
// the number of nodes expanded. It counts the work in its app's result.
type Expand[E Node] func(open []E, budget int64) ([]E, int64)

// Task is a stack of open nodes worked by an app's Expand: an lb.Task,
// and an lb.Leveled whose level is the embedded Stack's. The embedded
// Stack gives it Empty, Level and AppendBinary; an app's Unmarshal
// decodes the encoding. A Task is not safe for concurrent use.
type Task[E Node] struct {
	Stack[E]
	expand Expand[E]
}

var (
	_ lb.Task    = (*Task[Node])(nil)
	_ lb.Leveled = (*Task[Node])(nil)
)

// NewTask returns a task of the open nodes of s, worked by expand.
func NewTask[E Node](s Stack[E], expand Expand[E]) *Task[E] {
	return &Task[E]{Stack: s, expand: expand}
}

// Work expands up to budget nodes with the app's Expand and returns how
// many it expanded.
func (t *Task[E]) Work(budget int64) int64 {
	var n int64
	t.Open, n = t.expand(t.Open, budget)
	return n
}

// Split gives away the shallowest open node, the largest piece of work, as
// a new task; nil when fewer than two nodes are open (a lone node is not
// split before it is expanded).
func (t *Task[E]) Split() lb.Task {
	if s, ok := t.SplitOff(); ok {
		return NewTask(s, t.expand)
	}
	return nil
}

// Worker is the part of a task that Drain uses.
type Worker interface {
	Empty() bool
	Work(budget int64) int64
}

// Drain works t until it is empty, the sequential solver, and returns the
// nodes it expanded.
func Drain(t Worker) int64 {
	var n int64
	for !t.Empty() {
		n += t.Work(math.MaxInt64)
	}
	return n
}
