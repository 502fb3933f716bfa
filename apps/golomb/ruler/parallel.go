package ruler

import (
	"fmt"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

// SolveParallel runs Solve's steps on every rank of c, each step one
// tree-shaped computation balanced by the balancer called name. It is
// collective. The statistics of the steps are summed per rank.
func SolveParallel(c *mpi.Comm, n int, name string, opt lb.Options, cfg lb.Config) ([]Step, *lb.Outcome, error) {
	var total *lb.Outcome
	steps, err := SolveWith(n, func(p *Problem) (Outcome, error) {
		out, err := lb.Run(c, p, name, opt, cfg)
		if err != nil {
			return Outcome{}, fmt.Errorf("ruler: %d marks: %w", p.n, err)
		}
		if total == nil {
			total = out
		} else {
			total.Seconds += out.Seconds
			for r := range total.Ranks {
				total.Ranks[r].Add(&out.Ranks[r])
			}
			total.Total.Add(&out.Total)
		}
		return DecodeResult(out.Result, p.n), nil
	})
	return steps, total, err
}

// CountParallel counts the n-mark rulers of length ≤ maxLen on every rank of
// c (an exhaustive search whose node count does not depend on the balancer).
// g must hold the shortest lengths for fewer marks, as in NewProblem.
func CountParallel(c *mpi.Comm, n int, g []int, maxLen int, name string, opt lb.Options, cfg lb.Config) (Outcome, *lb.Outcome, error) {
	p, err := NewProblem(n, g, Count, maxLen)
	if err != nil {
		return Outcome{}, nil, err
	}
	out, err := lb.Run(c, p, name, opt, cfg)
	if err != nil {
		return Outcome{}, nil, fmt.Errorf("ruler: %w", err)
	}
	return DecodeResult(out.Result, n), out, nil
}
