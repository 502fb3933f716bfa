package hashtable

import (
	"math"
	"strconv"
	"testing"
)

func TestLayoutMaps(t *testing.T) {
	for _, a := range []Alloc{Block, Modular, Balanced} {
		for _, p := range []int{1, 2, 3, 7, 16} {
			for _, m := range []int{1, 2, p, p + 1, 2*p - 1, 5 * p, 5*p + 3, 97} {
				l, err := NewLayout(p, m, a)
				if err != nil {
					t.Fatal(err)
				}
				sum, lo, hi := 0, m, 0
				for r := range p {
					s := l.Size(r)
					sum += s
					lo, hi = min(lo, s), max(hi, s)
				}
				if sum != m {
					t.Fatalf("%v p=%d m=%d: sizes sum to %d", a, p, m, sum)
				}
				if a != Block && hi-lo > 1 {
					t.Errorf("%v p=%d m=%d: subtables of %d to %d buckets", a, p, m, lo, hi)
				}
				for b := range m {
					r, j := l.Place(b)
					if r < 0 || r >= p || j < 0 || j >= l.Size(r) || l.Global(r, j) != b {
						t.Fatalf("%v p=%d m=%d: bucket %d placed at (%d,%d)", a, p, m, b, r, j)
					}
				}
				rng := NewRand(uint64(p*1000 + m))
				for range 1000 {
					h := rng.Uint64()
					r, j := l.Locate(h)
					r2, j2 := l.Place(l.Bucket(h))
					if r != r2 || j != j2 || l.Owner(h) != r {
						t.Fatalf("%v p=%d m=%d: hash %x at (%d,%d), bucket says (%d,%d), owner %d", a, p, m, h, r, j, r2, j2, l.Owner(h))
					}
				}
			}
		}
	}
}

// TestBlockFootnote: footnote 1 of seed 004, m = p+1 with q = ⌈m/p⌉ leaves
// ranks empty; the balanced mapping does not.
func TestBlockFootnote(t *testing.T) {
	const p = 8
	blk, _ := NewLayout(p, p+1, Block)
	bal, _ := NewLayout(p, p+1, Balanced)
	if blk.Size(0) != 2 || blk.Size(p-1) != 0 {
		t.Errorf("block sizes %d…%d, want 2…0", blk.Size(0), blk.Size(p-1))
	}
	for r := range p {
		if s := bal.Size(r); s < 1 || s > 2 {
			t.Errorf("balanced rank %d has %d buckets", r, s)
		}
	}
}

func TestLayoutBadInput(t *testing.T) {
	bad := []struct{ p, m int }{{0, 4}, {4, 0}, {-1, 4}}
	if strconv.IntSize == 64 { // two 32-bit ints multiply to less than MaxBuckets
		bad = append(bad, struct{ p, m int }{math.MaxInt/2 + 1, 2}, struct{ p, m int }{math.MaxInt, math.MaxInt})
	}
	for _, c := range bad {
		if _, err := NewLayout(c.p, c.m, Block); err == nil {
			t.Errorf("NewLayout(%d, %d) succeeded", c.p, c.m)
		}
	}
	if _, err := NewLayout(2, 2, Alloc(7)); err == nil {
		t.Error("unknown allocation accepted")
	}
	if _, err := ParseAlloc("cyclic"); err == nil {
		t.Error(`ParseAlloc("cyclic") succeeded`)
	}
	for _, s := range []string{"block", "Modular", "BALANCED"} {
		if a, err := ParseAlloc(s); err != nil || !equalFold(a.String(), s) {
			t.Errorf("ParseAlloc(%q) = %v, %v", s, a, err)
		}
	}
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}
