package mpi

import "testing"

// TestRankRanges: the missing ranks of a start-up failure are listed as
// ranges, at most a limit of them, then how many more.
func TestRankRanges(t *testing.T) {
	in := func(set ...int) func(int) bool {
		return func(r int) bool {
			for _, x := range set {
				if x == r {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		size  int
		set   []int
		limit int
		want  string
		n     int
	}{
		{8, []int{3, 5, 6, 7}, 20, "3, 5-7", 4},
		{8, nil, 20, "", 0},
		{4, []int{0, 1, 2, 3}, 20, "0-3", 4},
		{10, []int{1, 3, 5, 7, 9}, 2, "1, 3 and 3 more ranges", 5},
	} {
		got, n := rankRanges(tc.size, in(tc.set...), tc.limit)
		if got != tc.want || n != tc.n {
			t.Errorf("%v of %d: %q, %d; want %q, %d", tc.set, tc.size, got, n, tc.want, tc.n)
		}
	}
}
