package perm

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Paper tests of the GF(2^k) permutation of seed 001 §3 (Sanders, RaTSLoB:
// "the sequence ((x^l)^1, …, (x^l)^(2^k−1)) enumerates the nonzero
// polynomials modulo p … If we insert the number 2^k at some random place in
// this sequence we get the desired pseudo-random permutation") and seed 000
// §4 (the same construction with the 0-polynomial inserted).

// primeFactors returns the distinct prime factors of n by trial division, in
// O(√n) steps.
func primeFactors(n uint64) []uint64 {
	var ps []uint64
	for d := uint64(2); d*d <= n; d++ {
		if n%d == 0 {
			ps = append(ps, d)
			for n%d == 0 {
				n /= d
			}
		}
	}
	if n > 1 {
		ps = append(ps, n)
	}
	return ps
}

// hasOrder reports whether a has multiplicative order exactly n in f: a^n =
// 1 and a^(n/q) ≠ 1 for every prime q dividing n (Lagrange: the order
// divides n, and a proper divisor would divide some n/q).
func hasOrder(f field, a, n uint64) bool {
	if f.Pow(a, n) != 1 {
		return false
	}
	for _, q := range primeFactors(n) {
		if f.Pow(a, n/q) == 1 {
			return false
		}
	}
	return true
}

// TestPrimitiveTable proves every tabulated polynomial primitive (seed 001
// §3 needs "a primitive polynomial modulo 2 of degree k"): x has order
// exactly 2^k − 1 modulo p. This suffices: the 2^k − 1 distinct powers of x
// are units, so every non-zero residue is a unit, the residue ring is the
// field GF(2^k) (p is irreducible) and x generates its multiplicative group.
func TestPrimitiveTable(t *testing.T) {
	for k := 1; k <= MaxLevels; k++ {
		p := PrimitivePoly(k)
		if p>>k != 1 || p&1 != 1 {
			t.Fatalf("k=%d: %#x is not monic of degree %d with constant term 1", k, p, k)
		}
		f := field{poly: p, top: 1 << k}
		if n := uint64(1)<<k - 1; !hasOrder(f, f.X(), n) {
			t.Errorf("k=%d: x does not have order 2^k−1 = %d modulo %#x: not primitive", k, n, p)
		}
	}
	// The test is not vacuous: x^4 + x^3 + x^2 + x + 1 is irreducible but
	// x has order 5 modulo it, and x^4 + x^2 + 1 = (x^2 + x + 1)^2 is
	// reducible.
	for _, p := range []uint64{0b11111, 0b10101} {
		if hasOrder(field{poly: p, top: 16}, 2, 15) {
			t.Errorf("%#b accepted as primitive", p)
		}
	}
	if PrimitivePoly(0) != 0 || PrimitivePoly(MaxLevels+1) != 0 {
		t.Error("PrimitivePoly outside [1, MaxLevels] is not 0")
	}
}

// slowMulMod is the schoolbook reference: the full carry-less product (of
// degree ≤ 2k − 2 < 64 for k ≤ 32), then reduction from the top bit down.
func slowMulMod(a, b, p uint64, k int) uint64 {
	var prod uint64
	for i := 0; i < k; i++ {
		if b>>i&1 != 0 {
			prod ^= a << i
		}
	}
	for d := 2*k - 2; d >= k; d-- {
		if prod>>d&1 != 0 {
			prod ^= p << (d - k)
		}
	}
	return prod
}

// TestFieldMul checks the O(k) shift-and-XOR multiplication against the
// schoolbook reference for every degree, and Pow against repeated Mul.
func TestFieldMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 1; k <= MaxLevels; k++ {
		f := field{poly: primitive[k], top: 1 << k}
		for range 200 {
			a, b := rng.Uint64N(f.top), rng.Uint64N(f.top)
			if got, want := f.Mul(a, b), slowMulMod(a, b, f.poly, k); got != want {
				t.Fatalf("k=%d: %#x·%#x = %#x, want %#x", k, a, b, got, want)
			}
		}
		a := rng.Uint64N(f.top)
		r := uint64(1)
		for e := uint64(0); e < 70; e++ {
			if got := f.Pow(a, e); got != r {
				t.Fatalf("k=%d: %#x^%d = %#x, want %#x", k, a, e, got, r)
			}
			r = f.Mul(r, a)
		}
	}
}

// checkFull walks p from 0 with Iter (and At at a few places) and fails
// unless it is a permutation of {1, …, Len()}; seen is scratch space.
func checkFull(t *testing.T, name string, p Perm, seen []uint64, rng *rand.Rand) {
	t.Helper()
	n := p.Len()
	clear(seen[:n/64+1])
	it := Walk(p, 0)
	probe := rng.Uint64N(n)
	for j := uint64(0); j < n; j++ {
		v, ok := it.Next()
		if !ok {
			t.Fatalf("%s: iterator ended at %d of %d", name, j, n)
		}
		if v < 1 || v > n {
			t.Fatalf("%s: π(%d) = %d outside [1, %d]", name, j, v, n)
		}
		if seen[v/64]>>(v%64)&1 != 0 {
			t.Fatalf("%s: value %d repeated at index %d", name, v, j)
		}
		seen[v/64] |= 1 << (v % 64)
		if (j == probe || j == 0 || j == n-1) && p.At(j) != v {
			t.Fatalf("%s: At(%d) = %d, iteration gives %d", name, j, p.At(j), v)
		}
	}
	if _, ok := it.Next(); ok {
		t.Fatalf("%s: iterator runs past %d", name, n)
	}
}

