package puzzle

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

// checkSolution fails unless moves take s to the goal in want moves.
func checkSolution(t testing.TB, s State, moves []Move, want int) {
	t.Helper()
	if len(moves) != want {
		t.Errorf("%v: solution of %d moves, want %d", s, len(moves), want)
	}
	end, err := ApplyMoves(s, moves)
	if err != nil {
		t.Errorf("%v: %v", s, err)
	} else if end != Goal() {
		t.Errorf("%v: moves %s lead to %v, not the goal", s, FormatMoves(moves), end)
	}
}

// TestSolveKorfEasiest checks the optimal lengths and the exact node counts
// of the 10 Korf instances with the fewest nodes.
func TestSolveKorfEasiest(t *testing.T) {
	for _, in := range easiest(t, 10) {
		t.Run(fmt.Sprint("id", in.ID), func(t *testing.T) {
			res, err := Solve(in.State)
			if err != nil {
				t.Fatal(err)
			}
			if res.Length != in.Optimal {
				t.Errorf("length %d, want %d", res.Length, in.Optimal)
			}
			if res.Nodes != in.Nodes {
				t.Errorf("nodes %d, want %d", res.Nodes, in.Nodes)
			}
			checkSolution(t, in.State, res.Moves, in.Optimal)
			sum := int64(1)
			h := in.State.Manhattan()
			for i, it := range res.Iterations {
				sum += it.Nodes
				if it.Threshold != h+2*i {
					t.Errorf("iteration %d: threshold %d, want %d", i, it.Threshold, h+2*i)
				}
				if last := i == len(res.Iterations)-1; it.Solved != last {
					t.Errorf("iteration %d: solved %v", i, it.Solved)
				} else if !last && it.MinExceeded != it.Threshold+2 {
					t.Errorf("iteration %d: next threshold %d", i, it.MinExceeded)
				}
			}
			if sum != res.Nodes {
				t.Errorf("iterations sum to %d nodes, result says %d", sum, res.Nodes)
			}
		})
	}
}

func TestSolveSmall(t *testing.T) {
	res, err := Solve(Goal())
	if err != nil || res.Length != 0 || res.Nodes != 1 || len(res.Moves) != 0 || len(res.Iterations) != 1 {
		t.Fatalf("Solve(goal) = %+v, %v; want length 0, 1 node, 1 iteration", res, err)
	}
	bad := Goal()
	bad[1], bad[2] = bad[2], bad[1]
	if _, err := Solve(bad); !errors.Is(err, ErrUnsolvable) {
		t.Errorf("Solve of an odd permutation: %v", err)
	}
	bad[1] = 2
	if _, err := Solve(bad); err == nil {
		t.Error("Solve of an invalid board: no error")
	}
	if _, _, err := Iterate(Goal(), -1); err == nil {
		t.Error("Iterate with threshold -1: no error")
	}
	// One move from the goal: the root, then its children.
	s, _ := Goal().Apply(Right)
	res, err = Solve(s)
	if err != nil || res.Length != 1 || FormatMoves(res.Moves) != "L" {
		t.Fatalf("Solve(%v) = %+v, %v", s, res, err)
	}
	// The blank at 1 has moves L, R, D; L solves it at once.
	if res.Nodes != 2 {
		t.Errorf("Solve(%v): %d nodes, want 2", s, res.Nodes)
	}
	// Short random walks: the length is at most the walk's, and the moves
	// work.
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 300; i++ {
		n := r.IntN(30)
		s := randomWalk(r, n)
		res, err := Solve(s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Length > n || res.Length < s.Manhattan() {
			t.Fatalf("Solve(%v): length %d after a walk of %d, h %d", s, res.Length, n, s.Manhattan())
		}
		checkSolution(t, s, res.Moves, res.Length)
	}
}

// TestConcurrentSolve solves instances in parallel goroutines: the package
// has no shared mutable state (run with -race).
func TestConcurrentSolve(t *testing.T) {
	ins := easiest(t, 4)
	var wg sync.WaitGroup
	for _, in := range ins {
		wg.Go(func() {
			res, err := Solve(in.State)
			if err != nil || res.Nodes != in.Nodes {
				t.Errorf("id %d: %d nodes, %v", in.ID, res.Nodes, err)
			}
		})
	}
	wg.Wait()
}

func TestIterateAllocatesNothing(t *testing.T) {
	in := easiest(t, 1)[0]
	threshold := in.State.Manhattan() + 2
	allocs := testing.AllocsPerRun(3, func() {
		if st, _, _ := Iterate(in.State, threshold); st.Solved {
			t.Fatal("solved")
		}
	})
	if allocs != 0 {
		t.Errorf("a failing iteration allocates %v times", allocs)
	}
}
