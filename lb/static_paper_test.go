package lb_test

// Paper tests of the abstract model of seed 000 (Sanders, "On the
// Competitive Analysis of Randomized Static Load Balancing", §2, §4): m
// subproblems of sizes s_i ≥ 0 with Σ s_i = 1 and max s_i ≤ s_max (1/s_max an
// integer, s_max ≤ 1/n) are placed on n PEs; L_max is the largest PE load.
// Lemma 1: the adversary maximising E L_max gives size s_max to exactly
// 1/s_max subproblems and 0 to the rest. Theorem 2: against it, random
// placement has P[L_max > (1+ε)/n] ≤ n^−β when s_max ≤ 1/(c·n·ln n), c =
// 2(β+1)/ε², by the per-PE Chernoff bound e^(−ε²/(2n·s_max)) and a union
// bound. §4 replaces random placement by blocks of a pseudo-random
// permutation and assumes the bound still applies.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb/perm"
)

// maxAtMost returns exactly (up to rounding) the probability that b balls
// thrown independently and uniformly into n bins leave at most c in every
// bin, by the recursion h_j(b) = Σ_i Bin(b, 1/j)(i)·h_(j−1)(b−i) over the
// count i in the first of j bins, in O(n·b·c) steps.
func maxAtMost(b, n, c int) float64 {
	lf := make([]float64, b+1) // ln i!
	for i := 2; i <= b; i++ {
		lf[i] = lf[i-1] + math.Log(float64(i))
	}
	h := make([]float64, b+1) // h_1
	for x := 0; x <= min(b, c); x++ {
		h[x] = 1
	}
	for j := 2; j <= n; j++ {
		next := make([]float64, b+1)
		lp, lq := math.Log(1/float64(j)), math.Log(1-1/float64(j))
		for x := 0; x <= b; x++ {
			sum := 0.0
			for i := 0; i <= min(c, x); i++ {
				sum += math.Exp(lf[x]-lf[i]-lf[x-i]+float64(i)*lp+float64(x-i)*lq) * h[x-i]
			}
			next[x] = sum
		}
		h = next
	}
	return h[b]
}

// maxLoad returns L_max when the given sizes are placed independently and
// uniformly on n PEs; load is scratch space.
func maxLoad(sizes []float64, n int, r *rand.Rand, load []float64) float64 {
	clear(load)
	for _, s := range sizes {
		load[r.IntN(n)] += s
	}
	mx := 0.0
	for _, l := range load {
		mx = math.Max(mx, l)
	}
	return mx
}

// lemma1Sizes is the adversary of Lemma 1: 1/s_max pieces of size s_max
// (the pieces of size 0 cannot change any load and are left out).
func lemma1Sizes(b int) []float64 {
	s := make([]float64, b)
	for i := range s {
		s[i] = 1 / float64(b)
	}
	return s
}

