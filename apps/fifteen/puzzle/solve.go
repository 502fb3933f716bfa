package puzzle

import (
	"fmt"
	"math"
	"time"
)

//go:generate go run gen_fast.go

// MaxThreshold is the largest threshold an iteration accepts. Every solvable
// position is solved in at most 80 moves, so Solve never comes near it.
const MaxThreshold = 255

// NoExceeded is the minimum exceeded f of a search that has pruned nothing.
// It is the identity of a min-reduction.
const NoExceeded = math.MaxInt

// IterStats describes one iteration of IDA*.
type IterStats struct {
	Threshold int   // the bound on f = g + h
	Nodes     int64 // nodes generated in the iteration; the root is not counted
	// MinExceeded is the smallest f above Threshold among the pruned nodes,
	// NoExceeded if none; after a failing iteration, the next threshold.
	MinExceeded int
	// Digest is the sum modulo 2^64 of the boards (packed) of the nodes the
	// iteration expanded (the generated nodes within the threshold, the
	// root excluded): with Nodes it certifies a failing iteration (package
	// cert), however the iteration was split.
	Digest  uint64
	Solved  bool          // whether the iteration found the goal
	Elapsed time.Duration // wall time of the iteration
}

// Result is the outcome of Solve.
type Result struct {
	Length int    // the optimal number of moves
	Moves  []Move // an optimal solution, the first in search order
	// Nodes is the total over all iterations plus 1 for the root, the
	// convention of Korf's table.
	Nodes      int64
	Iterations []IterStats // one per iteration, in order; the last is solved
}

// Solve finds an optimal solution of s by IDA* with the Manhattan distance,
// iterating with the thresholds h(s), then the minimum exceeded f of each
// failing iteration. Each iteration is a depth-first search that tries the
// blank's moves in the order Up, Left, Right, Down, never undoes the last
// move, and stops at the first solution. It returns an error for an invalid
// or unsolvable board. Solve allocates only a little per iteration; its
// running time is that of Korf's IDA*, exponential in the solution length.
func Solve(s State) (Result, error) {
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	if !Solvable(s) {
		return Result{}, fmt.Errorf("puzzle: %v: %w", s, ErrUnsolvable)
	}
	res := Result{Nodes: 1}
	for threshold := s.Manhattan(); ; {
		st, moves, err := Iterate(s, threshold)
		if err != nil {
			return res, err
		}
		res.Nodes += st.Nodes
		res.Iterations = append(res.Iterations, st)
		if st.Solved {
			res.Length = len(moves)
			res.Moves = moves
			return res, nil
		}
		threshold = st.MinExceeded
	}
}

// Iterate runs one iteration of IDA* from root with the given threshold,
// sequentially and to the end or the first solution (the same search as one
// iteration of Solve), and returns its statistics and, if it found the goal,
// the moves from root. It fails for an invalid board or a threshold outside
// 0..MaxThreshold. The search allocates nothing per node.
func Iterate(root State, threshold int) (IterStats, []Move, error) {
	if err := root.Validate(); err != nil {
		return IterStats{}, nil, err
	}
	if threshold < 0 || threshold > MaxThreshold {
		return IterStats{}, nil, fmt.Errorf("puzzle: threshold %d out of range 0..%d", threshold, MaxThreshold)
	}
	start := time.Now()
	st := IterStats{Threshold: threshold, MinExceeded: NoExceeded}
	b, blank, h := pack(root), root.Blank(), root.Manhattan()
	fs := fastSearch{left: math.MaxInt64}
	switch {
	case h > threshold:
		st.MinExceeded = h // the root itself is pruned
	case b == goalPacked:
		st.Solved = true
	default:
		l := &succ[blank*5+noMove]
		for i := 0; i < l.n && !st.Solved; i++ {
			nb, m := int(l.to[i]), l.m[i]
			fs.left--
			t := b >> (4 * nb) & 15
			slack := threshold - 1 - (h + 1)
			if closer[nb][m]>>t&1 != 0 {
				slack += 2
			}
			if slack < 0 {
				fs.pruned = true
				continue
			}
			fs.pruned = fs.pruned || i > 0
			if fs.searchBelow(nb, m, b^t<<(4*nb)^t<<(4*blank), slack) == fastFound {
				fs.path = append(fs.path, m)
				st.Solved = true
			}
		}
		if fs.pruned || !st.Solved {
			st.MinExceeded = nextThreshold(threshold, threshold-h)
		}
	}
	st.Nodes = math.MaxInt64 - fs.left
	st.Digest = fs.sum
	st.Elapsed = time.Since(start)
	if !st.Solved {
		return st, nil, nil
	}
	moves := make([]Move, len(fs.path))
	for i, m := range fs.path {
		moves[len(moves)-1-i] = m
	}
	return st, moves, nil
}

