package quad

import (
	"fmt"

	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
	"github.com/treelb/treelb/lb"
)

// This file is the glue to package lb: App is an lb.Reducer[Result] (no
// bound, no early stop) and *Task an lb.Task and lb.Leveled.

var _ lb.Reducer[Result] = (*App)(nil)

// Task is a set of open intervals of the tree, worked depth first on an
// explicit stack by its App's expansion step (see App.Root): an lb.Task
// whose level (lb.Leveled) is that of its shallowest open interval, −1
// when it is empty. Split gives away the shallowest interval, the largest;
// a task holding one interval does not split before it is evaluated,
// unless it is fresh (the root, or split off a fresh task without work
// since: nodestack.Task), which evaluates it in place. A Task is not safe
// for concurrent use; its work counts in its App's result.
type Task = nodestack.Task[interval]

// App is one rank's view of an integration: the shared Problem and the
// result of the work done on this rank. Every rank has its own App. It is
// not safe for concurrent use.
type App struct {
	p   *Problem
	res Result
}

// NewApp returns a rank's App for p, with nothing done yet.
func NewApp(p *Problem) *App { return &App{p: p} }

// Problem returns the integration the App works on.
func (a *App) Problem() *Problem { return a.p }

func (a *App) root() *Task {
	p := a.p
	return nodestack.NewRoot(interval{p.a, p.b, p.fa, p.fb, 0}, a.expand, a.spawn)
}

// Root returns the whole integration: the interval at level 0. Every rank
// builds the same root.
func (a *App) Root() lb.Task { return a.root() }

// Unmarshal decodes a task encoded by Task.AppendBinary on any rank: its
// intervals must lie inside the problem's, non-empty, at levels up to
// MaxLevel. Its work will count on this App.
func (a *App) Unmarshal(b []byte) (lb.Task, error) {
	t, err := nodestack.DecodeTask(b, intervalMin, a.p.decodeInterval, a.expand, a.spawn)
	if err != nil {
		return nil, fmt.Errorf("quad: %w", err)
	}
	a.res.Replayed += int64(len(t.Open)) // f at their ends, again
	return t, nil
}

// spawn is the Problem's spawn, counting the interval it evaluates in
// Replayed: a fresh task's split evaluates its lone interval in place, and
// the part that keeps it evaluates it again when it counts it.
func (a *App) spawn(iv interval) []interval {
	a.res.Replayed++
	return a.p.spawn(iv)
}

// Result returns this rank's part: the nodes, leaves and deepest level it
// evaluated and the exact sum of its leaves.
func (a *App) Result() Result { return a.res }

// Combine returns the combination of two parts: counts added, the larger
// height, the sums merged exactly. It is associative and commutative, and
// exactly so: the combined Value is the same for every reduction order.
func (a *App) Combine(x, y Result) Result {
	x.merge(&y)
	return x
}

// SolveParallel integrates on every rank of w, balanced as cfg says, and
// returns the combined result, bit-identical to Solve's, and the outcome.
// It is collective: every rank calls it with the same problem and cfg.
func (p *Problem) SolveParallel(w lb.World, cfg lb.Config) (Result, *lb.Outcome, error) {
	r, out, err := lb.Run(w, cfg, func() lb.Reducer[Result] { return NewApp(p) })
	if err != nil {
		return Result{}, nil, fmt.Errorf("quad: %w", err)
	}
	return r, out, nil
}
