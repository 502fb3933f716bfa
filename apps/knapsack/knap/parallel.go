package knap

import (
	"fmt"

	"github.com/treelb/treelb/lb"
)

// SolveParallel finds an optimal solution of in with search s on every rank
// of w, balanced as cfg says, and returns it with the nodes expanded over
// all ranks and lb's outcome. It is collective: in the embedded and MPI
// worlds every rank calls it with the same instance; the simulator's one
// program calls it once for all ranks.
//
// Every rank starts from the same greedy incumbent and prunes with the best
// profit it knows; lb spreads each improvement to all ranks (lb.Bounded),
// and Task.Split gives away only subtrees whose bound still beats the
// incumbent. The optimal profit is the sequential search's (Solve) on every
// run; the items may differ among optimal sets. The node count depends on
// when improvements arrive and may be lower or higher than Solve's.
//
// The instance is checked and sorted once per call (NewApp, O(n log n)); the
// ranks the call runs get clones that share the sorted items (App.Clone,
// O(n) each).
func SolveParallel(w lb.World, in *Instance, s Search, cfg lb.Config) (Result, *lb.Outcome, error) {
	base, err := NewApp(in, s)
	if err != nil {
		return Result{}, nil, err
	}
	return base.solveParallel(w, cfg)
}

// solveParallel runs the search of a's problem on w, every rank on a clone
// of a with a's incumbent (Improve), so that tests can start all ranks from
// a known one.
func (a *App) solveParallel(w lb.World, cfg lb.Config) (Result, *lb.Outcome, error) {
	z, _ := a.Incumbent()
	res, out, err := lb.Run(w, cfg, func() lb.Reducer[Result] {
		c := a.Clone()
		c.Improve(z)
		return c
	})
	if err != nil {
		return Result{}, nil, fmt.Errorf("knapsack: %w", err)
	}
	if res.Items == nil {
		res.Items = []int{} // the empty knapsack, not a missing answer
	}
	return res, out, nil
}

// Memory estimates, in bytes per item, for the command's check against the
// available memory.
const (
	// BytesPerItem is what the instance and its prepared search problem
	// take: the input numbers (16 bytes), the sorted items, their input
	// indices and the prefix sums (44), and the scratch of the sort (24).
	BytesPerItem = 16 + 44 + 24
	// BytesPerItemPerApp is what each App adds: its best solution (1
	// byte), the core search's runs and path (12), and a task's stack in
	// the worst case, a frame of 32 bytes per level of an n-level path.
	BytesPerItemPerApp = 1 + 12 + 32
)
