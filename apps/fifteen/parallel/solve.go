package parallel

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"

	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/cert"
	"github.com/treelb/treelb/lb"
)

// IterStats describes one iteration of a run, parallel or sequential. The
// zero value describes nothing.
type IterStats struct {
	Threshold int   `json:"threshold"` // the bound on f = g + h
	Nodes     int64 `json:"nodes"`     // nodes generated, the root excluded
	// Seconds is the iteration's wall time: the search of the slowest rank
	// (lb.Outcome.Seconds), or the sequential search.
	Seconds float64 `json:"seconds"`
	Failed  bool    `json:"failed"` // the iteration did not find the goal
	// Certificate certifies a failing iteration, an exhaustive search
	// (Certify): the same on every run; empty for the last iteration,
	// which stops at the first solution found.
	Certificate string `json:"certificate,omitempty"`
	// Replayed counts the frames ranks rebuilt because tasks were split or
	// decoded: overhead, never in Nodes.
	Replayed int64 `json:"replayed_nodes"`
	// Digest and MinExceeded are the iteration's (Outcome), which its
	// certificate covers.
	Digest      uint64 `json:"-"`
	MinExceeded int    `json:"-"`
}

// Certify returns the certificate of a failing iteration of IDA* from
// start (package cert): the board and the threshold, the nodes, the digest
// of the expanded nodes and the next threshold.
func Certify(start puzzle.State, st IterStats) string { return certify(start, st).String() }

func certify(start puzzle.State, st IterStats) cert.Certificate {
	return cert.New(fmt.Sprintf("fifteen %v threshold %d", start, st.Threshold), st.Nodes, st.Digest, uint64(st.MinExceeded))
}

// Certificate returns the certificate of the failing iterations of a run
// from start: the certificates of the iterations, in order, mixed. Every
// run of the board has the same, whatever the ranks and the balancer, even
// though the last iteration's nodes vary.
func (r Result) Certificate(start puzzle.State) string {
	var more []uint64
	var nodes int64
	for _, st := range r.Iterations {
		if st.Failed {
			more = append(more, uint64(st.Threshold), uint64(certify(start, st)))
			nodes += st.Nodes
		}
	}
	return cert.New(fmt.Sprintf("fifteen %v failing iterations", start), nodes, 0, more...).String()
}

// FailingNodes returns the nodes of the failing iterations, the part of
// Nodes that is the same on every run.
func (r Result) FailingNodes() int64 {
	var n int64
	for _, st := range r.Iterations {
		if st.Failed {
			n += st.Nodes
		}
	}
	return n
}

// Result is the outcome of a run of IDA*, the same on every rank. The zero
// value is an empty result.
type Result struct {
	Length int           // the optimal number of moves
	Moves  []puzzle.Move // an optimal solution
	// Nodes is the total over the iterations plus 1 for the root, the
	// convention of puzzle.Solve and Korf's table.
	Nodes      int64
	Iterations []IterStats // one per iteration; only the last one succeeded
}

// FromSequential converts the result of puzzle.Solve. It allocates the
// iteration list; O(iterations).
func FromSequential(r puzzle.Result) Result {
	out := Result{Length: r.Length, Moves: r.Moves, Nodes: r.Nodes, Iterations: make([]IterStats, len(r.Iterations))}
	for i, st := range r.Iterations {
		out.Iterations[i] = IterStats{Threshold: st.Threshold, Nodes: st.Nodes, Seconds: st.Elapsed.Seconds(), Failed: !st.Solved,
			Digest: st.Digest, MinExceeded: st.MinExceeded}
	}
	return out
}

// State is the state of a suspended Solve, lb.Suspended.State: the
// instance's number among the command's (SolveNumbered), its board, the
// threshold of the suspended iteration and the result of the ones before.
// It is the only state the command records.
type State struct {
	Instance  int
	Start     puzzle.State
	Threshold int
	Result    Result
}

// stateData is a State as gob encodes it (State's own MarshalBinary would
// recurse).
type stateData State

// MarshalBinary encodes the state (gob).
func (s State) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(stateData(s)); err != nil {
		return nil, fmt.Errorf("parallel: encoding the state of a suspended run: %w", err)
	}
	return b.Bytes(), nil
}

// DecodeState decodes a State that MarshalBinary encoded.
func DecodeState(b []byte) (State, error) {
	var s State
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode((*stateData)(&s)); err != nil {
		return State{}, fmt.Errorf("%w: parallel: %w", lb.ErrBadState, err)
	}
	return s, nil
}

