package ruler

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/treelb/treelb/lb"
)

// Step is one search of Solve: the shortest ruler with Marks marks.
type Step struct {
	Marks int   `json:"marks"`
	Ruler []int `json:"ruler"`
	Nodes int64 `json:"nodes"` // nodes of the search proper, the statistics' count
	// Replayed counts the frames the balancing rebuilt (Outcome.Replayed),
	// never in Nodes.
	Replayed int64 `json:"replayed_nodes"`
	// DiveNodes are the nodes of the greedy dive before the search, which
	// every rank makes alone (Dive).
	DiveNodes int64 `json:"dive_nodes"`
}

// Solve finds a shortest ruler with n marks on one core, proving optimality.
// It first solves 2..n-1 marks, whose lengths bound the search for n; the
// result lists every step. Each step is a greedy dive for an upper bound
// (Dive) and then a search from the root until the tree is exhausted, the
// sequential baseline of the parallel solver.
func Solve(n int) ([]Step, error) {
	return SolveWith(n, func(p *Problem) (Outcome, error) {
		t := p.Root()
		for !t.Empty() {
			t.Work(math.MaxInt64)
		}
		return p.Result(), nil
	})
}

// Dive returns the length of the first m-mark ruler that depth-first search
// with the smallest distances first finds (a greedy ruler), an upper bound
// for the search proper, and the nodes it took. Every rank computes the same
// bound alone, so that branch-and-bound starts tight whatever order a
// balancer explores the tree in.
func Dive(m int, g []int) (int, int64, error) {
	return new(diver).dive(m, g)
}

// diver is the storage of a dive (3.6 KB, most of it the Search), reused
// from dive to dive: each dive resets it.
type diver struct {
	p Problem
	s Search
}

// divers holds divers between dives. Every rank of an embedded world dives
// once a step, in one process: taking a diver from here and putting it back
// at once, 65536 ranks share a few, hot in the cache, instead of holding one
// each for the whole run (240 MB; issue 23). A diver holds nothing from one
// dive that the next can see.
var divers = sync.Pool{New: func() any { return new(diver) }}

func (d *diver) dive(m int, g []int) (int, int64, error) {
	p, s := &d.p, &d.s
	if err := p.reset(m, g, Shortest, MaxLength); err != nil {
		return 0, 0, err
	}
	s.p = p
	s.rootFrame()
	for p.best == nil && !s.Empty() {
		s.Work(1)
	}
	if p.best == nil {
		return 0, 0, fmt.Errorf("ruler: no %d-mark ruler up to length %d", m, MaxLength)
	}
	return p.best[m-1], p.nodes, nil
}

// SolveWith runs the steps of Solve with search doing each step's search,
// sequential or parallel. search gets a fresh Problem and returns the
// combined outcome.
func SolveWith(n int, search func(*Problem) (Outcome, error)) ([]Step, error) {
	return SolveFrom(n, nil, func(p *Problem, _ []Step) (Outcome, error) { return search(p) })
}

// SolveFrom is SolveWith continued after the steps done (from 1 mark on;
// none to start afresh), as a resumed run continues a suspended one; search
// gets the steps done before the problem's too. It checks that the steps
// done are a prefix of a solution: marks 1, 2, … and valid rulers.
func SolveFrom(n int, done []Step, search func(*Problem, []Step) (Outcome, error)) ([]Step, error) {
	if n < 1 || n > MaxMarks {
		return nil, fmt.Errorf("ruler: %d marks: need 1 to %d", n, MaxMarks)
	}
	g := make([]int, n+1)
	steps := []Step{{Marks: 1, Ruler: []int{0}}}
	if len(done) > 0 {
		if len(done) > n {
			return nil, fmt.Errorf("%w: ruler: %d steps done of %d marks", lb.ErrBadState, len(done), n)
		}
		for i, s := range done {
			if s.Marks != i+1 || len(s.Ruler) != s.Marks || !Valid(s.Ruler) {
				return nil, fmt.Errorf("%w: ruler: step %d done is not a ruler of %d marks: %v", lb.ErrBadState, i+1, i+1, s.Ruler)
			}
			g[s.Marks] = s.Ruler[s.Marks-1]
		}
		steps = slices.Clone(done)
	}
	for m := len(steps) + 1; m <= n; m++ {
		d := divers.Get().(*diver)
		bound, diveNodes, err := d.dive(m, g)
		divers.Put(d)
		if err != nil {
			return nil, err
		}
		p, err := NewProblem(m, g, Shortest, bound)
		if err != nil {
			return nil, err
		}
		o, err := search(p, steps)
		if err != nil {
			return nil, err
		}
		if o.Ruler == nil || !Valid(o.Ruler) {
			return nil, fmt.Errorf("ruler: no valid %d-mark ruler up to length %d found: %v", m, MaxLength, o.Ruler)
		}
		g[m] = o.Ruler[m-1]
		steps = append(steps, Step{Marks: m, Ruler: o.Ruler, Nodes: o.Nodes, Replayed: o.Replayed, DiveNodes: diveNodes})
	}
	return steps, nil
}

// CountRulers counts the n-mark rulers of length ≤ maxLen on one core, the
// sequential baseline of CountParallel. g must hold the shortest lengths for
// fewer marks, as in NewProblem.
func CountRulers(n int, g []int, maxLen int) (Outcome, error) {
	p, err := NewProblem(n, g, Count, maxLen)
	if err != nil {
		return Outcome{}, err
	}
	t := p.Root()
	for !t.Empty() {
		t.Work(math.MaxInt64)
	}
	return p.Result(), nil
}
