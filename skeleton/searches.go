package skeleton

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/treelb/treelb/lb"
)

// Enumeration visits every node of Space and folds the nodes' values with
// Combine, which must be associative and commutative and have the zero
// value of V as its identity (a commutative monoid). Counting solutions:
// V = int64, Value 1 at a solution, 0 elsewhere, Combine +.
type Enumeration[N, V any] struct {
	Space Space[N]
	// Value is a node's contribution; nil (and Fold nil) counts the
	// nodes only.
	Value   func(n N) V
	Combine func(a, b V) V
	// Fold, when set, is used instead of Value: Fold(acc, n) returns
	// Combine(acc, v) for n's value v, in one call a node instead of two
	// (on N-queens, about a tenth of the skeleton's time a node:
	// docs/skeleton.md). Combine is still needed, to add up the ranks'
	// results. acc is passed and returned by value at every node: for a
	// V of more than a few words, make V a pointer (nil the identity)
	// that Fold updates in place and returns, and Combine return a new
	// value (integrate's 584-byte Result: 1.0-1.06 times the hand-written
	// Task's CPU time a node by pointer, 1.6 by value; docs/skeleton.md).
	Fold func(acc V, n N) V
}

// Count is the result of an Enumeration: the nodes visited and the fold of
// their values. It travels between ranks with encoding/gob, so V's fields
// must be exported.
type Count[V any] struct {
	Nodes int64
	Value V
}

type enumApp[N, V any] struct {
	tree[N]
	e   *Enumeration[N, V]
	acc V
}

// Check returns an error naming what the enumeration lacks: a Space, and
// a Combine when it has a Value or a Fold.
func (e *Enumeration[N, V]) Check() error {
	switch {
	case e.Space == nil:
		return errors.New("skeleton: Enumeration.Space is nil")
	case e.Combine == nil && (e.Value != nil || e.Fold != nil):
		return errors.New("skeleton: Enumeration.Combine is nil: with a Value or a Fold, Combine adds up the ranks' values")
	}
	return nil
}

// NewApp returns one rank's App of the enumeration, for lb.Run. It panics
// with Check's error when the enumeration is incomplete.
func (e *Enumeration[N, V]) NewApp() lb.Reducer[Count[V]] {
	mustCheck(e.Check())
	a := &enumApp[N, V]{e: e}
	a.tree = newTree[N](e.Space, a, false)
	return a
}

// Sequential runs the enumeration on one rank, without a balancer. It
// panics as NewApp does.
func (e *Enumeration[N, V]) Sequential() Count[V] {
	a := e.NewApp()
	run(a.Root())
	return a.Result()
}

func (a *enumApp[N, V]) visit(batch []N) (int64, int) {
	if fold := a.e.Fold; fold != nil {
		acc := a.acc
		for _, n := range batch {
			acc = fold(acc, n)
		}
		a.acc = acc
	} else if value, combine := a.e.Value, a.e.Combine; value != nil {
		acc := a.acc
		for _, n := range batch {
			acc = combine(acc, value(n))
		}
		a.acc = acc
	}
	return int64(len(batch)), len(batch)
}

func (a *enumApp[N, V]) stale(N) bool { return false }

func (a *enumApp[N, V]) Root() lb.Task                       { return &task[N]{t: &a.tree, root: true} }
func (a *enumApp[N, V]) Unmarshal(b []byte) (lb.Task, error) { return a.unmarshal(b) }
func (a *enumApp[N, V]) Result() Count[V]                    { return Count[V]{a.nodes, a.acc} }

func (a *enumApp[N, V]) Combine(x, y Count[V]) Count[V] {
	v := x.Value
	if a.e.Combine != nil {
		v = a.e.Combine(x.Value, y.Value)
	}
	return Count[V]{x.Nodes + y.Nodes, v}
}

