package knap

import (
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
)

// dpOptimum solves in by the list dynamic programming of Nemhauser and
// Ullmann: the Pareto front of (weight, profit) pairs of the subsets of the
// first i items, extended one item at a time. It shares no code with the
// searches and handles large coefficients as long as the front stays small.
func dpOptimum(in *Instance) int64 {
	type state struct{ w, p int64 }
	front := []state{{0, 0}} // weights ascending, profits strictly ascending
	next := []state{}
	for i := range in.Profit {
		pi, wi := in.Profit[i], in.Weight[i]
		next = next[:0]
		a, b := 0, 0 // merge front with front+(wi, pi)
		for a < len(front) || b < len(front) {
			var s state
			if b >= len(front) || a < len(front) && front[a].w <= front[b].w+wi {
				s = front[a]
				a++
			} else {
				s = state{front[b].w + wi, front[b].p + pi}
				b++
				if s.w > in.Capacity {
					b = len(front)
					continue
				}
			}
			if len(next) > 0 && next[len(next)-1].p >= s.p {
				continue // dominated
			}
			for len(next) > 0 && next[len(next)-1].w == s.w {
				next = next[:len(next)-1]
			}
			next = append(next, s)
		}
		front, next = next, front
	}
	return front[len(front)-1].p
}

// bruteOptimum tries every subset of a tiny instance.
func bruteOptimum(in *Instance) int64 {
	var best int64
	for m := 0; m < 1<<in.Len(); m++ {
		var p, w int64
		for i := range in.Len() {
			if m>>i&1 == 1 {
				p += in.Profit[i]
				w += in.Weight[i]
			}
		}
		if w <= in.Capacity && p > best {
			best = p
		}
	}
	return best
}

// edgeInstances are hand-made cases: empty, nothing fits, zero weights
// and profits, ties, everything fits.
func edgeInstances() []*Instance {
	return []*Instance{
		{},
		{Capacity: 7},
		{Profit: []int64{5}, Weight: []int64{3}, Capacity: 2},       // no item fits
		{Profit: []int64{5, 6}, Weight: []int64{3, 4}, Capacity: 0}, // capacity 0
		{Profit: []int64{5, 0, 7}, Weight: []int64{0, 0, 0}, Capacity: 0},
		{Profit: []int64{0, 0}, Weight: []int64{1, 2}, Capacity: 3},                                                   // worthless items
		{Profit: []int64{3, 3, 3, 3}, Weight: []int64{2, 2, 2, 2}, Capacity: 5},                                       // ties
		{Profit: []int64{1, 2, 3}, Weight: []int64{1, 2, 3}, Capacity: 100},                                           // everything fits
		{Profit: []int64{10, 7, 7}, Weight: []int64{10, 5, 5}, Capacity: 10},                                          // greedy is not optimal
		{Profit: []int64{1 << 61, 1 << 61, 1 << 60}, Weight: []int64{1<<62 - 1, 1 << 61, 1 << 61}, Capacity: 1 << 62}, // wide arithmetic
		{Profit: []int64{1<<62 - 1, 1 << 61, 3}, Weight: []int64{1<<62 - 5, 1<<61 - 7, 2}, Capacity: 1<<62 - 3},
	}
}

// checkResult checks r against the optimum want.
func checkResult(t *testing.T, in *Instance, r Result, want int64, what string) {
	t.Helper()
	p, w, err := in.Check(r.Items)
	switch {
	case err != nil:
		t.Fatalf("%s: %v (items %v)", what, err, r.Items)
	case p != r.Profit || w != r.Weight:
		t.Fatalf("%s: items %v have profit %d weight %d, result says %d %d", what, r.Items, p, w, r.Profit, r.Weight)
	case r.Profit != want:
		t.Fatalf("%s: profit %d, optimum %d (instance %+v)", what, r.Profit, want, in)
	case !slices.IsSorted(r.Items):
		t.Fatalf("%s: items %v not ascending", what, r.Items)
	}
}

func TestDPMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, c := range Classes() {
		for range 50 {
			in := randomInstance(t, rng, c, 12)
			if got, want := dpOptimum(in), bruteOptimum(in); got != want {
				t.Fatalf("%v: DP %d, brute force %d on %+v", c, got, want, in)
			}
		}
	}
	for _, in := range edgeInstances()[:9] {
		if got, want := dpOptimum(in), bruteOptimum(in); got != want {
			t.Fatalf("DP %d, brute force %d on %+v", got, want, in)
		}
	}
}

// TestSolveMatchesDP: both searches find the DP optimum on many random
// small instances of every class and on the edge cases.
func TestSolveMatchesDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := edgeInstances()
	wantEdge := []int64{0, 0, 0, 0, 12, 0, 6, 6, 14, 1<<61 + 1<<60, 1<<62 + 2}
	for _, c := range Classes() {
		for range 150 {
			cases = append(cases, randomInstance(t, rng, c, 40))
		}
	}
	for i, in := range cases {
		want := int64(-1)
		if i < len(wantEdge) {
			want = wantEdge[i]
		} else {
			want = dpOptimum(in)
		}
		for _, s := range []Search{Core, HS} {
			r, err := Solve(in, s)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, in, r, want, fmt.Sprintf("case %d %v", i, s))
		}
	}
}

// TestCommittedInstance: the instance the command's tests and
// scripts/mpi-test.sh solve (apps/knapsack/testdata, written by knapsack
// gen --class sanders -m 100 --seed 5) is the generator's, and its DP
// optimum is the profit the script expects.
func TestCommittedInstance(t *testing.T) {
	f, err := os.Open("../testdata/sanders-m100-seed5.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in, err := Parse(f, 0)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(GenConfig{Class: Sanders, M: 100, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, want) {
		t.Fatal("the committed instance is not gen's")
	}
	if opt := dpOptimum(in); opt != 33434889 {
		t.Fatalf("DP optimum %d; scripts/mpi-test.sh expects 33434889", opt)
	}
}
