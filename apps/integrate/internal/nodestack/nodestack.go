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
	open, rest, err := decodeNodes(b, minSize, next)
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(rest))
	}
	return Stack[E]{Open: open}, err
}

// decodeNodes decodes a count and that many nodes from the front of b and
// returns them with the bytes after them.
func decodeNodes[E Node](b []byte, minSize int, next func(b []byte) (E, int, error)) ([]E, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)/minSize) {
		return nil, nil, fmt.Errorf("%w: bad count", ErrMalformed)
	}
	if k != len(binary.AppendUvarint(nil, n)) {
		// One encoding per stack: a padded varint (80 00 for 0) is not ours.
		return nil, nil, fmt.Errorf("%w: count not in its shortest form", ErrMalformed)
	}
	b = b[k:]
	open := make([]E, 0, n)
	for i := range n {
		e, used, err := next(b)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: node %d: %v", ErrMalformed, i, err)
		}
		b = b[used:]
		open = append(open, e)
	}
	return open, b, nil
}

// Expand is an app's expansion step: it expands nodes from the end of
// open, depth first, pushing the children of those that spawn, until it
// has expanded budget nodes or open is empty, and returns the stack and
// the number of nodes expanded. It counts the work in its app's result.
type Expand[E Node] func(open []E, budget int64) ([]E, int64)

// Spawn is an app's children of a node, computed without counting
// anything: nil for a leaf, otherwise the children in the order Expand
// pushes them (the one it expands first last).
type Spawn[E Node] func(n E) []E

// Task is a stack of open nodes worked by an app's Expand: an lb.Task,
// and an lb.Leveled whose level is the embedded Stack's. An app's
// Unmarshal decodes its encoding with DecodeTask. A Task is not safe for
// concurrent use.
//
// A fresh task (the root, or a piece split off a fresh task, not worked
// since) that holds a lone node splits by expanding it in place (the
// app's Spawn): static placement, hybrid and fast initialisation split the
// root and its parts about log₂ P times on every rank without working
// them, and a lone root that did not split left every rank but one
// without work. The node is then owed: the part kept
// holds it, and its next Work counts it (the app's Expand on the node
// alone, whose children are dropped: they are already open here or given
// away). A task worked since does not split a lone node, so the tasks
// KOSO splits after every step (seed 003) are still the tree's nodes.
type Task[E Node] struct {
	Stack[E]
	expand Expand[E]
	spawn  Spawn[E] // nil: a lone node never splits
	owed   []E      // nodes expanded in place by Split, for the next Work to count
	fresh  bool
}

var (
	_ lb.Task    = (*Task[Node])(nil)
	_ lb.Leveled = (*Task[Node])(nil)
)

// NewTask returns a task of the open nodes of s, worked by expand; it does
// not split a lone node.
func NewTask[E Node](s Stack[E], expand Expand[E]) *Task[E] {
	return &Task[E]{Stack: s, expand: expand}
}

// NewRoot returns the task of the whole tree, the open node root, worked
// by expand: a fresh task, which splits its lone node by expanding it in
// place with spawn (see Task).
func NewRoot[E Node](root E, expand Expand[E], spawn Spawn[E]) *Task[E] {
	return &Task[E]{Stack: Stack[E]{Open: []E{root}}, expand: expand, spawn: spawn, fresh: true}
}

// DecodeTask decodes a task encoded by Task.AppendBinary (see Decode), to
// be worked by expand and split with spawn.
func DecodeTask[E Node](b []byte, minSize int, next func(b []byte) (E, int, error), expand Expand[E], spawn Spawn[E]) (*Task[E], error) {
	open, rest, err := decodeNodes(b, minSize, next)
	if err != nil {
		return nil, err
	}
	t := &Task[E]{Stack: Stack[E]{Open: open}, expand: expand, spawn: spawn}
	if len(rest) == 0 {
		return t, nil
	}
	flags, k := binary.Uvarint(rest)
	if k <= 0 || flags == 0 || flags&^(flagFresh|flagOwed) != 0 || k != len(binary.AppendUvarint(nil, flags)) {
		return nil, fmt.Errorf("%w: bad flags after the nodes", ErrMalformed)
	}
	rest = rest[k:]
	t.fresh = flags&flagFresh != 0
	if flags&flagOwed != 0 {
		if t.owed, rest, err = decodeNodes(rest, minSize, next); err != nil {
			return nil, fmt.Errorf("the nodes owed: %w", err)
		}
		if len(t.owed) == 0 {
			return nil, fmt.Errorf("%w: no node owed", ErrMalformed)
		}
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(rest))
	}
	return t, nil
}

// The flags of a task's encoding after its open nodes (none: neither).
const (
	flagFresh = 1 << iota // the task is fresh
	flagOwed              // the nodes it owes follow
)

// Empty reports whether nothing is left: no node open and none owed.
func (t *Task[E]) Empty() bool { return len(t.Open) == 0 && len(t.owed) == 0 }

// AppendBinary appends the open nodes' encoding (Stack.AppendBinary), then
// for a fresh task or one that owes nodes the flags that say which
// (uvarint) and the nodes owed the same way as the open ones: a task
// neither fresh nor owing encodes as its stack alone.
func (t *Task[E]) AppendBinary(b []byte) ([]byte, error) {
	b, err := t.Stack.AppendBinary(b)
	var flags uint64
	if t.fresh {
		flags |= flagFresh
	}
	if len(t.owed) > 0 {
		flags |= flagOwed
	}
	if err != nil || flags == 0 {
		return b, err
	}
	b = binary.AppendUvarint(b, flags)
	if len(t.owed) > 0 {
		b, err = (&Stack[E]{Open: t.owed}).AppendBinary(b)
	}
	return b, err
}

// Work counts the nodes a split owes the task and expands up to budget
// nodes in all with the app's Expand; it returns how many it counted.
func (t *Task[E]) Work(budget int64) int64 {
	var n int64
	t.fresh = false
	for len(t.owed) > 0 && n < budget {
		last := len(t.owed) - 1
		_, k := t.expand([]E{t.owed[last]}, 1) // counts it; its children are known
		var zero E
		t.owed[last] = zero
		t.owed = t.owed[:last]
		n += k
	}
	if n < budget {
		var k int64
		t.Open, k = t.expand(t.Open, budget-n)
		n += k
	}
	return n
}

// Split gives away the shallowest open node, the largest piece of work, as
// a new task; nil when fewer than two nodes are open after a fresh task's
// lone node was expanded in place (see Task).
func (t *Task[E]) Split() lb.Task {
	if t.fresh && t.spawn != nil && len(t.Open) == 1 {
		if kids := t.spawn(t.Open[0]); len(kids) > 0 {
			t.owed = append(t.owed, t.Open[0])
			t.Open = append(t.Open[:0], kids...)
		}
	}
	if s, ok := t.SplitOff(); ok {
		return &Task[E]{Stack: s, expand: t.expand, spawn: t.spawn, fresh: t.fresh}
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