// Optimisation is a branch-and-bound search: it finds the best Objective
// of the nodes that are solutions, pruning every node whose Bound cannot
// beat the incumbent (strictly better, in Sense). The incumbent travels
// between ranks as lb's incumbent messages (lb.Bounded).
type Optimisation[N any] struct {
	Space Space[N]
	Sense lb.Sense
	// Objective returns the value of a node that is a solution, and false
	// for other nodes.
	Objective func(n N) (v int64, ok bool)
	// Bound returns the best value any solution in n's subtree may have
	// (optimistic: never worse than the truth); nil prunes nothing.
	Bound func(n N) int64
	// Initial, when HasInitial, is a known solution's value (a heuristic's):
	// the search looks for better ones only.
	Initial    int64
	HasInitial bool
}

// Best is the result of an Optimisation or a Decision: the nodes visited
// and, when Found, the best (or the first) solution's value and encoding
// (Space.AppendNode). Of equal values the least encoding wins, so that
// Combine is commutative; the value of an optimisation is the optimum
// under every schedule, but which optimal node it reports may vary, as
// branch-and-bound prunes the nodes that only tie with the incumbent.
type Best struct {
	Nodes int64
	Found bool
	Value int64
	Node  []byte
}

// SameOptimum reports whether two Bests agree on what was found: a
// solution or none, and its Value. It is the comparison for
// lbtest.SameResult on an Optimisation's apps (lbtest.SameResult(
// skeleton.SameOptimum)): the nodes visited, and which of equally good
// solutions is reported, vary with the splits, as branch-and-bound prunes
// what a better incumbent rules out; a Decision's apps may find different
// solutions, or stop before their part is searched.
func SameOptimum(whole, parts Best) bool {
	return whole.Found == parts.Found && whole.Value == parts.Value
}

// better reports whether x is a better result than y under s.
func (x Best) better(y Best, s lb.Sense) bool {
	switch {
	case !x.Found || !y.Found:
		return x.Found
	case x.Value != y.Value:
		return s.Better(x.Value, y.Value)
	}
	return bytes.Compare(x.Node, y.Node) < 0
}

type optApp[N any] struct {
	tree[N]
	o      *Optimisation[N]
	inc    int64
	hasInc bool
	best   Best
}

var (
	_ lb.Bounded = (*optApp[int])(nil)
	_ lb.Stopper = (*decApp[int])(nil)
)

// Check returns an error naming what the search lacks: a Space, an
// Objective, a Sense that is lb.Minimize or lb.Maximize.
func (o *Optimisation[N]) Check() error {
	switch {
	case o.Space == nil:
		return errors.New("skeleton: Optimisation.Space is nil")
	case o.Objective == nil:
		return errors.New("skeleton: Optimisation.Objective is nil")
	case o.Sense != lb.Minimize && o.Sense != lb.Maximize:
		return fmt.Errorf("skeleton: Optimisation.Sense %d: need lb.Minimize or lb.Maximize", o.Sense)
	}
	return nil
}

// NewApp returns one rank's App of the search, for lb.Run. It panics with
// Check's error when the search is incomplete.
func (o *Optimisation[N]) NewApp() lb.Reducer[Best] {
	mustCheck(o.Check())
	a := &optApp[N]{o: o, inc: o.Initial, hasInc: o.HasInitial}
	a.tree = newTree[N](o.Space, a, o.Bound != nil)
	return a
}

// Sequential runs the search on one rank, without a balancer. It panics
// as NewApp does.
func (o *Optimisation[N]) Sequential() Best {
	a := o.NewApp()
	run(a.Root())
	return a.Result()
}

func (a *optApp[N]) visit(batch []N) (int64, int) {
	o := a.o
	keep := 0
	for _, n := range batch {
		if a.stale(n) {
			continue
		}
		if v, ok := o.Objective(n); ok {
			c := Best{Found: true, Value: v, Node: o.Space.AppendNode(nil, n)}
			if c.better(a.best, o.Sense) {
				a.best = c
			}
			if !a.hasInc || o.Sense.Better(v, a.inc) {
				a.inc, a.hasInc = v, true
			}
		}
		batch[keep] = n
		keep++
	}
	return int64(keep), keep
}

