package lb_test

// Paper tests of the tree splitting bounds on the real static placement
// (the "static" balancer: its leaves of a k-level splitting tree, each PE
// generating the leaves π(j) of its block by splitting a fresh root along
// the bits of π(j) − 1, with π a GF(2^k) permutation drawn from the run's
// seed):
//
//   - seed 000 (Sanders, "On the Competitive Analysis of Randomized Static
//     Load Balancing") §3, Theorem 3: under α-splitting (a piece of size s
//     splits into s_a + s_b = s with min(s_a, s_b) ≥ α·s, the adversary
//     choosing), P[L_max > (1+ε)/n] ≤ n^−β once h ≥ x(α)(log n + log log n)
//     + Ω(β/ε²), x(α) = 1/log(1/(1−α)) (perm.LevelsWHP, with the constant
//     c = 2(β+1)/ε² of Theorem 2's proof);
//   - seed 000 §3, Theorem 4: no algorithm that treats the 2^h pieces as
//     atomic balances well when h < x(α)·log n, because the adversary's
//     α : 1−α splits leave a piece of size (1−α)^h > 1/n;
//   - seed 001 ("Randomized Static Load Balancing for Tree-Shaped
//     Computations") §5.2, Theorem 4: under random splitting with Var X =
//     σ², good efficiency on the average needs (σ+½)^k ≤ ε/N, i.e. 2^k ∈
//     Ω(2^(n/log(1/(σ+½)))) (perm.LevelsLower).
//
// The app is a splitting tree whose sizes are real numbers: a leaf's Work
// adds its size to its rank's load and counts one node, so L_j is exactly
// the sum of the sizes of the leaves static placement gave rank j. The
// ranks run one after another in the step model (Start, then Task/Work/Tick
// until the rank runs dry; static sends no work, so no message matters).

import (
	"encoding/binary"
	"errors"
	"math"
	"math/bits"
	"slices"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/perm"
)

// splitRule is the adversary of a splitting tree: the fraction of a node's
// size that the kept part (path bit 0) gets, as a function of the tree's
// seed, the node's depth and its path (bit l: the part taken at level l,
// 1 for the part Split gives away). Every rank builds the same tree, so it
// must be a function of these alone.
type splitRule func(seed uint64, depth int, path uint64) float64

// nodeHash is a SplitMix64 finalizer of a node's identity: every rank
// draws the same splitting factor for the same node.
func nodeHash(seed uint64, depth int, path uint64) uint64 {
	x := seed*0x9e3779b97f4a7c15 + uint64(depth)*0xbf58476d1ce4e5b9 + path
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// skewRule is the adversary of Theorem 4's proof: every split is α to 1−α,
// the kept part the larger, so the leaf of path 0 has size (1−α)^h.
func skewRule(alpha float64) splitRule {
	return func(uint64, int, uint64) float64 { return 1 - alpha }
}

// coinRule splits α to 1−α with the larger part on a side chosen by the
// node's hash: an adversary whose large pieces are scattered over the tree.
func coinRule(alpha float64) splitRule {
	return func(seed uint64, depth int, path uint64) float64 {
		if nodeHash(seed, depth, path)&1 == 0 {
			return alpha
		}
		return 1 - alpha
	}
}

// evenRule splits in halves (allowed for every α ≤ ½).
func evenRule(uint64, int, uint64) float64 { return 0.5 }

// twoPointRule is the random splitting model of seed 001 §2 with X = ½ ± σ
// (Rao and Kumar's model), the sign drawn from the node's hash: E X = ½,
// Var X = σ², |X − ½| = σ always.
func twoPointRule(sigma float64) splitRule {
	return func(seed uint64, depth int, path uint64) float64 {
		if nodeHash(seed, depth, path)&1 == 0 {
			return 0.5 - sigma
		}
		return 0.5 + sigma
	}
}

// sizeApp is one rank's view of a splitting tree of total size 1.
type sizeApp struct {
	rule     splitRule
	seed     uint64
	load     float64 // Σ of the sizes of the leaves worked here
	leaves   int
	maxLeaf  float64
	maxDepth int
}

// sizeTask is a node of the splitting tree; it implements lb.Halver, so
// static placement cuts it in place.
type sizeTask struct {
	app   *sizeApp
	size  float64
	depth int
	path  uint64
	done  bool
}

var _ lb.Halver = (*sizeTask)(nil)

func (a *sizeApp) Root() lb.Task { return &sizeTask{app: a, size: 1} }

func (a *sizeApp) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) != 24 {
		return nil, errors.New("size task: bad encoding")
	}
	return &sizeTask{app: a, size: math.Float64frombits(binary.LittleEndian.Uint64(b)),
		depth: int(binary.LittleEndian.Uint64(b[8:])), path: binary.LittleEndian.Uint64(b[16:])}, nil
}

