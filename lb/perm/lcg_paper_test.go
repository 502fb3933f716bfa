package perm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Paper tests of the linear congruential permutation of seed 000 §4 ("a
// linear congruence generator of the form x_{n+1} = a·x_n + c (mod m) …
// with full period length for appropriate choices of a and c"), with the
// appropriate choices given by the Hull–Dobell theorem for m = 2^k.

// fullPeriod reports, in O(2^k) steps, whether x ↦ a·x + c mod 2^k
// returns to 0 first after exactly 2^k steps.
func fullPeriod(k int, a, c uint64) bool {
	mask := uint64(1)<<k - 1
	x := uint64(0)
	for i := uint64(1); i <= mask+1; i++ {
		x = (a*x + c) & mask
		if x == 0 {
			return i == mask+1
		}
	}
	return false
}

// TestLCGHullDobell checks, for every k ≤ 7 and every pair (a, c) mod 2^k,
// that the period is the full 2^k exactly when the Hull–Dobell conditions
// hold (c odd, a ≡ 1 mod 4; a odd for k = 1), and that NewLCG accepts
// exactly those pairs.
func TestLCGHullDobell(t *testing.T) {
	for k := 1; k <= 7; k++ {
		m := uint64(1) << k
		for a := uint64(0); a < m; a++ {
			for c := uint64(0); c < m; c++ {
				full := fullPeriod(k, a, c)
				_, err := NewLCG(k, a, c, 0)
				if full != (err == nil) {
					t.Fatalf("k=%d a=%d c=%d: full period %v, NewLCG error %v", k, a, c, full, err)
				}
			}
		}
	}
}

// TestLCGEnumerates (seed 000 §4): for k ≤ 6 with every valid (a, c), for k
// ≤ 20 with drawn parameters, x_j + 1 enumerates {1, …, 2^k} exactly once,
// the iteration agreeing with the jump-ahead At.
func TestLCGEnumerates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	seen := make([]uint64, (1<<20)/64+1)
	for k := 0; k <= 20; k++ {
		m := uint64(1) << k
		if k <= 6 {
			for a := uint64(1); a < max(m, 2); a += 4 {
				for c := uint64(1); c < max(m, 2); c += 2 {
					g, err := NewLCG(k, a, c, rng.Uint64())
					if err != nil {
						t.Fatalf("k=%d a=%d c=%d: %v", k, a, c, err)
					}
					checkFull(t, "lcg", g, seen, rng)
				}
			}
			continue
		}
		for range 3 {
			a, c, x0 := DrawLCG(k, rng)
			if a%8 != 5 {
				t.Fatalf("k=%d: drawn multiplier %d is not 5 mod 8", k, a)
			}
			g, err := NewLCG(k, a, c, x0)
			if err != nil {
				t.Fatal(err)
			}
			checkFull(t, "lcg", g, seen, rng)
		}
	}
}

// TestLCGLargeK checks, for sampled k up to 63, that At(j) (jump ahead by
// square-and-multiply on the affine map) agrees with the iteration in
// windows without repeats, that jumps compose (x_(i+j) = f^j(x_i)), and the
// documented low-bit regularity: 2^b consecutive values cover every residue
// mod 2^b once.
func TestLCGLargeK(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const window = 1 << 12
	for _, k := range []int{21, 24, 32, 40, 52, 63} {
		a, c, x0 := DrawLCG(k, rng)
		g, err := NewLCG(k, a, c, x0)
		if err != nil {
			t.Fatal(err)
		}
		m := g.Len()
		for _, s := range []uint64{0, m - window, rng.Uint64N(m - window)} {
			it := g.Iter(s)
			vals := make([]uint64, 0, window)
			for j := s; j < s+window; j++ {
				v, ok := it.Next()
				if !ok || v < 1 || v > m {
					t.Fatalf("k=%d: π(%d) = %d, %v", k, j, v, ok)
				}
				if j%101 == 0 && g.At(j) != v {
					t.Fatalf("k=%d: At(%d) = %d, iteration gives %d", k, j, g.At(j), v)
				}
				vals = append(vals, v)
			}
			const b = 8
			low := make([]bool, 1<<b)
			for _, v := range vals[:1<<b] {
				low[(v-1)%(1<<b)] = true
			}
			if slices.Contains(low, false) {
				t.Fatalf("k=%d: 2^%d consecutive values miss a residue mod 2^%d", k, b, b)
			}
			slices.Sort(vals)
			if len(slices.Compact(vals)) != window {
				t.Fatalf("k=%d: repeat in the window from %d", k, s)
			}
		}
		if _, ok := g.Iter(m).Next(); ok {
			t.Fatalf("k=%d: element past the end", k)
		}
		for range 20 {
			i, j := rng.Uint64N(m), rng.Uint64N(m)
			h, _ := NewLCG(k, a, c, g.At(i)-1)
			if got, want := h.At(j), g.At((i+j)&(m-1)); got != want {
				t.Fatalf("k=%d: f^%d(x_%d) = %d, x_(i+j) = %d", k, j, i, got, want)
			}
		}
	}
}