// stale reports whether n's Bound cannot beat the incumbent.
func (a *optApp[N]) stale(n N) bool {
	o := a.o
	return a.hasInc && o.Bound != nil && !o.Sense.Better(o.Bound(n), a.inc)
}

func (a *optApp[N]) Root() lb.Task                       { return &task[N]{t: &a.tree, root: true} }
func (a *optApp[N]) Unmarshal(b []byte) (lb.Task, error) { return a.unmarshal(b) }

func (a *optApp[N]) Result() Best {
	r := a.best
	r.Nodes = a.nodes
	return r
}

func (a *optApp[N]) Combine(x, y Best) Best {
	n := x.Nodes + y.Nodes
	if y.better(x, a.o.Sense) {
		x = y
	}
	x.Nodes = n
	return x
}

func (a *optApp[N]) Sense() lb.Sense          { return a.o.Sense }
func (a *optApp[N]) Incumbent() (int64, bool) { return a.inc, a.hasInc }
func (a *optApp[N]) Improve(v int64) {
	if !a.hasInc || a.o.Sense.Better(v, a.inc) {
		a.inc, a.hasInc = v, true
	}
}

// Decision looks for one node that Goal accepts and stops the whole search
// when a rank finds one (lb.Stopper). Which solution it finds, and the
// nodes it visits, depend on the balancer and the schedule.
type Decision[N any] struct {
	Space Space[N]
	Goal  func(n N) bool
}

type decApp[N any] struct {
	tree[N]
	d     *Decision[N]
	found []byte
	ok    bool
}

// Check returns an error naming what the search lacks: a Space, a Goal.
func (d *Decision[N]) Check() error {
	switch {
	case d.Space == nil:
		return errors.New("skeleton: Decision.Space is nil")
	case d.Goal == nil:
		return errors.New("skeleton: Decision.Goal is nil")
	}
	return nil
}

// NewApp returns one rank's App of the search, for lb.Run. It panics with
// Check's error when the search is incomplete.
func (d *Decision[N]) NewApp() lb.Reducer[Best] {
	mustCheck(d.Check())
	a := &decApp[N]{d: d}
	a.tree = newTree[N](d.Space, a, false)
	return a
}

// Sequential runs the search on one rank, without a balancer. It panics
// as NewApp does.
func (d *Decision[N]) Sequential() Best {
	a := d.NewApp()
	run(a.Root())
	return a.Result()
}

func (a *decApp[N]) visit(batch []N) (int64, int) {
	for i, n := range batch {
		if !a.ok && a.d.Goal(n) {
			a.found, a.ok = a.d.Space.AppendNode(nil, n), true
			a.stop = true
			return int64(i + 1), 0
		}
	}
	return int64(len(batch)), len(batch)
}

func (a *decApp[N]) stale(N) bool { return false }

func (a *decApp[N]) Solved() bool { return a.ok }

func (a *decApp[N]) Root() lb.Task                       { return &task[N]{t: &a.tree, root: true} }
func (a *decApp[N]) Unmarshal(b []byte) (lb.Task, error) { return a.unmarshal(b) }
func (a *decApp[N]) Result() Best                        { return Best{Nodes: a.nodes, Found: a.ok, Node: a.found} }

func (a *decApp[N]) Combine(x, y Best) Best {
	n := x.Nodes + y.Nodes
	if y.better(x, lb.Minimize) {
		x = y
	}
	x.Nodes = n
	return x
}

// mustCheck panics with err, a search's incomplete definition (a
// programmer's error, as a nil handler is to net/http), when it is not nil.
func mustCheck(err error) {
	if err != nil {
		panic(err)
	}
}

// run works t to its end.
func run(t lb.Task) {
	for !t.Empty() {
		t.Work(1 << 30)
	}
}
