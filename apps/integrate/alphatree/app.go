package alphatree

import (
	"fmt"

	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
	"github.com/treelb/treelb/lb"
)

// This file is the glue to package lb: App is an lb.Reducer[Result] (no
// bound, no early stop) and *Task an lb.Task and lb.Leveled.

var _ lb.Reducer[Result] = (*App)(nil)

// Task is a set of open nodes of the tree, expanded depth first on an
// explicit stack by its App's expansion step (see App.Root): an lb.Task
// whose level (lb.Leveled) is that of its shallowest open node, −1 when it
// is empty. Split gives away the shallowest node; a task holding one node
// does not split before it is expanded, unless it is fresh (the root, or
// split off a fresh task without work since: nodestack.Task), which
// expands it in place. A Task is not safe for concurrent use; its work
// counts in its App's result.
type Task = nodestack.Task[node]

// App is one rank's view of an α-tree: the shared Problem, the powers of α
// computed so far and the result of the work done on this rank. Every rank
// has its own App. It is not safe for concurrent use.
type App struct {
	p   *Problem
	pow []float64 // pow[l] = α^l, rounded after each multiplication by α
	res Result
}

// NewApp returns a rank's App for p, with nothing done yet.
func NewApp(p *Problem) *App {
	return &App{p: p, pow: append(make([]float64, 0, 512), 1)}
}

// Problem returns the tree the App works on.
func (a *App) Problem() *Problem { return a.p }

// power returns α^l.
func (a *App) power(l int) float64 {
	if l < len(a.pow) {
		return a.pow[l]
	}
	return a.grow(l)
}

// grow extends the table of powers to level l, or until they underflow to
// 0 (every higher power is 0 too).
func (a *App) grow(l int) float64 {
	for l >= len(a.pow) {
		last := a.pow[len(a.pow)-1]
		if last == 0 {
			return 0
		}
		a.pow = append(a.pow, last*a.p.alpha)
	}
	return a.pow[l]
}

func (a *App) root() *Task {
	return nodestack.NewRoot(node{a.p.rootHash(), 0}, a.expand, a.spawn)
}

// Root returns the whole tree: its root at level 0. Every rank builds the
// same root.
func (a *App) Root() lb.Task { return a.root() }

// Unmarshal decodes a task encoded by Task.AppendBinary on any rank: its
// nodes must be at levels up to MaxLevel. Its work will count on this App.
func (a *App) Unmarshal(b []byte) (lb.Task, error) {
	t, err := nodestack.DecodeTask(b, nodeMin, decodeNode, a.expand, a.spawn)
	if err != nil {
		return nil, fmt.Errorf("alphatree: %w", err)
	}
	return t, nil
}

// Result returns this rank's part: the nodes, leaves and deepest level it
// expanded and the sum of their hashes.
func (a *App) Result() Result { return a.res }

// Combine returns the combination of two parts: counts and digests added,
// the larger height. It is associative and commutative.
func (a *App) Combine(x, y Result) Result {
	x.merge(&y)
	return x
}

// SolveParallel expands the tree on every rank of w, balanced as cfg says,
// and returns the combined result, the same as Solve's, and the outcome.
// It is collective: every rank calls it with the same problem and cfg.
func (p *Problem) SolveParallel(w lb.World, cfg lb.Config) (Result, *lb.Outcome, error) {
	r, out, err := lb.Run(w, cfg, func() lb.Reducer[Result] { return NewApp(p) })
	if err != nil {
		return Result{}, nil, fmt.Errorf("alphatree: %w", err)
	}
	return r, out, nil
}
