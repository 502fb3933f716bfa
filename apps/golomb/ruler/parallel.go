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
// the *lb.Suspended error, whose State (a State) holds the steps done
// before; with that error as cfg.Resume, SolveParallel continues the
// suspended step and the ones after it, on any number of ranks and in any
// world.
func SolveParallel(w lb.World, n int, cfg lb.Config) ([]Step, *lb.Outcome, error) {
	total := new(lb.Outcome)
	resume := cfg.Resume
	var done []Step
	if resume != nil {
		st, err := DecodeState(resume.State)
		if err != nil {
			return nil, nil, err
		}
		if st.Counting {
			return nil, nil, fmt.Errorf("%w: ruler: a suspended count, not a search for the shortest rulers", lb.ErrBadState)
		}
		done = st.Steps
	}
	steps, err := SolveFrom(n, done, func(p *Problem, before []Step) (Outcome, error) {
		c := cfg
		c.Resume, resume = resume, nil // only the suspended step resumes
		o, out, err := lb.Run(w, c, p.fresh)
		total.Add(out)
		var s *lb.Suspended
		if errors.As(err, &s) {
			if s.State, err = (State{Steps: before}).MarshalBinary(); err != nil {
				return Outcome{}, err
			}
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
	q := &Problem{n: p.n, mode: p.mode, g: p.g, lim0: p.lim0, near: p.near}
	q.setMaxLen(p.maxLen)
	return q
}

// State is the state of a suspended golomb search, lb.Suspended.State: the
// steps done, and whether the search suspended is the count after them
// (Counting) rather than the step after them (SolveParallel). It is the
// only state the command records.
type State struct {
	Counting bool
	Steps    []Step
}

// stateData is a State as gob encodes it (State's own MarshalBinary would
// recurse).
type stateData State

// MarshalBinary encodes the state (gob).
func (s State) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(stateData(s)); err != nil {
		return nil, fmt.Errorf("ruler: encoding the state of a suspended search: %w", err)
	}
	return b.Bytes(), nil
}

// DecodeState decodes a State that MarshalBinary encoded.
func DecodeState(b []byte) (State, error) {
	var s State
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode((*stateData)(&s)); err != nil {
		return State{}, fmt.Errorf("%w: ruler: %w", lb.ErrBadState, err)
	}
	return s, nil
}
