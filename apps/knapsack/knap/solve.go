package knap

import "math"

// Solve finds an optimal solution of in with search s on one core, in time
// exponential in n in the worst case: the sequential baseline of the
// parallel search, the same tasks worked from the root to the end. Result.Items lists the chosen items (0-based input
// indices, ascending); Result.Nodes the nodes expanded.
func Solve(in *Instance, s Search) (Result, error) {
	a, err := NewApp(in, s)
	if err != nil {
		return Result{}, err
	}
	t := a.root()
	for !t.Empty() {
		t.Work(math.MaxInt64)
	}
	return a.Result(), nil
}
