package ruler

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"

	"github.com/treelb/treelb/lb"
)

// SolveParallel runs Solve's steps on every rank of w, each step one
// tree-shaped computation balanced as cfg says. It is collective. The
// statistics of the steps are summed.
//
// A step suspended for a checkpoint (cfg.CheckpointDue) ends the solver with
// the *lb.Suspended error, whose State holds the steps done before; with
// that error as cfg.Resume, SolveParallel continues the suspended step and
// the ones after it, on any number of ranks and in any world.
func SolveParallel(w lb.World, n int, cfg lb.Config) ([]Step, *lb.Outcome, error) {
	total := new(lb.Outcome)
	resume := cfg.Resume
	var done []Step
	if resume != nil {
		var err error
		if done, err = decodeDone(resume.State); err != nil {
			return nil, nil, err
		}
	}
	steps, err := SolveFrom(n, done, func(p *Problem, before []Step) (Outcome, error) {
		c := cfg
		c.Resume, resume = resume, nil // only the suspended step resumes
		o, out, err := lb.Run(w, c, p.fresh)
		total.Add(out)
		var s *lb.Suspended
		if errors.As(err, &s) {
			var b bytes.Buffer
			if err := gob.NewEncoder(&b).Encode(before); err != nil {
				return Outcome{}, fmt.Errorf("ruler: %w", err)
			}
			s.State = b.Bytes()
			return Outcome{}, s
		}
		if err != nil {
			return Outcome{}, fmt.Errorf("ruler: %d marks: %w", p.n, err)
		}
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

// decodeDone decodes the State of a suspended SolveParallel: the steps done
// before the suspended one.
func decodeDone(state []byte) ([]Step, error) {
	var done []Step
	if err := gob.NewDecoder(bytes.NewReader(state)).Decode(&done); err != nil {
		return nil, fmt.Errorf("%w: ruler: %w", lb.ErrBadState, err)
	}
	return done, nil
}
