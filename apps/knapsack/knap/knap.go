// Package knap is the sequential core of the 0-1 knapsack application
// (seed 002, §6.3): instances in the common text format and their
// generator, and two exact depth-first branch-and-bound searches written as
// resumable, splittable and serialisable tasks for the parallel load
// balancers of package lb.
//
// # Problem
//
// An instance has n items with profit p_i ≥ 0 and weight w_i ≥ 0 and a
// knapsack of capacity c ≥ 0; a solution is a set of items whose weights sum
// to at most c, and the search maximises the sum of their profits. All
// numbers are int64. Instance.Validate rejects instances on which a sum the
// solvers form, Σp_i (plus one, for the incumbent test) or Σw_i, would
// overflow; products in the bounds are compared exactly in 128 bits when
// they could overflow 64.
//
// # Searches
//
// Both searches first set aside the items that need no search (a weight of
// 0 and a positive profit: always packed; a profit of 0 or a weight above c:
// never packed) and sort the rest by profit/weight, highest first, ties by
// input index, so every rank builds the same order. Both start from the same
// greedy incumbent and prune a node when its bound cannot beat the
// incumbent by at least 1.
//
//   - HS is the Horowitz–Sahni search of seed 002's experiments: items in
//     ratio order, packed first and left out second, the Dantzig (LP) bound.
//   - Core, the default, is the expanding-core search of Pisinger's expknap:
//     it starts at the break solution (the greedy prefix that fits) and
//     branches outward from the break item, adding items below it when the
//     knapsack has room and removing items above it when it is overfull, so
//     that the search stays in the few items around the break item where the
//     optimal solution differs from the greedy one. Its tree and its bound
//     are expknap's; expknap also sorts lazily, only the intervals the
//     search reaches, while here the items are sorted once up front (well
//     under a millisecond for 2000 items) so that every rank numbers them
//     alike. The core still grows only as far as the bounds let the search
//     go, and Pisinger's reduction test skips the items that cannot be
//     flipped in a better solution.
//
// Nodes counts the nodes a search expands: the nodes whose bound beats the
// incumbent when they are reached (Core: not its root, the break solution,
// which the greedy start already covers). Pruned nodes cost a bound
// evaluation but are not counted, so with a fixed incumbent the count is
// the same however the search is split and scheduled. Core's count is
// close to expknap's iteration count on the same instance: the same tree,
// pruned a little more by the reduction tests.
//
// # Parallel search
//
// A Task is one subproblem of either search on an explicit depth-first
// stack; App is one rank's view of a problem (package lb's App, Reducer and
// Bounded interfaces, in app.go); SolveParallel runs a search on the ranks of
// an lb.World. See Task.Split for how the tree is cut.
//
// The package keeps no mutable package-level state. Functions are safe for
// concurrent use; a *Task or *App is not.
package knap

import (
	"errors"
	"fmt"
	"math"
)

// MaxItems is the largest number of items an instance may have (item
// positions and cursors are int32).
const MaxItems = 1 << 30

// Instance is a 0-1 knapsack instance: Profit[i] and Weight[i] describe item
// i, and Capacity bounds the weight of a solution. The zero value is the
// valid empty instance.
type Instance struct {
	Profit   []int64
	Weight   []int64
	Capacity int64
}

// Len returns the number of items.
func (in *Instance) Len() int { return len(in.Profit) }

// errSumProfit and errSumWeight are the overflow errors of Validate; the
// parser wraps them with a line number.
var (
	errSumProfit = errors.New("the sum of the profits exceeds 2^63 − 2")
	errSumWeight = errors.New("the sum of the weights overflows int64")
)

// Validate reports whether the instance can be solved: as many profits as
// weights, at most MaxItems items, no negative number, and no overflow of
// Σp_i + 1 or Σw_i. It takes O(n) time.
func (in *Instance) Validate() error {
	if len(in.Profit) != len(in.Weight) {
		return fmt.Errorf("knapsack: %d profits but %d weights", len(in.Profit), len(in.Weight))
	}
	if len(in.Profit) > MaxItems {
		return fmt.Errorf("knapsack: %d items, at most %d supported", len(in.Profit), MaxItems)
	}
	if in.Capacity < 0 {
		return fmt.Errorf("knapsack: negative capacity %d", in.Capacity)
	}
	var sp, sw int64
	for i, p := range in.Profit {
		w := in.Weight[i]
		if p < 0 || w < 0 {
			return fmt.Errorf("knapsack: item %d: negative profit or weight (%d %d)", i, p, w)
		}
		if sp > math.MaxInt64-1-p {
			return fmt.Errorf("knapsack: item %d: %w", i, errSumProfit)
		}
		if sw > math.MaxInt64-w {
			return fmt.Errorf("knapsack: item %d: %w", i, errSumWeight)
		}
		sp += p
		sw += w
	}
	return nil
}

// Check reports whether items, indices into the instance, name distinct
// items whose weights sum to at most the capacity, and returns their profit
// and weight sums. The instance must be valid. It takes O(n) time.
func (in *Instance) Check(items []int) (profit, weight int64, err error) {
	seen := make([]bool, in.Len())
	for _, i := range items {
		if i < 0 || i >= in.Len() {
			return 0, 0, fmt.Errorf("knapsack: item %d out of range 0..%d", i, in.Len()-1)
		}
		if seen[i] {
			return 0, 0, fmt.Errorf("knapsack: item %d chosen twice", i)
		}
		seen[i] = true
		profit += in.Profit[i]
		weight += in.Weight[i]
	}
	if weight > in.Capacity {
		return profit, weight, fmt.Errorf("knapsack: chosen weight %d exceeds the capacity %d", weight, in.Capacity)
	}
	return profit, weight, nil
}