// RunIteration runs the IDA* iteration from s with the given threshold on
// every rank of w, balanced as cfg says, and returns the combined outcome
// and the balancer's statistics, the same on every rank. It is collective:
// every rank calls it with the same arguments. A rank that finds the goal
// stops every rank.
func RunIteration(w lb.World, s puzzle.State, threshold int, cfg lb.Config) (Outcome, *lb.Outcome, error) {
	return RunIterationNear(w, s, threshold, cfg, DefaultNear())
}

// RunIterationNear is RunIteration with the tasks' splits giving work away
// at the near levels (Iteration.SetNear).
func RunIterationNear(w lb.World, s puzzle.State, threshold int, cfg lb.Config, near Near) (Outcome, *lb.Outcome, error) {
	if _, err := NewIteration(s, threshold); err != nil {
		return Outcome{}, nil, err
	}
	o, out, err := lb.Run(w, cfg, func() lb.Reducer[Outcome] {
		it, _ := NewIteration(s, threshold) // checked above
		it.SetNear(near.Floor, near.Level)
		return it
	})
	if err != nil {
		return Outcome{}, nil, fmt.Errorf("parallel: threshold %d: %w", threshold, err)
	}
	return o, out, nil
}

// Solve finds an optimal solution of s by IDA* with the Manhattan distance
// on every rank of w, each iteration balanced as cfg says. The first threshold is h(s), every later one the
// smallest f that exceeded the previous one over all ranks; the last
// iteration stops on every rank as soon as one rank finds the goal. It
// returns the same Result on every rank and the balancer's statistics
// summed over the iterations (Seconds too). It is collective: every rank
// calls it with the same arguments. It fails for an invalid or unsolvable
// board, checked before any search.
//
// An iteration suspended for a checkpoint (cfg.CheckpointDue) ends Solve
// with the *lb.Suspended error, whose State holds the board, the threshold
// and the iterations done; with that error as cfg.Resume, Solve continues
// the suspended iteration and the ones after it, on any number of ranks
// and in any world. The suspended iteration's seconds are those of its
// last part.
func Solve(w lb.World, s puzzle.State, cfg lb.Config) (Result, *lb.Outcome, error) {
	return SolveNumbered(w, s, cfg, 0, DefaultNear())
}

// SolveNumbered is Solve for the instance numbered instance among a
// command's, which a suspension records in its State, with the tasks'
// splits giving work away at the near levels.
func SolveNumbered(w lb.World, s puzzle.State, cfg lb.Config, instance int, near Near) (Result, *lb.Outcome, error) {
	if err := s.Validate(); err != nil {
		return Result{}, nil, fmt.Errorf("parallel: %w", err)
	}
	if !puzzle.Solvable(s) {
		return Result{}, nil, fmt.Errorf("parallel: %v: %w", s, puzzle.ErrUnsolvable)
	}
	res := Result{Nodes: 1}
	total := new(lb.Outcome)
	threshold := s.Manhattan()
	resume := cfg.Resume
	if resume != nil {
		st, err := DecodeState(resume.State)
		if err != nil {
			return res, total, err
		}
		if st.Start != s || st.Threshold < threshold || st.Threshold > puzzle.MaxThreshold {
			return res, total, fmt.Errorf("%w: parallel: a suspended run of %v at threshold %d, not of %v", lb.ErrBadState, st.Start, st.Threshold, s)
		}
		res, threshold = st.Result, st.Threshold
	}
	for {
		c := cfg
		c.Resume, resume = resume, nil // only the suspended iteration resumes
		o, out, err := RunIterationNear(w, s, threshold, c, near)
		total.Add(out)
		var sus *lb.Suspended
		if errors.As(err, &sus) {
			if sus.State, err = (State{Instance: instance, Start: s, Threshold: threshold, Result: res}).MarshalBinary(); err != nil {
				return res, total, err
			}
			return res, total, sus
		}
		if err != nil {
			return res, total, err
		}
		res.Nodes += o.Nodes
		res.Iterations = append(res.Iterations, IterStats{Threshold: threshold, Nodes: o.Nodes, Seconds: out.Seconds, Failed: !o.Found,
			Replayed: o.Replayed, Digest: o.Digest, MinExceeded: o.MinExceeded})
		if o.Found {
			if len(o.Moves) != threshold {
				return res, total, fmt.Errorf("parallel: threshold %d: a solution of %d moves", threshold, len(o.Moves))
			}
			res.Length, res.Moves = len(o.Moves), o.Moves
			return res, total, nil
		}
		if o.MinExceeded == puzzle.NoExceeded || o.MinExceeded > puzzle.MaxThreshold {
			return res, total, fmt.Errorf("parallel: threshold %d failed with no next threshold below %d", threshold, puzzle.MaxThreshold)
		}
		threshold = o.MinExceeded
	}
}