// TestGFEnumeratesSmallK (seed 001 §3, seed 000 §4): for every k ≤ 20 the
// sequence with 2^k inserted is a permutation of {1, …, 2^k}; for k ≤ 12
// with every l coprime to 2^k − 1, for larger k with sampled l. The value
// 2^k sits exactly at insertAt.
func TestGFEnumeratesSmallK(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := make([]uint64, (1<<20)/64+1)
	for k := 0; k <= 20; k++ {
		n := uint64(1)<<k - 1
		var ls []uint64
		if k <= 12 {
			for l := uint64(1); l <= max(n, 1); l++ {
				if n <= 1 || gcd(l, n) == 1 {
					ls = append(ls, l)
				}
			}
		} else {
			for range 2 {
				l, _, _ := DrawGF(k, rng)
				ls = append(ls, l)
			}
			ls = append(ls, 1)
		}
		for _, l := range ls {
			at := rng.Uint64N(n + 1)
			if l == 1 {
				at = n // the seed's plain order, 2^k last
			}
			g, err := NewGF(k, l, at)
			if err != nil {
				t.Fatalf("k=%d l=%d: %v", k, l, err)
			}
			checkFull(t, "gf", g, seen, rng)
			if g.At(at) != n+1 {
				t.Fatalf("k=%d l=%d: At(insertAt=%d) = %d, want 2^k", k, l, at, g.At(at))
			}
		}
	}
}

// TestGFLargeK (seed 001 §3) for sampled k up to 32, where a full sweep is
// too long: (i) the cycle length by group theory — g = x^l has order exactly
// 2^k − 1 because gcd(l, 2^k − 1) = 1 and x has that order, so g^1, …,
// g^(2^k−1) are distinct; (ii) in windows (the ends, around insertAt and at
// random places) At(j), the first element computed directly by
// square-and-multiply, equals the O(k) iteration, with no repeat and values
// in range; (iii) an l sharing a factor q with 2^k − 1 is rejected, and for
// it the sequence would indeed repeat after (2^k − 1)/q steps.
func TestGFLargeK(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const window = 1 << 14
	for _, k := range []int{21, 23, 24, 26, 28, 29, 30, 31, 32} {
		n := uint64(1)<<k - 1
		l, at, err := DrawGF(k, rng)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewGF(k, l, at)
		if err != nil {
			t.Fatal(err)
		}
		if !hasOrder(g.f, g.Generator(), n) {
			t.Fatalf("k=%d l=%d: x^l does not have order 2^k − 1", k, l)
		}
		starts := []uint64{0, n + 1 - window, at - min(at, window/2), rng.Uint64N(n + 1 - window), rng.Uint64N(n + 1 - window)}
		for _, s := range starts {
			it := g.Iter(s)
			vals := make([]uint64, 0, window)
			for j := s; j < s+window; j++ {
				v, ok := it.Next()
				if !ok || v < 1 || v > n+1 {
					t.Fatalf("k=%d: π(%d) = %d, %v", k, j, v, ok)
				}
				if j%997 == 0 || j == at || j == s+window-1 {
					if w := g.At(j); w != v {
						t.Fatalf("k=%d: At(%d) = %d, iteration gives %d", k, j, w, v)
					}
				}
				vals = append(vals, v)
			}
			slices.Sort(vals)
			if len(slices.Compact(vals)) != window {
				t.Fatalf("k=%d: repeat in the window from %d", k, s)
			}
		}
		if _, ok := g.Iter(n).Next(); !ok {
			t.Fatalf("k=%d: no last element", k)
		}
		if _, ok := g.Iter(n + 1).Next(); ok {
			t.Fatalf("k=%d: element past the end", k)
		}
		q := primeFactors(n)[0]
		if _, err := NewGF(k, q, 0); err == nil {
			t.Fatalf("k=%d: l = %d sharing a factor with 2^k−1 accepted", k, q)
		}
		f := g.f
		if f.Pow(f.Pow(f.X(), q), n/q) != 1 {
			t.Fatalf("k=%d: (x^%d)^((2^k−1)/%d) ≠ 1", k, q, q)
		}
	}
}

// TestGFInsertion checks the exact placement of 2^k: the powers of g run on
// across it, At(insertAt−1)·g = At(insertAt+1), and At(j) = g^(j+1) before,
// g^j after.
func TestGFInsertion(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for k := 2; k <= MaxLevels; k++ {
		n := uint64(1)<<k - 1
		l, _, _ := DrawGF(k, rng)
		at := 1 + rng.Uint64N(n-1)
		g, _ := NewGF(k, l, at)
		if got := g.f.Mul(g.At(at-1), g.Generator()); got != g.At(at+1) {
			t.Fatalf("k=%d: π(at−1)·g = %d, π(at+1) = %d", k, got, g.At(at+1))
		}
		if g.At(at-1) != g.f.Pow(g.Generator(), at) || g.At(at+1) != g.f.Pow(g.Generator(), at+1) {
			t.Fatalf("k=%d: exponents around insertAt are off", k)
		}
		g0, _ := NewGF(k, l, 0)
		if g0.At(0) != n+1 || g0.At(1) != g.Generator() || g0.At(n) != 1 {
			t.Fatalf("k=%d: insertAt=0 gives %d, %d, …, %d", k, g0.At(0), g0.At(1), g0.At(n))
		}
		gn, _ := NewGF(k, l, n)
		if gn.At(0) != g.Generator() || gn.At(n-1) != 1 || gn.At(n) != n+1 {
			t.Fatalf("k=%d: insertAt=2^k−1 gives %d, …, %d, %d", k, gn.At(0), gn.At(n-1), gn.At(n))
		}
	}
	if _, err := NewGF(4, 1, 16); err == nil {
		t.Error("insertAt = 2^k accepted")
	}
	if _, err := NewGF(33, 1, 0); err == nil {
		t.Error("k = 33 accepted")
	}
}
