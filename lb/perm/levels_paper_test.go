package perm

import (
	"math"
	"testing"
)

// Paper tests of the level bounds: seed 001 §5.2 (Theorem 4, Theorem 5 and
// its Lemma 1) and seed 000 Theorem 3 (with the constant of Theorem 2).

// near reports whether a and b agree to a relative 1e-9.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) }

var levelGrid = struct {
	ps     []int
	eps    []float64
	sigmas []float64
}{
	ps:     []int{1, 2, 3, 4, 7, 16, 64, 1000},
	eps:    []float64{0.01, 0.1, 0.25, 1},
	sigmas: []float64{0, 0.05, 0.1, 0.25, 0.4, 0.49},
}

// TestLevelBounds checks each bound against the inequality it solves:
// (σ+½)^k_lower = ε/p (seed 001 §5.2); at k_upper the variance bound of
// seed 001 Lemma 1, p^−1·(2σ²+½)^k, equals ε²/p³; at h of seed 000 Theorem
// 3 the leaf bound (½+σ)^h is 1/(c·p·ln p) and the union of the Chernoff
// bounds of Theorem 2, p·exp(−ε²/(2p·s_max)), is p^−β. And k_lower ≤
// k_upper always, since (σ+½)² ≤ 2σ² + ½ ⇔ (σ−½)² ≥ 0.
func TestLevelBounds(t *testing.T) {
	for _, p := range levelGrid.ps {
		for _, eps := range levelGrid.eps {
			for _, sigma := range levelGrid.sigmas {
				lo := LevelsLower(p, eps, sigma)
				if !near(math.Pow(sigma+0.5, lo), eps/float64(p)) {
					t.Errorf("p=%d ε=%v σ=%v: (σ+½)^%v ≠ ε/p", p, eps, sigma, lo)
				}
				up := LevelsUpper(p, eps, sigma)
				n := math.Log2(float64(p))
				if !near(math.Pow(2, -n)*math.Pow(2*sigma*sigma+0.5, up), eps*eps*math.Pow(8, -n)) {
					t.Errorf("p=%d ε=%v σ=%v: Lemma 1 variance bound off at k=%v", p, eps, sigma, up)
				}
				if lo > up*(1+1e-12) {
					t.Errorf("p=%d ε=%v σ=%v: k_lower %v > k_upper %v", p, eps, sigma, lo, up)
				}
				if p == 1 {
					continue
				}
				for _, beta := range []float64{0, 1, 3} {
					h := LevelsWHP(p, eps, sigma, beta)
					c := 2 * (beta + 1) / (eps * eps)
					smax := math.Pow(0.5+sigma, h)
					if h > 0 && !near(smax, 1/(c*float64(p)*math.Log(float64(p)))) {
						t.Errorf("p=%d ε=%v σ=%v β=%v: s_max = %v", p, eps, sigma, beta, smax)
					}
					fail := float64(p) * math.Exp(-eps*eps/(2*float64(p)*smax))
					if h > 0 && !near(fail, math.Pow(float64(p), -beta)) {
						t.Errorf("p=%d ε=%v σ=%v β=%v: failure bound %v ≠ p^−β", p, eps, sigma, beta, fail)
					}
				}
			}
		}
	}
}

// TestDefaultLevels checks that DefaultLevels is the least k ≥ max(1,
// ⌈log₂ p⌉) with (σ+½)^k ≤ ε/p (seed 001 §5.2), capped at MaxLevels, and
// the documented values for ε = 0.1, σ = 0.25.
func TestDefaultLevels(t *testing.T) {
	for _, p := range levelGrid.ps {
		for _, eps := range levelGrid.eps {
			for _, sigma := range append(levelGrid.sigmas, 0.5) {
				k := DefaultLevels(p, eps, sigma)
				floor := max(1, int(math.Ceil(math.Log2(float64(p)))))
				ok := func(k int) bool { return math.Pow(sigma+0.5, float64(k)) <= eps/float64(p)*(1+1e-12) }
				if k < floor || k > MaxLevels || uint64(1)<<k < uint64(p) {
					t.Fatalf("p=%d ε=%v σ=%v: k=%d outside [%d, %d]", p, eps, sigma, k, floor, MaxLevels)
				}
				if k < MaxLevels && !ok(k) {
					t.Errorf("p=%d ε=%v σ=%v: k=%d too small", p, eps, sigma, k)
				}
				if k > floor && ok(k-1) {
					t.Errorf("p=%d ε=%v σ=%v: k=%d not the least", p, eps, sigma, k)
				}
			}
		}
	}
	want := map[int]int{1: 9, 2: 11, 4: 13, 8: 16, 16: 18, 64: 23}
	for p, k := range want {
		if got := DefaultLevels(p, DefaultEpsilon, DefaultSigma); got != k {
			t.Errorf("DefaultLevels(%d) = %d, documented %d", p, got, k)
		}
	}
	for _, bad := range []func(){
		func() { DefaultLevels(0, 0.1, 0.1) },
		func() { DefaultLevels(2, 0, 0.1) },
		func() { DefaultLevels(2, 0.1, 0.6) },
		func() { DefaultLevels(2, math.NaN(), 0.1) },
		func() { LevelsWHP(2, 0.1, 0.1, -1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("invalid arguments accepted")
				}
			}()
			bad()
		}()
	}
}
