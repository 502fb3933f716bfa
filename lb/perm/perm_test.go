package perm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// atOnly hides a permutation's Iter, to exercise Walk's fallback.
type atOnly struct{ Perm }

// TestNew builds every kind for k = 0…12 and checks the permutation
// property, that identically seeded sources give identical permutations
// (the ranks' only shared state in seed 000 Fig. 1), that Values and the
// At-only fallback of Walk agree with At, and the errors.
func TestNew(t *testing.T) {
	seen := make([]uint64, (1<<12)/64+1)
	check := rand.New(rand.NewPCG(0, 0))
	for _, kind := range append(Kinds(), "") {
		for k := 0; k <= 12; k++ {
			p, err := New(kind, k, rand.New(rand.NewPCG(uint64(k), 99)))
			if err != nil {
				t.Fatalf("%q k=%d: %v", kind, k, err)
			}
			if p.Len() != 1<<k {
				t.Fatalf("%q k=%d: Len = %d", kind, k, p.Len())
			}
			checkFull(t, kind, p, seen, check)
			checkFull(t, kind, atOnly{p}, seen, check)
			q, _ := New(kind, k, rand.New(rand.NewPCG(uint64(k), 99)))
			lo, hi := p.Len()/3, p.Len()/3+5
			n := 0
			for j, v := range Values(p, lo, hi) {
				if v != p.At(j) || v != q.At(j) {
					t.Fatalf("%q k=%d: Values gives π(%d) = %d, At %d, same seed %d", kind, k, j, v, p.At(j), q.At(j))
				}
				n++
			}
			if want := min(hi, p.Len()) - lo; uint64(n) != want {
				t.Fatalf("%q k=%d: Values yields %d pairs, want %d", kind, k, n, want)
			}
		}
	}
	if _, err := New("shuffle", 4, check); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := New("gf", 4, nil); err == nil {
		t.Error("nil source accepted")
	}
	for _, k := range []int{-1, MaxLevels + 1} {
		if _, err := New("lcg", k, check); err == nil {
			t.Errorf("k = %d accepted", k)
		}
	}
	for _, p := range []Perm{mustGF(t, 3), mustLCG(t, 3)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: At(Len()) did not panic", p)
				}
			}()
			p.At(p.Len())
		}()
	}
}

func mustGF(t *testing.T, k int) *GF {
	g, err := NewGF(k, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func mustLCG(t *testing.T, k int) *LCG {
	g, err := NewLCG(k, 1, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestBlock checks that the blocks of seed 000 Fig. 1 tile [0, m) in order,
// with sizes differing by at most one, also for ranks not a power of two and
// m = 2^63.
func TestBlock(t *testing.T) {
	for _, m := range []uint64{1, 5, 1 << 10, 1<<32 + 7, 1 << 63} {
		for _, ranks := range []int{1, 2, 3, 7, 16, 64, 1000} {
			next := uint64(0)
			var smin, smax uint64 = math.MaxUint64, 0
			for r := range ranks {
				lo, hi := Block(m, r, ranks)
				if lo != next || hi < lo {
					t.Fatalf("m=%d ranks=%d: block %d is [%d, %d), want start %d", m, ranks, r, lo, hi, next)
				}
				smin, smax = min(smin, hi-lo), max(smax, hi-lo)
				next = hi
			}
			if next != m || smax-smin > 1 {
				t.Fatalf("m=%d ranks=%d: end %d, sizes in [%d, %d]", m, ranks, next, smin, smax)
			}
		}
	}
}
