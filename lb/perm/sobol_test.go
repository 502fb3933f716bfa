package perm

import (
	"math/rand/v2"
	"testing"
)

// Tests of the Sobol-style permutation (seed 001 §3: "Sobol sequences …
// also enumerate the numbers between 1 and 2^k − 1 using primitive
// polynomials modulo 2 … the next sequence element can be generated using
// only a constant number of word operations").

// TestSobolDirectionNumbers checks the recurrence against the classic
// second Sobol dimension: polynomial x + 1, m_1 = 1 gives m_i = (x+1)^(i−1)
// read as bits: 1, 3, 5, 15, 17, 51, 85, 255, 257.
func TestSobolDirectionNumbers(t *testing.T) {
	const k = 9
	q, err := NewSobol(k, 1, []uint64{1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1, 3, 5, 15, 17, 51, 85, 255, 257}
	if q.fold(q.fold(12345)) != 12345 {
		t.Fatal("the fold is not an involution")
	}
	for i, m := range want {
		if got := q.v[i] >> (k - 1 - i); got != m {
			t.Fatalf("m_%d = %d, want %d", i+1, got, m)
		}
	}
	for _, bad := range [][]uint64{{2}, {1, 1}, {}} {
		if _, err := NewSobol(k, 1, bad, 0); err == nil {
			t.Errorf("init %v accepted for degree 1", bad)
		}
	}
	if _, err := NewSobol(k, 2, []uint64{1, 4}, 0); err == nil {
		t.Error("m_2 = 4 ≥ 2^2 accepted")
	}
}

// TestSobolEnumerates: for every k ≤ 20 and every degree s ≤ min(k, 6)
// (plus drawn parameters), the permutation enumerates {1, …, 2^k} once; and
// in aligned blocks of 2^b consecutive indices, for every b, the values of
// π(j) − 1 have pairwise different low b bits and pairwise different high b
// bits: a PE's block is spread evenly over the subtrees of every depth
// whichever end the path is read from.
func TestSobolEnumerates(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	seen := make([]uint64, (1<<20)/64+1)
	for k := 0; k <= 20; k++ {
		var qs []*Sobol
		for s := 1; s <= max(1, min(k, 6)); s++ {
			init := make([]uint64, s)
			for i := range init {
				init[i] = (rng.Uint64()&(uint64(1)<<i-1))<<1 | 1
			}
			q, err := NewSobol(k, s, init, rng.Uint64())
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, q)
		}
		q, err := DrawSobol(k, rng)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
		for _, q := range qs {
			if k <= 14 || q == qs[len(qs)-1] {
				checkFull(t, "sobol", q, seen, rng)
			}
			for b := 1; b <= min(k, 12); b++ {
				blocks := q.Len() >> b
				blk := rng.Uint64N(blocks)
				low, high := make(map[uint64]bool), make(map[uint64]bool)
				for j := blk << b; j < (blk+1)<<b; j++ {
					v := q.At(j) - 1
					low[v&(1<<b-1)] = true
					high[v>>(k-b)] = true
				}
				if len(low) != 1<<b || len(high) != 1<<b {
					t.Fatalf("k=%d s=%d b=%d: block %d has %d low and %d high patterns of %d",
						k, q.Degree(), b, blk, len(low), len(high), 1<<b)
				}
			}
		}
	}
}

// TestSobolLargeK checks At against the O(1) iteration in windows for k up
// to 63.
func TestSobolLargeK(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, k := range []int{24, 32, 47, 63} {
		q, err := DrawSobol(k, rng)
		if err != nil {
			t.Fatal(err)
		}
		m := q.Len()
		for _, s := range []uint64{0, m - 4096, rng.Uint64N(m - 4096)} {
			it := q.Iter(s)
			seen := make(map[uint64]bool)
			for j := s; j < s+4096; j++ {
				v, ok := it.Next()
				if !ok || v != q.At(j) || seen[v] {
					t.Fatalf("k=%d: π(%d) = %d (%v), At = %d, repeat %v", k, j, v, ok, q.At(j), seen[v])
				}
				seen[v] = true
			}
		}
		if _, ok := q.Iter(m).Next(); ok {
			t.Fatalf("k=%d: element past the end", k)
		}
	}
}

// TestSobolFixedPartition documents the limit of the Sobol randomization:
// for aligned blocks of 2^b indices, the set of values of each block is a
// coset of one subspace that does not depend on the draw, so two draws
// partition {1, …, 2^k} into the same blocks (possibly in another order).
func TestSobolFixedPartition(t *testing.T) {
	const k, b = 10, 7
	rng := rand.New(rand.NewPCG(25, 26))
	partition := func(q *Sobol) map[uint64]uint64 { // value → smallest value of its block
		blockOf := make(map[uint64]uint64)
		for blk := uint64(0); blk < 1<<(k-b); blk++ {
			least := uint64(1 << k)
			for j := blk << b; j < (blk+1)<<b; j++ {
				least = min(least, q.At(j))
			}
			for j := blk << b; j < (blk+1)<<b; j++ {
				blockOf[q.At(j)] = least
			}
		}
		return blockOf
	}
	q1, _ := DrawSobol(k, rng)
	q2, _ := DrawSobol(k, rng)
	p1, p2 := partition(q1), partition(q2)
	for v, least := range p1 {
		// v and least share a block under q1; so must they under q2.
		if p2[v] != p2[least] {
			t.Fatalf("values %d and %d share a block in one draw but not in another", v, least)
		}
	}
}