func (t *sizeTask) Work(int64) int64 {
	if t.done {
		return 0
	}
	t.done = true
	a := t.app
	a.load += t.size
	a.leaves++
	a.maxLeaf = math.Max(a.maxLeaf, t.size)
	a.maxDepth = max(a.maxDepth, t.depth)
	return 1
}

func (t *sizeTask) Empty() bool { return t.done }

func (t *sizeTask) Halve(give bool) bool {
	x := t.app.rule(t.app.seed, t.depth, t.path)
	if give {
		t.size *= 1 - x
		t.path |= 1 << t.depth
	} else {
		t.size *= x
	}
	t.depth++
	return true
}

func (t *sizeTask) Reroot() { *t = sizeTask{app: t.app, size: 1} }

func (t *sizeTask) Split() lb.Task {
	o := *t
	t.Halve(false)
	o.Halve(true)
	return &o
}

func (t *sizeTask) AppendBinary(b []byte) ([]byte, error) {
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(t.size))
	b = binary.LittleEndian.AppendUint64(b, uint64(t.depth))
	return binary.LittleEndian.AppendUint64(b, t.path), nil
}

// placement is what static placement did with one splitting tree.
type placement struct {
	loads    []float64 // L_j
	maxLeaf  float64
	leaves   int
	maxDepth int
}

func (p placement) lmax() float64 { return slices.Max(p.loads) }

// placeStatic runs the static balancer with h levels and permutation kind
// on n ranks over the tree of rule and treeSeed, the run's seed being
// runSeed (which draws π), and returns the loads.
func placeStatic(t *testing.T, n, h int, kind string, rule splitRule, treeSeed, runSeed uint64) placement {
	t.Helper()
	info, err := lb.Lookup("static")
	if err != nil {
		t.Fatal(err)
	}
	pl := placement{loads: make([]float64, n)}
	for r := range n {
		app := &sizeApp{rule: rule, seed: treeSeed}
		b, err := lb.NewBalancer(info.New, lb.Env{Rank: r, Size: n, App: app, Seed: runSeed,
			Options: lb.StaticOptions{Levels: h, Permutation: kind}})
		if err != nil {
			t.Fatal(err)
		}
		b.Start(app.Root())
		for task := b.Task(); task != nil; task = b.Task() {
			b.Tick(task.Work(1 << 30))
			b.Outbox() // termination traffic: no work travels
		}
		pl.loads[r] = app.load
		pl.leaves += app.leaves
		pl.maxLeaf = math.Max(pl.maxLeaf, app.maxLeaf)
		pl.maxDepth = max(pl.maxDepth, app.maxDepth)
	}
	return pl
}

// checkPartition fails unless the placement worked exactly the 2^h leaves
// of depth h, whose sizes sum to the root's 1.
func checkPartition(t *testing.T, pl placement, h int) {
	t.Helper()
	sum := 0.0
	for _, l := range pl.loads {
		sum += l
	}
	if pl.leaves != 1<<h || pl.maxDepth != h || math.Abs(sum-1) > 1e-9 {
		t.Fatalf("h=%d: %d leaves of depth ≤ %d with total size %.12g, want 2^h leaves of depth h summing to 1", h, pl.leaves, pl.maxDepth, sum)
	}
}

// xAlpha is x(α) = 1/log₂(1/(1−α)) of seed 000 §3.
func xAlpha(alpha float64) float64 { return 1 / math.Log2(1/(1-alpha)) }