// nextThreshold returns the minimum exceeded f of the search of a subtree
// whose root has f = threshold - slack <= threshold and that does not reach
// the goal. The Manhattan distance is consistent and changes by exactly one
// per move, so along every edge f grows by 0 or 2: every node of the subtree
// has the parity of its root, a pruned child has f at most its parent's + 2,
// and the subtree, being finite, has leaves, whose children are all pruned.
// So the minimum is the first value above threshold with the root's parity.
func nextThreshold(threshold, slack int) int {
	return threshold + 2 - slack&1
}

// fastSearch is the state of the specialised recursive search of
// fast_gen.go. Its functions take the board packed by pack and the slack
// threshold - f >= 0 of the node they expand. They count the nodes they
// generate down from left and stop, before expanding a node, if its children
// would take left below 0; then the stack of the recursion goes to spill, so
// that Search can go on from there. They return a fastStatus.
type fastSearch struct {
	left int64 // budget left, in generated nodes
	// pruned is set when the search has certainly pruned a node: any
	// finished subtree prunes some, so it is set when a search returns
	// having generated a child before the one it stopped or found the goal
	// under; the caller knows it for a search that is done.
	pruned bool
	path   []Move  // on fastFound, the moves from the goal back up
	spill  []frame // on fastStopped, the frames from the deepest up; h holds the slack
	// sum adds the board, packed, of every node a function expands, when it
	// is entered (before the budget check, so a node spilled on a stop is
	// not added again when Search goes on below it): the digest of the
	// iteration (IterStats.Digest).
	//
	// The sum of the boards themselves, not of a hash of each: one add per
	// node. Hashing each board with cert.Mix cost 16 % of the node rate,
	// one multiply 10 %, the plain sum 3 % (docs/counts.md). A lost or
	// duplicated subtree still changes the sum unless its boards sum to 0
	// modulo 2^64; only a structured exchange of nodes could go unseen.
	sum uint64
}

// fastStatus is how a search of fast_gen.go ends.
type fastStatus uint8

const (
	fastDone    fastStatus = iota // the subtree is exhausted
	fastFound                     // found the goal: path holds the moves
	fastStopped                   // out of budget: spill holds the frames
)

// unwind is the way back from a search that found the goal or stopped, one
// level up per call: at the node with board b, slack slack and the
// constants in. in packs, from bit 0 up: the blank's position (4 bits), the
// move that brought it there (4), the move to the child that returned r
// (4), the moves after it (4), their number (4), and whether a move came
// before (1). These later moves were counted but will not be generated now.
//
//go:noinline
func (s *fastSearch) unwind(r fastStatus, b uint64, slack int, in uint32) fastStatus {
	s.left += int64(in >> 16 & 15)
	if in>>20&1 != 0 {
		s.pruned = true
	}
	if r == fastFound {
		s.path = append(s.path, Move(in>>8&15))
		return r
	}
	s.spill = append(s.spill, frame{b: b, blank: uint8(in & 15), prev: Move(in >> 4 & 15), h: uint8(slack), pending: uint8(in >> 12 & 15)})
	return r
}
