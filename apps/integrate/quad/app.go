package quad

import (
	"fmt"

	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
	"github.com/treelb/treelb/lb"
)

// This file is the glue to package lb: App is an lb.App and an
// lb.Reducer[Result] of the lb API being introduced (Root, Unmarshal,
// Result, Combine; no bound, no early stop), *Task is an lb.Task.

var _ lb.Task = (*Task)(nil)

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
	return &Task{Stack: nodestack.Stack[interval]{Open: []interval{{p.a, p.b, p.fa, p.fb, 0}}}, app: a}
}

// Root returns the whole integration: the interval at level 0. Every rank
// builds the same root.
func (a *App) Root() lb.Task { return a.root() }

// Unmarshal decodes a task encoded by Task.AppendBinary on any rank: its
// intervals must lie inside the problem's, non-empty, at levels up to
// MaxLevel. Its work will count on this App.
func (a *App) Unmarshal(b []byte) (lb.Task, error) {
	s, err := nodestack.Decode(b, intervalMin, a.p.decodeInterval)
	if err != nil {
		return nil, fmt.Errorf("quad: %w", err)
	}
	return &Task{Stack: s, app: a}, nil
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

// Split gives away the shallowest open interval, the largest, as a new
// task; nil when fewer than two intervals are open (a lone interval is not
// split before it is evaluated).
func (t *Task) Split() lb.Task {
	if s, ok := t.SplitOff(); ok {
		return &Task{Stack: s, app: t.app}
	}
	return nil
}