// TestStaticTreeTheorem3 (seed 000 §3, Theorem 3): with h ≥ h* =
// ⌈perm.LevelsWHP(n, ε, ½−α, β)⌉ levels of α-splitting, static placement
// has P[L_max > (1+ε)/n] ≤ n^−β. For every h from below Theorem 4's bound
// up to h*+1, the frequency of L_max > (1+ε)/n over seeded trials (a fresh
// π each) is at most the bound the proof gives for that h — the union of
// Theorem 2's Chernoff bounds with s_max = (1−α)^h, n·e^(−ε²/(2n(1−α)^h)),
// where it is below 1 — and at h ≥ h* at most n^−β, each within five
// standard errors of the bound; at the smallest h every trial is
// imbalanced (Theorem 4), so the frequency falls from 1 to below n^−β as
// h grows to h*. Two adversaries: every split α : 1−α with the kept part
// larger (all large pieces in one subtree), and with the larger part's side
// drawn per node; halving splits, a control, give L_j = 1/n exactly.
func TestStaticTreeTheorem3(t *testing.T) {
	type setup struct {
		n              int
		alpha, eps, bt float64
		trials         int
	}
	setups := []setup{{8, 0.4, 0.5, 1, 200}, {32, 0.45, 0.5, 1, 40}}
	if testing.Short() {
		setups = setups[:1]
		setups[0].trials = 80
	}
	for _, c := range setups {
		hStar := int(math.Ceil(perm.LevelsWHP(c.n, c.eps, 0.5-c.alpha, c.bt)))
		if s := math.Pow(1-c.alpha, float64(hStar)); s > 1/(2*(c.bt+1)/(c.eps*c.eps)*float64(c.n)*math.Log(float64(c.n)))*(1+1e-9) {
			t.Fatalf("n=%d α=%v: h*=%d leaves pieces of %g, above Theorem 2's s_max", c.n, c.alpha, hStar, s)
		}
		target := math.Pow(float64(c.n), -c.bt)
		hLow := bits.Len(uint(c.n - 1))
		for _, adv := range []struct {
			name string
			rule splitRule
		}{{"skew", skewRule(c.alpha)}, {"coin", coinRule(c.alpha)}} {
			var first, last float64
			for h := hLow; h <= hStar+1; h++ {
				var over mcStat
				for trial := range c.trials {
					seed := uint64(1000*h + trial + 1)
					pl := placeStatic(t, c.n, h, "gf", adv.rule, seed, seed)
					checkPartition(t, pl, h)
					if pl.lmax() > (1+c.eps)/float64(c.n)+1e-12 {
						over.add(1)
					} else {
						over.add(0)
					}
				}
				f := over.mean()
				chernoff := float64(c.n) * math.Exp(-c.eps*c.eps/(2*float64(c.n)*math.Pow(1-c.alpha, float64(h))))
				t.Logf("n=%d α=%v ε=%v %s h=%2d: P[L_max > (1+ε)/n] ≈ %.3f (Chernoff–union bound %.3g)", c.n, c.alpha, c.eps, adv.name, h, f, chernoff)
				if chernoff < 1 {
					if se := math.Sqrt(chernoff * (1 - chernoff) / float64(c.trials)); f > chernoff+zMax*se {
						t.Errorf("n=%d α=%v %s h=%d: frequency %.3f above the Chernoff–union bound %.3g", c.n, c.alpha, adv.name, h, f, chernoff)
					}
				}
				if h >= hStar {
					if se := math.Sqrt(target * (1 - target) / float64(c.trials)); f > target+zMax*se {
						t.Errorf("n=%d α=%v %s h=%d ≥ h*=%d: frequency %.3f above n^−β = %.3g", c.n, c.alpha, adv.name, h, hStar, f, target)
					}
				}
				if h == hLow {
					first = f
				}
				last = f
			}
			if adv.name == "skew" && math.Pow(1-c.alpha, float64(hLow))*float64(c.n) > 1+c.eps && first != 1 { // Theorem 4's piece
				t.Errorf("n=%d α=%v %s h=%d: frequency %.3f, Theorem 4 says every placement is imbalanced", c.n, c.alpha, adv.name, hLow, first)
			}
			if last >= first {
				t.Errorf("n=%d α=%v %s: the frequency does not fall from h=%d (%.3f) to h=%d (%.3f)", c.n, c.alpha, adv.name, hLow, first, hStar+1, last)
			}
		}
		// The control: halving gives every rank exactly 2^h/n leaves of 2^−h.
		pl := placeStatic(t, c.n, hStar, "gf", evenRule, 1, 1)
		checkPartition(t, pl, hStar)
		for j, l := range pl.loads {
			if math.Abs(l*float64(c.n)-1) > 1e-9 {
				t.Errorf("n=%d h=%d halving: L_%d = %g, want 1/n", c.n, hStar, j, l)
			}
		}
	}
}

