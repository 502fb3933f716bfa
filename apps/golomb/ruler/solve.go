package ruler

import (
	"fmt"
	"math"
)

// Step is one search of Solve: the shortest ruler with Marks marks.
type Step struct {
	Marks int
	Ruler []int
	Nodes int64
}

// Solve finds a shortest ruler with n marks on one core, proving optimality.
// It first solves 2..n-1 marks, whose lengths bound the search for n; the
// result lists every step. Each step is a search from the root until the
// tree is exhausted, the sequential baseline of the parallel solver.
func Solve(n int) ([]Step, error) {
	return SolveWith(n, func(p *Problem) (Outcome, error) {
		t := p.Root()
		for !t.Empty() {
			t.Work(math.MaxInt64)
		}
		return DecodeResult(p.Result(), p.n), nil
	})
}

// SolveWith runs the steps of Solve with search doing each step's search,
// sequential or parallel. search gets a fresh Problem and returns the
// combined outcome.
func SolveWith(n int, search func(*Problem) (Outcome, error)) ([]Step, error) {
	if n < 1 || n > MaxMarks {
		return nil, fmt.Errorf("ruler: %d marks: need 1 to %d", n, MaxMarks)
	}
	g := make([]int, n+1)
	steps := []Step{{Marks: 1, Ruler: []int{0}}}
	for m := 2; m <= n; m++ {
		p, err := NewProblem(m, g, Shortest, MaxLength)
		if err != nil {
			return nil, err
		}
		o, err := search(p)
		if err != nil {
			return nil, err
		}
		if o.Ruler == nil || !Valid(o.Ruler) {
			return nil, fmt.Errorf("ruler: no valid %d-mark ruler up to length %d found: %v", m, MaxLength, o.Ruler)
		}
		g[m] = o.Ruler[m-1]
		steps = append(steps, Step{Marks: m, Ruler: o.Ruler, Nodes: o.Nodes})
	}
	return steps, nil
}
