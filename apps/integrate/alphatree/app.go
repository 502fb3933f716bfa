package alphatree

import (
	"fmt"

	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
	"github.com/treelb/treelb/lb"
)

// This file is the glue to package lb: App is an lb.App and an
// lb.Reducer[Result] of the lb API being introduced (Root, Unmarshal,
// Result, Combine; no bound, no early stop), *Task is an lb.Task.

var _ lb.Task = (*Task)(nil)

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
	return &Task{Stack: nodestack.Stack[node]{Open: []node{{a.p.rootHash(), 0}}}, app: a}
}

// Root returns the whole tree: its root at level 0. Every rank builds the
// same root.
func (a *App) Root() lb.Task { return a.root() }

// Unmarshal decodes a task encoded by Task.AppendBinary on any rank: its
// nodes must be at levels up to MaxLevel. Its work will count on this App.
func (a *App) Unmarshal(b []byte) (lb.Task, error) {
	s, err := nodestack.Decode(b, nodeMin, decodeNode)
	if err != nil {
		return nil, fmt.Errorf("alphatree: %w", err)
	}
	return &Task{Stack: s, app: a}, nil
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

// Split gives away the shallowest open node as a new task; nil when fewer
// than two nodes are open (a lone node is not split before it is
// expanded).
func (t *Task) Split() lb.Task {
	if s, ok := t.SplitOff(); ok {
		return &Task{Stack: s, app: t.app}
	}
	return nil
}
