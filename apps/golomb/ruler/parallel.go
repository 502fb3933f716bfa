package ruler

import (
	"fmt"

	"github.com/treelb/treelb/lb"
)

// SolveParallel runs Solve's steps on every rank of w, each step one
// tree-shaped computation balanced as cfg says. It is collective. The
// statistics of the steps are summed.
func SolveParallel(w lb.World, n int, cfg lb.Config) ([]Step, *lb.Outcome, error) {
	total := new(lb.Outcome)
	steps, err := SolveWith(n, func(p *Problem) (Outcome, error) {
		o, out, err := lb.Run(w, cfg, p.fresh)
		if err != nil {
			return Outcome{}, fmt.Errorf("ruler: %d marks: %w", p.n, err)
		}
		total.Add(out)
		return o, nil
	})
	return steps, total, err
}

// CountParallel counts the n-mark rulers of length ≤ maxLen on every rank of
// w (an exhaustive search whose node count does not depend on the balancer).
// g must hold the shortest lengths for fewer marks, as in NewProblem. It is
// collective.
func CountParallel(w lb.World, n int, g []int, maxLen int, cfg lb.Config) (Outcome, *lb.Outcome, error) {
	p, err := NewProblem(n, g, Count, maxLen)
	if err != nil {
		return Outcome{}, nil, err
	}
	o, out, err := lb.Run(w, cfg, p.fresh)
	if err != nil {
		return Outcome{}, nil, fmt.Errorf("ruler: %w", err)
	}
	return o, out, nil
}

// fresh returns a new Problem like p with nothing searched yet, for one
// rank of a parallel run.
func (p *Problem) fresh() lb.Reducer[Outcome] {
	q := &Problem{n: p.n, mode: p.mode, g: p.g, lim0: p.lim0}
	q.setMaxLen(p.maxLen)
	return q
}
