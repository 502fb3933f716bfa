package knap

// This file is the glue to package lb: App is an lb.App, an
// lb.Reducer[Result] and an lb.Bounded, and Task is an lb.Task.

import (
	"fmt"
	"slices"

	"github.com/treelb/treelb/lb"
)

var (
	_ lb.Reducer[Result] = (*App)(nil)
	_ lb.Bounded         = (*App)(nil)
	_ lb.Task            = (*Task)(nil)
)

// App is one rank's view of a knapsack search: the prepared instance, the
// incumbent (the best profit known on this rank, found here or told by
// Improve), the best solution found on this rank and the nodes expanded
// here. Every rank builds its own App from the same instance. An App is
// not safe for concurrent use.
type App struct {
	pr     *problem
	search Search

	z       int64  // incumbent, search items only (without pr.alwaysP)
	bestSet []bool // best solution found on this rank, by position in pr.item
	nodes   int64

	up, dn   []int32 // Core: runs of reduced items (see upCore)
	path     []int32 // Core: path[d] is the item flipped at depth d ≤ n of the current node
	maxDepth int     // Core: levels of one recursive descent (maxRecursion; tests lower it)
}

// NewApp returns a rank's App for searching in with s. It checks the
// instance (Instance.Validate), sorts its items and computes the greedy
// start incumbent, in O(n log n) time. in must not change afterwards.
func NewApp(in *Instance, s Search) (*App, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if s < 0 || s >= nSearches {
		return nil, fmt.Errorf("knapsack: unknown search %d", int(s))
	}
	return newApp(prepare(in), s), nil
}

// newApp returns a fresh App on a prepared problem.
func newApp(pr *problem, s Search) *App {
	a := &App{pr: pr, search: s, z: pr.greedy, bestSet: slices.Clone(pr.greedySet)}
	if s == Core {
		a.maxDepth = maxRecursion
		a.path = make([]int32, pr.n+1) // a path flips each item at most once
		a.up, a.dn = make([]int32, pr.n), make([]int32, pr.n)
		for k := range a.up {
			a.up[k], a.dn[k] = int32(k), int32(k)
		}
	}
	return a
}

// Clone returns an App for another rank, as NewApp would return it (the
// greedy start incumbent, no nodes), sharing a's sorted items, which never
// change: O(n) time and memory instead of NewApp's O(n log n) and copy of
// the items, for many ranks in one process. Apps that share items may be
// used concurrently, each by one goroutine.
func (a *App) Clone() *App {
	return newApp(a.pr, a.search)
}

// Root returns the whole search. Every rank builds the same root.
func (a *App) Root() lb.Task {
	return a.root()
}

// root returns the root task with its concrete type.
func (a *App) root() *Task {
	var t *Task
	if a.search == Core {
		t = a.rootCore()
	} else {
		t = a.rootHS()
	}
	t.fresh = true
	return t
}

// Unmarshal decodes a task encoded by Task.AppendBinary on any rank of the
// same instance and search.
func (a *App) Unmarshal(b []byte) (lb.Task, error) {
	t, err := a.unmarshal(b)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// unmarshal is Unmarshal with a concrete result type.
func (a *App) unmarshal(b []byte) (*Task, error) {
	if len(b) == 0 {
		return nil, fmt.Errorf("knapsack: empty task encoding")
	}
	d := &decoder{b: b[1:]}
	var t *Task
	var err error
	switch {
	case b[0] == tagCore && a.search == Core:
		t, err = a.unmarshalCore(d)
	case b[0] == tagHS && a.search == HS:
		t, err = a.unmarshalHS(d)
	default:
		return nil, fmt.Errorf("knapsack: task tag %q does not belong to a %s search", b[0], a.search)
	}
	if err == nil && len(d.b) > 0 {
		err = fmt.Errorf("%d bytes after the task", len(d.b))
	}
	if err != nil {
		return nil, fmt.Errorf("knapsack: malformed %s task: %w", a.search, err)
	}
	return t, nil
}

// Split gives away a disjoint part of the remaining work, or returns nil
// when nothing left can beat the incumbent. Core: every other remaining
// child, the next first, of the shallowest frame whose next child's bound
// beats the incumbent. HS: the shallowest open left-out alternative whose
// bound beats it, with the alternatives after it in its run of packed
// items up to an eighth of the run (see runShare). Alternatives passed on
// the way are closed.
//
// A fresh task (made by Root, or split off a fresh task, and not worked
// since) splits canonically instead, the same whatever the current
// incumbent, so that the pieces of roots split at different times and on
// different ranks fit together: static placement makes each leaf from a
// new root when it needs it, fast initialisation splits the root on every
// rank, and a rank's incumbent may have grown in between. Core: every other
// child of the shallowest frame with children left, the next first, reduced
// or not. HS: alternatives are judged by the greedy start incumbent, which
// every rank knows, instead of the current one. Either way the pieces and
// the rest cover every node that beats the current incumbent.
func (t *Task) Split() lb.Task {
	if o := t.split(); o != nil {
		return o
	}
	return nil
}

// Sense returns lb.Maximize: a higher profit is better.
func (a *App) Sense() lb.Sense { return lb.Maximize }

// Incumbent returns the best profit known on this rank; there always is
// one, the greedy start solution.
func (a *App) Incumbent() (int64, bool) {
	return a.pr.alwaysP + a.z, true
}

// Improve tells the rank that a solution with profit v exists; the search
// then looks only for better ones.
func (a *App) Improve(v int64) {
	v -= a.pr.alwaysP
	if v > a.z {
		a.z = min(v, a.pr.P[a.pr.n]) // more would prune everything all the same
	}
}

// Result is the outcome of a search: the best solution and the nodes
// expanded, on one rank or combined over ranks. The zero value is the empty
// solution and no nodes, an identity of Combine. It travels between ranks
// in its compact binary encoding (MarshalBinary, result.go); its JSON form
// is its fields'.
type Result struct {
	Profit int64 `json:"profit"`
	Weight int64 `json:"weight"`
	Items  []int `json:"items"` // chosen items, 0-based input indices, ascending
	Nodes  int64 `json:"nodes"`
}

// Result returns this rank's best solution and node count, in O(n) time.
func (a *App) Result() Result {
	items, p, w := a.pr.items(a.bestSet)
	return Result{Profit: p, Weight: w, Items: items, Nodes: a.nodes}
}

// Combine returns the better solution of x and y with their nodes added.
// Solutions are ordered by profit, then lower weight, then the
// lexicographically smaller item list, so Combine is associative and
// commutative.
func (a *App) Combine(x, y Result) Result {
	nodes := x.Nodes + y.Nodes
	if better(y, x) {
		x = y
	}
	x.Nodes = nodes
	return x
}

// better reports whether x's solution beats y's.
func better(x, y Result) bool {
	if x.Profit != y.Profit {
		return x.Profit > y.Profit
	}
	if x.Weight != y.Weight {
		return x.Weight < y.Weight
	}
	return slices.Compare(x.Items, y.Items) < 0
}
