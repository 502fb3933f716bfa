package tree

import (
	"fmt"

	"github.com/treelb/treelb/lb"
)

// This file holds everything that faces package lb.

var (
	_ lb.Halver          = (*Search)(nil)
	_ lb.Reducer[Counts] = (*App)(nil)
)

// Split gives away about half of the work (see split), or returns nil.
func (s *Search) Split() lb.Task {
	if o := s.split(); o != nil {
		return o
	}
	return nil
}

// Halve splits the search in place as Split would, keeping the part Split
// gives away when give is true; it reports whether Split would give a
// part (when not, the search holds the same nodes: a fresh one may have
// generated a lone only child in place, as Split does, and owes it).
func (s *Search) Halve(give bool) bool {
	if !s.divisible() {
		return false
	}
	s.halve(give)
	return true
}

// Reroot makes the search the whole tree's again, as App.Root returns it,
// reusing its storage.
func (s *Search) Reroot() { s.reroot() }

// App is one rank's view of a UTS search: the tree and the statistics of
// the nodes this rank generated. It is an lb application with result type
// Counts: every rank's counts, combined, are the tree's. It is not safe for
// concurrent use.
type App struct {
	t      *Tree
	c      Counts
	kernel Kernel
}

// NewApp returns a rank's application for tree t (which ranks may share);
// its searches hash with BestKernel.
func NewApp(t *Tree) *App { return &App{t: t, kernel: BestKernel()} }

// SetKernel makes the app's searches hash with k, which must be supported.
func (a *App) SetKernel(k Kernel) error {
	if err := k.Check(); err != nil {
		return err
	}
	a.kernel = k
	return nil
}

// Root returns the whole tree as a task.
func (a *App) Root() lb.Task {
	s := a.t.NewSearch(&a.c)
	s.kernel = a.kernel
	return s
}

// Unmarshal decodes a task encoded by Search.AppendBinary on any rank.
func (a *App) Unmarshal(b []byte) (lb.Task, error) {
	s, err := a.t.Decode(b, &a.c)
	if err != nil {
		return nil, fmt.Errorf("uts: %v: %w", a.t, err)
	}
	s.kernel = a.kernel
	return s, nil
}

// Result returns the statistics of the nodes generated on this rank.
func (a *App) Result() Counts { return a.c }

// Combine adds the statistics of two ranks.
func (a *App) Combine(x, y Counts) Counts { return x.Add(y) }