// lptMax returns the largest load when the sizes are assigned, largest
// first, each to the least loaded of n PEs (Graham's LPT rule): an
// algorithm that knows the sizes, which static placement does not. It is
// within max(sizes) of the average load 1/n.
func lptMax(sizes []float64, n int) float64 {
	s := slices.Clone(sizes)
	slices.Sort(s)
	loads := make([]float64, n)
	for i := len(s) - 1; i >= 0; i-- {
		loads[slices.Index(loads, slices.Min(loads))] += s[i]
	}
	return slices.Max(loads)
}

// leafSizes returns the sizes of the 2^h leaves of the tree of rule.
func leafSizes(rule splitRule, seed uint64, h int) []float64 {
	a := &sizeApp{rule: rule, seed: seed}
	var out []float64
	for v := range uint64(1) << h {
		t := a.Root().(*sizeTask)
		for l := range h {
			t.Halve(v>>l&1 == 1)
		}
		out = append(out, t.size)
	}
	return out
}

// TestStaticTreeTheorem4 (seed 000 §3, Theorem 4): with fewer than x(α)·log₂
// n levels, the adversary that splits every piece α : 1−α leaves one piece
// of size (1−α)^h > 1/n, so no algorithm that treats the 2^h pieces as
// atomic has L_max ≤ 1/n, and none has L_max ≤ (1+ε)/n while (1−α)^h >
// (1+ε)/n, i.e. h < x(α)(log₂ n − log₂(1+ε)). Checked on static placement
// (its largest leaf is exactly (1−α)^h, and every trial's L_max is at least
// that) and on LPT, which knows the sizes and so is the best such
// algorithm up to max(sizes): above that level LPT stays imbalanced too.
// The bound is tight up to the ε terms: from h ≥ x(α)(log₂ n + log₂(1/ε))
// on, the largest piece is at most ε/n and LPT has L_max ≤ (1+ε)/n.
func TestStaticTreeTheorem4(t *testing.T) {
	const eps = 0.25
	trials := 20
	if testing.Short() {
		trials = 5
	}
	for _, c := range []struct {
		n     int
		alpha float64
	}{{8, 0.25}, {64, 0.4}, {256, 0.45}} {
		x := xAlpha(c.alpha)
		bound := x * math.Log2(float64(c.n))
		imbalanced := x * (math.Log2(float64(c.n)) - math.Log2(1+eps))
		balanced := int(math.Ceil(x*(math.Log2(float64(c.n))+math.Log2(1/eps)) - 1e-9))
		hLow := bits.Len(uint(c.n - 1))
		t.Logf("n=%d α=%v: x(α)·log₂ n = %.2f; imbalanced for h < %.2f, LPT balanced from h = %d", c.n, c.alpha, bound, imbalanced, balanced)
		if float64(hLow) >= imbalanced {
			t.Fatalf("n=%d α=%v: no level below the bound to test", c.n, c.alpha)
		}
		for h := hLow; h <= balanced; h++ {
			piece := math.Pow(1-c.alpha, float64(h))
			for trial := range trials {
				seed := uint64(7000*h + trial + 1)
				pl := placeStatic(t, c.n, h, "gf", skewRule(c.alpha), seed, seed)
				checkPartition(t, pl, h)
				if math.Abs(pl.maxLeaf-piece) > 1e-12*piece {
					t.Fatalf("n=%d α=%v h=%d: largest leaf %g, want (1−α)^h = %g", c.n, c.alpha, h, pl.maxLeaf, piece)
				}
				if pl.lmax() < piece*(1-1e-12) {
					t.Fatalf("n=%d α=%v h=%d: L_max %g below the largest atomic piece %g", c.n, c.alpha, h, pl.lmax(), piece)
				}
				if float64(h) < imbalanced && pl.lmax() <= (1+eps)/float64(c.n) {
					t.Errorf("n=%d α=%v h=%d < %.2f: static placement balanced (L_max·n = %.4f)", c.n, c.alpha, h, imbalanced, pl.lmax()*float64(c.n))
				}
			}
			lpt := lptMax(leafSizes(skewRule(c.alpha), 1, h), c.n) * float64(c.n)
			switch {
			case float64(h) < bound && lpt <= 1:
				t.Errorf("n=%d α=%v h=%d < x(α)·log₂ n: LPT reaches L_max·n = %.4f ≤ 1", c.n, c.alpha, h, lpt)
			case float64(h) < imbalanced && lpt <= 1+eps:
				t.Errorf("n=%d α=%v h=%d: LPT balanced (L_max·n = %.4f) below the bound", c.n, c.alpha, h, lpt)
			case h >= balanced && lpt > 1+eps:
				t.Errorf("n=%d α=%v h=%d: LPT imbalanced (L_max·n = %.4f) with pieces ≤ ε/n", c.n, c.alpha, h, lpt)
			}
		}
	}
}