// TestStaticTheorem2 (seed 000 Lemma 1, Theorem 2): for a few (n, ε, β),
// with 1/s_max = ⌈c·n·ln n⌉ pieces of size s_max, c = 2(β+1)/ε²: the exact
// probability P[L_max ≤ (1+ε)/n] is at least the theorem's 1 − n^−β (and at
// least the Chernoff–union bound 1 − n·e^(−ε²/(2n·s_max)) it comes from);
// a Monte Carlo estimate agrees with the exact value within five standard
// errors and is itself at least the bound minus five standard errors. Two
// extra cases with s_max above the theorem's threshold check the
// Chernoff–union form where it is far from 1.
func TestStaticTheorem2(t *testing.T) {
	const trials = 20000
	r := rand.New(rand.NewPCG(201, 1))
	type setup struct {
		n         int
		eps, beta float64
		b         int // 1/s_max; 0: from Theorem 2's threshold
	}
	for _, c := range []setup{
		{2, 0.5, 2, 0}, {4, 0.5, 1, 0}, {8, 0.5, 0.5, 0}, {16, 1, 1, 0},
		{4, 0.5, 0, 100}, {16, 0.5, 0, 500},
	} {
		b := c.b
		if b == 0 {
			cc := 2 * (c.beta + 1) / (c.eps * c.eps)
			b = int(math.Ceil(cc * float64(c.n) * math.Log(float64(c.n))))
		}
		smax := 1 / float64(b)
		chernoff := 1 - float64(c.n)*math.Exp(-c.eps*c.eps/(2*float64(c.n)*smax))
		bound := chernoff
		if c.b == 0 {
			bound = 1 - math.Pow(float64(c.n), -c.beta)
			if chernoff < bound-1e-12 {
				t.Fatalf("n=%d: Chernoff–union %g below 1 − n^−β = %g at the threshold", c.n, chernoff, bound)
			}
		}
		// L_max ≤ (1+ε)/n ⇔ every PE gets at most (1+ε)·b/n pieces.
		most := int(math.Floor((1+c.eps)*float64(b)/float64(c.n) + 1e-9))
		exact := maxAtMost(b, c.n, most)
		var ok mcStat
		load := make([]float64, c.n)
		sizes := lemma1Sizes(b)
		for range trials {
			if maxLoad(sizes, c.n, r, load) <= (1+c.eps)/float64(c.n)+1e-12 {
				ok.add(1)
			} else {
				ok.add(0)
			}
		}
		t.Logf("n=%d ε=%v 1/s_max=%d: bound %.4f, exact %.4f, Monte Carlo %.4f ± %.4f", c.n, c.eps, b, bound, exact, ok.mean(), ok.se())
		if exact < bound {
			t.Errorf("n=%d ε=%v 1/s_max=%d: exact P[L_max ≤ (1+ε)/n] = %.4f below the bound %.4f", c.n, c.eps, b, exact, bound)
		}
		se := math.Max(ok.se(), math.Sqrt(exact*(1-exact)/trials))
		if math.Abs(ok.mean()-exact) > zMax*se+1e-12 {
			t.Errorf("n=%d ε=%v 1/s_max=%d: Monte Carlo %.4f ± %.4f, exact %.4f", c.n, c.eps, b, ok.mean(), se, exact)
		}
		if ok.mean() < bound-zMax*se {
			t.Errorf("n=%d ε=%v 1/s_max=%d: Monte Carlo %.4f ± %.4f below the bound %.4f", c.n, c.eps, b, ok.mean(), se, bound)
		}
	}
}

// TestStaticLemma1 (seed 000 Lemma 1 and the remark after Theorem 2): among
// adversaries with the same s_max, the one of Lemma 1 maximises E L_max, and
// also P[L_max > t]. It is compared with three others: 2/s_max pieces of
// s_max/2, half the mass in pieces of s_max and half in pieces of s_max/2,
// and sizes spread evenly over (0, s_max]. The differences are estimated
// with independent samples and must not be negative beyond five standard
// errors; the Lemma 1 adversary is in fact strictly worse here.
func TestStaticLemma1(t *testing.T) {
	const n, b, trials = 4, 24, 20000
	const eps = 0.25
	smax := 1.0 / b
	spread := make([]float64, 0, 2*b)
	for i := 1; i <= 2*b-1; i++ { // s_max·i/(2b−1)·…, normalised below
		spread = append(spread, float64(i))
	}
	total := 0.0
	for _, s := range spread {
		total += s
	}
	for i := range spread {
		spread[i] /= total
	}
	if spread[len(spread)-1] > smax {
		t.Fatalf("spread adversary exceeds s_max: %g > %g", spread[len(spread)-1], smax)
	}
	halves := make([]float64, 2*b)
	for i := range halves {
		halves[i] = smax / 2
	}
	mixed := make([]float64, 0, b)
	for range b / 2 {
		mixed = append(mixed, smax)
	}
	for range b {
		mixed = append(mixed, smax/2)
	}
	r := rand.New(rand.NewPCG(202, 1))
	load := make([]float64, n)
	measure := func(sizes []float64) (e, over mcStat) {
		for range trials {
			l := maxLoad(sizes, n, r, load)
			e.add(l)
			if l > (1+eps)/n+1e-12 {
				over.add(1)
			} else {
				over.add(0)
			}
		}
		return e, over
	}
	e0, p0 := measure(lemma1Sizes(b))
	for _, alt := range []struct {
		name  string
		sizes []float64
	}{{"halves", halves}, {"mixed", mixed}, {"spread", spread}} {
		e, p := measure(alt.sizes)
		de, se := e0.mean()-e.mean(), math.Hypot(e0.se(), e.se())
		dp, sp := p0.mean()-p.mean(), math.Hypot(p0.se(), p.se())
		t.Logf("%s: E L_max %.4f vs Lemma 1 %.4f; P[L_max > (1+ε)/n] %.4f vs %.4f", alt.name, e.mean(), e0.mean(), p.mean(), p0.mean())
		if de < -zMax*se || dp < -zMax*sp {
			t.Errorf("%s beats the Lemma 1 adversary: ΔE = %.4g ± %.2g, ΔP = %.4g ± %.2g", alt.name, de, se, dp, sp)
		}
	}
}

