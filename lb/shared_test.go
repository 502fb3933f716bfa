package lb

import "testing"

// TestRankPerm: the shared rank permutation is a bijection of 0..n-1 with
// inv its inverse, for every n up to 300 and a few large ones, and it
// depends on the seed.
func TestRankPerm(t *testing.T) {
	sizes := []int{4096, 16383, 1 << 16}
	for n := 1; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		pi := newRankPerm(7, 1, n)
		seen := make([]bool, n)
		for i := range n {
			j := pi.at(i)
			if j < 0 || j >= n || seen[j] {
				t.Fatalf("n=%d: π(%d) = %d out of range or repeated", n, i, j)
			}
			seen[j] = true
			if k := pi.inv(j); k != i {
				t.Fatalf("n=%d: π⁻¹(π(%d)) = %d", n, i, k)
			}
		}
	}
	a, b := newRankPerm(1, 1, 1000), newRankPerm(2, 1, 1000)
	same := 0
	for i := range 1000 {
		if a.at(i) == b.at(i) {
			same++
		}
	}
	if same > 20 {
		t.Fatalf("seeds 1 and 2 agree on %d of 1000 ranks", same)
	}
}