// TestStaticSplittingTheorem4 (seed 001 §5.2, Theorem 4): under random
// splitting with Var X = σ², the leaf M reached by always keeping the
// larger piece has E M = (σ+½)^k (Theorem 2; exactly M = (σ+½)^k in the
// two-point model X = ½ ± σ, the worst case for a given σ), and the PE that
// gets it carries on average, under a random placement, N·E L ≥ 1 +
// (N−1)(2^k·E M − 1)/(2^k − 1) (M plus its share of the rest). So with k ≤
// k_lower − 1 levels, k_lower = (n + log₂(1/ε))/log₂(1/(σ+½))
// (perm.LevelsLower), where E M ≥ ε/(N(σ+½)), the average efficiency
// 1/(N·E L_max) stays below 1/(1+ε): good efficiency on the average needs
// 2^k ∈ Ω(2^(n/log(1/(σ+½)))). Checked on static placement over seeded
// two-point trees, with the mean of N·L_max within five standard errors;
// at k_upper (seed 001 Theorem 5, perm.LevelsUpper), the counterpart, N·E
// L_max ≤ 1 + 2ε holds on the same trees, so the lower bound is not
// vacuous.
func TestStaticSplittingTheorem4(t *testing.T) {
	const eps = 0.25
	trees := 120
	if testing.Short() {
		trees = 40
	}
	for _, c := range []struct {
		n     int
		sigma float64
	}{{16, 0.1}, {4, 0.25}} {
		kLower := perm.LevelsLower(c.n, eps, c.sigma)
		kUpper := int(math.Ceil(perm.LevelsUpper(c.n, eps, c.sigma)))
		nn := float64(c.n)
		for k := bits.Len(uint(c.n - 1)); k <= kUpper; k++ {
			if float64(k) > kLower-1 && k < kUpper {
				continue // between the bounds: neither theorem speaks
			}
			m := math.Pow(c.sigma+0.5, float64(k))
			var nl mcStat
			nt := trees
			if k == kUpper {
				nt = trees / 4 // 2^k leaves a tree, and a smaller spread
			}
			for tree := range nt {
				seed := uint64(100*k + tree + 1)
				pl := placeStatic(t, c.n, k, "gf", twoPointRule(c.sigma), seed, seed^0x5bd1e995)
				checkPartition(t, pl, k)
				if math.Abs(pl.maxLeaf-m) > 1e-12*m {
					t.Fatalf("N=%d σ=%v k=%d: largest leaf %g, want M = (σ+½)^k = %g", c.n, c.sigma, k, pl.maxLeaf, m)
				}
				nl.add(nn * pl.lmax())
			}
			holder := 1 + (nn-1)*(math.Ldexp(m, k)-1)/(math.Ldexp(1, k)-1)
			t.Logf("N=%d σ=%v k=%2d (k_lower %.2f, k_upper %d): N·M = %.3f, N·E L_max = %.4f ± %.4f, holder's bound %.4f",
				c.n, c.sigma, k, kLower, kUpper, nn*m, nl.mean(), nl.se(), holder)
			if nl.mean() < holder-zMax*nl.se()-1e-12 {
				t.Errorf("N=%d σ=%v k=%d: N·E L_max = %.4f ± %.4f below the expected load %.4f of M's PE", c.n, c.sigma, k, nl.mean(), nl.se(), holder)
			}
			if float64(k) <= kLower-1 {
				if nn*m < eps/(c.sigma+0.5) || holder <= 1+eps {
					t.Fatalf("N=%d σ=%v k=%d ≤ k_lower − 1: N·M = %g, M's PE %g: not above 1+ε", c.n, c.sigma, k, nn*m, holder)
				}
				if nl.mean() <= 1+eps {
					t.Errorf("N=%d σ=%v k=%d ≤ k_lower − 1 = %.2f: N·E L_max = %.4f ± %.4f, not above 1+ε", c.n, c.sigma, k, kLower-1, nl.mean(), nl.se())
				}
			}
			if k == kUpper && nl.mean() > 1+2*eps+zMax*nl.se() {
				t.Errorf("N=%d σ=%v k=%d = k_upper: N·E L_max = %.4f ± %.4f above 1+2ε", c.n, c.sigma, k, nl.mean(), nl.se())
			}
		}
	}
}