// TestStaticPermutationPlacement (seed 000 §4, seed 001 §3): PE i takes the
// leaves π(j) of its block of a pseudo-random permutation instead of
// independent random places; the seed assumes the bound of Theorem 2 still
// applies. With 2^12 leaves, n = 8 PEs and 256 leaves of size s_max = 1/256
// chosen by an adversary before π is drawn — a subtree whether paths are
// read from the low bit (values with fixed low bits) or from the high bit (a
// range of values), or a random set — the Monte Carlo estimate of
// P[L_max ≤ (1+ε)/n] is at least the Chernoff–union bound 1 −
// n·e^(−ε²/(2n·s_max)) minus five standard errors, for every kind.
func TestStaticPermutationPlacement(t *testing.T) {
	const h, n, b, trials = 12, 8, 256, 600
	const eps = 0.5
	m := 1 << h
	bound := 1 - n*math.Exp(-eps*eps*b/(2*n))
	r := rand.New(rand.NewPCG(203, 1))
	adversaries := map[string][]bool{}
	lowBits, highRange, random := make([]bool, m+1), make([]bool, m+1), make([]bool, m+1)
	for v := 1; v <= m; v++ {
		lowBits[v] = (v-1)%(m/b) == 5 // path read from the low bit: a subtree of depth 4
		highRange[v] = v-1 >= 3*b && v-1 < 4*b
	}
	for _, v := range r.Perm(m)[:b] {
		random[v+1] = true
	}
	adversaries["subtree (low bits)"] = lowBits
	adversaries["subtree (high bits)"] = highRange
	adversaries["random set"] = random
	most := int(math.Floor((1+eps)*b/n + 1e-9))
	for _, kind := range append([]string{"random"}, perm.Kinds()...) {
		for _, adv := range []string{"subtree (low bits)", "subtree (high bits)", "random set"} {
			heavy := adversaries[adv]
			var ok mcStat
			for range trials {
				var pi perm.Perm = newShuffled(h, r)
				if kind != "random" {
					var err error
					if pi, err = perm.New(kind, h, r); err != nil {
						t.Fatal(err)
					}
				}
				good := 1.0
				for i := range n {
					lo, hi := perm.Block(pi.Len(), i, n)
					count := 0
					for _, v := range perm.Values(pi, lo, hi) {
						if heavy[v] {
							count++
						}
					}
					if count > most {
						good = 0
					}
				}
				ok.add(good)
			}
			se := math.Max(ok.se(), math.Sqrt(bound*(1-bound)/trials))
			t.Logf("%-6s %-19s: P[L_max ≤ (1+ε)/n] = %.4f ± %.4f (bound %.4f)", kind, adv, ok.mean(), ok.se(), bound)
			if ok.mean() < bound-zMax*se {
				t.Errorf("%s, %s: P[L_max ≤ (1+ε)/n] = %.4f ± %.4f below the bound %.4f", kind, adv, ok.mean(), se, bound)
			}
		}
	}
}
