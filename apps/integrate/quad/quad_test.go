package quad

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/treelb/treelb/apps/integrate/internal/bagsched"
	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
)

// tolerance is what the tests allow between an integral and the exact
// value: Leaves·θ, because a leaf halted by the accuracy test returns
// A(a,m)+A(m,b), whose error is about a third of the difference it tested
// (below θ) where the trapezoid rule's error expansion holds, plus 16 units
// in the last place of s + |exact|, s ≥ ∫|f|, for the rounding of the
// leaves' values and of the exact value (the sum itself is exact).
func tolerance(r *Result, p *Problem, s, exact float64) float64 {
	return float64(r.Leaves)*p.Threshold() + 16*0x1p-53*(s+math.Abs(exact))
}

func solve(t *testing.T, f func(float64) float64, a, b float64, o Options) (*Problem, Result) {
	t.Helper()
	p, err := New(f, a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Solve()
	if r.Nodes != 2*r.Leaves-1 {
		t.Fatalf("%d nodes, %d leaves: not a full binary tree", r.Nodes, r.Leaves)
	}
	return p, r
}

// TestNamedFunctions integrates every named function over two intervals
// with the seed's θ_r, both rules and several θ_a, against G(b) − G(a).
func TestNamedFunctions(t *testing.T) {
	for _, fn := range Funcs() {
		for _, iv := range [][2]float64{{0, 1}, {0.2, 3.7}} {
			a, b := iv[0], iv[1]
			exact := fn.Integral(a, b)
			s := absTrapezoid(fn.F, a, b, 1<<16)
			for _, o := range []Options{
				{ThetaA: 1e-6, ThetaR: SeedThetaR},
				{ThetaA: 1e-10, ThetaR: SeedThetaR},
				{ThetaA: 1e-9, ThetaR: SeedThetaR, Rule: Relative},
			} {
				p, r := solve(t, fn.F, a, b, o)
				v := r.Value()
				if tol := tolerance(&r, p, s+math.Abs(fn.G(a))+math.Abs(fn.G(b)), exact); !(math.Abs(v-exact) <= tol) {
					t.Errorf("%s over [%v, %v], %+v: %v, exact %v, error %.3g > %.3g (%d nodes)",
						fn.Name, a, b, o, v, exact, v-exact, tol, r.Nodes)
				}
				if o.ThetaA == 1e-10 && r.Height < 10 {
					t.Errorf("%s over [%v, %v], θ_a = 1e-10: height only %d", fn.Name, a, b, r.Height)
				}
			}
		}
	}
}

// TestRandomPolynomials integrates the seed's random polynomials over
// [0, 1] (and a wider interval, where they grow large) against the exact
// integral, under both rules.
func TestRandomPolynomials(t *testing.T) {
	big := 0
	for seed := uint64(1); seed <= 40; seed++ {
		poly := RandomPoly(seed)
		ivs := [][2]float64{{0, 1}}
		if seed%8 == 0 {
			ivs = append(ivs, [2]float64{-0.25, 1.125})
		}
		for _, iv := range ivs {
			exact := poly.Integral(iv[0], iv[1])
			var opts []Options
			for _, th := range SeedThetaA()[:2] { // 10^−10 is in TestNamedFunctions and the golden trees
				opts = append(opts, Options{ThetaA: th, ThetaR: SeedThetaR}, Options{ThetaA: th, ThetaR: SeedThetaR, Rule: Relative})
			}
			for _, o := range opts {
				p, r := solve(t, poly.Eval, iv[0], iv[1], o)
				v := r.Value()
				if tol := tolerance(&r, p, exact, exact); !(math.Abs(v-exact) <= tol) {
					t.Errorf("seed %d (degree %d) over %v, %+v: %v, exact %v, error %.3g > %.3g (%d nodes)",
						seed, poly.Degree(), iv, o, v, exact, v-exact, tol, r.Nodes)
				}
				if o.Rule == Relative && math.Abs(v-exact) > 1e-4*exact {
					t.Errorf("seed %d, %+v: relative error %.3g", seed, o, (v-exact)/exact)
				}
				if r.Nodes > 1000 {
					big++
				}
			}
		}
	}
	if big < 20 {
		t.Errorf("only %d integrations with more than 1000 nodes: the test is too easy", big)
	}
}

// scheduleCases are integrations with trees of a few thousand nodes.
func scheduleCases(t *testing.T) map[string]*Problem {
	mk := func(f func(float64) float64, a, b float64, o Options) *Problem {
		p, err := New(f, a, b, o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	sqrt, _ := LookupFunc("sqrt")
	runge, _ := LookupFunc("runge")
	osc, _ := LookupFunc("osc")
	return map[string]*Problem{
		"poly10-abs": mk(RandomPoly(10).Eval, 0, 1, Options{ThetaA: 1e-6, ThetaR: SeedThetaR}),
		"poly1-rel":  mk(RandomPoly(1).Eval, 0, 1, Options{ThetaA: 1e-8, ThetaR: SeedThetaR, Rule: Relative}),
		"sqrt":       mk(sqrt.F, 0, 1, Options{ThetaA: 1e-9, ThetaR: SeedThetaR}),
		"runge":      mk(runge.F, -1, 1, Options{ThetaA: 1e-9, ThetaR: SeedThetaR}),
		"osc":        mk(osc.F, -2, 2, Options{ThetaA: 1e-8, ThetaR: SeedThetaR}),
	}
}

// TestScheduleIndependence: the tree and the integral are the same, bit
// for bit, when the work is scattered over 1, 2, 7 or 16 ranks by random
// slices, splits and byte round trips and the ranks' results are combined
// along a random reduction tree, as when it is done by the sequential
// solver. The exact sum makes tolerance zero the right one.
func TestScheduleIndependence(t *testing.T) {
	for name, p := range scheduleCases(t) {
		want := p.Solve()
		if want.Nodes < 1000 {
			t.Fatalf("%s: only %d nodes", name, want.Nodes)
		}
		for _, ranks := range []int{1, 2, 7, 16} {
			for seed := range uint64(3) {
				apps := make([]bagsched.App, ranks)
				own := make([]*App, ranks)
				for i := range apps {
					own[i] = NewApp(p)
					apps[i] = own[i]
				}
				maxSlice := []int{1, 7, 300}[seed]
				worked, err := bagsched.Run(seed, apps, maxSlice)
				if err != nil {
					t.Fatalf("%s, %d ranks, seed %d: %v", name, ranks, seed, err)
				}
				parts := make([]Result, ranks)
				for i, a := range own {
					parts[i] = a.Result()
				}
				got := bagsched.Reduce(seed, parts, own[0].Combine)
				if got.Nodes != want.Nodes || got.Leaves != want.Leaves || got.Height != want.Height || got.Digest != want.Digest || worked != want.Nodes ||
					math.Float64bits(got.Value()) != math.Float64bits(want.Value()) {
					t.Errorf("%s, %d ranks, seed %d: %d nodes (%d worked) %d leaves height %d value %v; sequential %d %d %d %v",
						name, ranks, seed, got.Nodes, worked, got.Leaves, got.Height, got.Value(),
						want.Nodes, want.Leaves, want.Height, want.Value())
				}
			}
		}
	}
}

// TestGoldenTrees pins the trees and integrals of a few random polynomials
// bit for bit: the same on every machine (products feeding sums are
// rounded explicitly, so no fused multiply-add changes them).
func TestGoldenTrees(t *testing.T) {
	for _, g := range []struct {
		seed                  uint64
		rule                  Rule
		thetaA                float64
		nodes, leaves, height int64
		value                 uint64
	}{
		{10, Absolute, 1e-8, 13353, 6677, 14, 0x4065b4a0ddf45d7d},
		{21, Absolute, 1e-6, 5827, 2914, 12, 0x40a9c575767490ea},
		{1, Relative, 1e-8, 1567, 784, 17, 0x3785146c9bc060c1},
		{95, Relative, 1e-6, 507, 254, 16, 0x2edc889fa410ad77},
	} {
		_, r := solve(t, RandomPoly(g.seed).Eval, 0, 1, Options{ThetaA: g.thetaA, ThetaR: SeedThetaR, Rule: g.rule})
		if r.Nodes != g.nodes || r.Leaves != g.leaves || r.Height != g.height || math.Float64bits(r.Value()) != g.value {
			t.Errorf("seed %d %v θ_a=%v: %d nodes %d leaves height %d value %#x; want %d %d %d %#x", g.seed, g.rule, g.thetaA,
				r.Nodes, r.Leaves, r.Height, math.Float64bits(r.Value()), g.nodes, g.leaves, g.height, g.value)
		}
	}
}

func TestValidation(t *testing.T) {
	ok := Options{ThetaA: 1e-8, ThetaR: 1e-10}
	with := func(f func(*Options)) Options { o := ok; f(&o); return o }
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		f    func(float64) float64
		a, b float64
		o    Options
		want string
	}{
		{math.Exp, 1, 1, ok, "need a < b"},
		{math.Exp, 2, 1, ok, "need a < b"},
		{math.Exp, nan, 1, ok, "not finite"},
		{math.Exp, 0, inf, ok, "not finite"},
		{math.Exp, -math.MaxFloat64, math.MaxFloat64, ok, "wider"},
		{math.Exp, 0, 1, with(func(o *Options) { o.ThetaA = 0 }), "θ_a"},
		{math.Exp, 0, 1, with(func(o *Options) { o.ThetaA = -1e-8 }), "θ_a"},
		{math.Exp, 0, 1, with(func(o *Options) { o.ThetaA = nan }), "θ_a"},
		{math.Exp, 0, 1, with(func(o *Options) { o.ThetaA = inf }), "θ_a"},
		{math.Exp, 0, 1, with(func(o *Options) { o.ThetaR = 0 }), "θ_r"},
		{math.Exp, 0, 1, with(func(o *Options) { o.ThetaR = nan }), "θ_r"},
		{math.Exp, 0, 1, with(func(o *Options) { o.Rule = 7 }), "rule"},
		{math.Sqrt, -1, 1, ok, "not finite at the ends"},
		{math.Exp, 0, 1000, ok, "not finite at the ends"},
		{func(x float64) float64 { return 1 / (x - 0.5) / (x - 0.5) }, 0, 1, with(func(o *Options) { o.Rule = Relative }), "estimate"},
	} {
		if _, err := New(c.f, c.a, c.b, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New over [%v, %v], %+v: %v, want an error about %q", c.a, c.b, c.o, err, c.want)
		}
	}
	if _, err := ParseRule("relative"); err != nil {
		t.Error(err)
	}
	if _, err := ParseRule("rel"); err == nil {
		t.Error(`ParseRule("rel") accepted`)
	}
}

// TestThresholds checks the two halting rules at their edges.
func TestThresholds(t *testing.T) {
	// θ_r ≥ ½(b−a): the root is a resolution leaf valued A(a,b).
	_, r := solve(t, math.Exp, 0, 1, Options{ThetaA: 1e-12, ThetaR: 0.5000001})
	if r.Nodes != 1 || r.Height != 0 || r.Value() != (1+math.E)/2 {
		t.Errorf("θ_r leaf: %d nodes, value %v, want 1 and %v", r.Nodes, r.Value(), (1+math.E)/2)
	}
	// A huge θ_a: the root is an accuracy leaf valued A(0,½)+A(½,1).
	_, r = solve(t, math.Exp, 0, 1, Options{ThetaA: 10, ThetaR: 1e-10})
	if want := (1+math.Exp(0.5))/4 + (math.Exp(0.5)+math.E)/4; r.Nodes != 1 || math.Abs(r.Value()-want) > 1e-15 {
		t.Errorf("θ_a leaf: %d nodes, value %v, want 1 and %v", r.Nodes, r.Value(), want)
	}
	// A jump refines down to θ_r: with θ_r = 2^−20 on [0, 1], a node at
	// level l spawns iff 2^−(l+1) ≥ 2^−20, so the deepest level is 20.
	step, _ := LookupFunc("step")
	_, r = solve(t, step.F, 0, 1, Options{ThetaA: 1e-300, ThetaR: 0x1p-20})
	if r.Height != 20 {
		t.Errorf("step with θ_r = 2^-20: height %d, want 20", r.Height)
	}
	if v, want := r.Value(), 1-third; math.Abs(v-want) > 0x1p-20 {
		t.Errorf("step: %v, want %v within θ_r", v, want)
	}
	// An interval with no float64 strictly inside: one leaf, not a loop.
	one := math.Nextafter(1, 2)
	_, r = solve(t, math.Exp, 1, one, Options{ThetaA: 1e-300, ThetaR: 1e-320})
	if r.Nodes != 1 {
		t.Errorf("[1, 1+ulp]: %d nodes, want 1", r.Nodes)
	}
	// Eight ulps, f(1+k·ulp) = k² (exact, so every difference is the
	// curvature, nonzero): the tree is complete down to single ulps.
	ulps := func(x float64) float64 { k := float64(math.Float64bits(x) - math.Float64bits(1)); return k * k }
	_, r = solve(t, ulps, 1, 1+8*(one-1), Options{ThetaA: 1e-300, ThetaR: 1e-320})
	if r.Nodes != 15 || r.Height != 3 {
		t.Errorf("[1, 1+8ulp]: %d nodes height %d, want 15 and 3", r.Nodes, r.Height)
	}
}

// TestRelativeScaleInvariance: under the Relative rule, scaling f by a
// power of two scales every trapezoid, S and the threshold exactly, so the
// tree is the same; under the Absolute rule it is not.
func TestRelativeScaleInvariance(t *testing.T) {
	poly := RandomPoly(3)
	rel := Options{ThetaA: 1e-8, ThetaR: SeedThetaR, Rule: Relative}
	_, base := solve(t, poly.Eval, 0, 1, rel)
	for _, k := range []int{-300, -40, 40, 300} {
		_, r := solve(t, func(x float64) float64 { return math.Ldexp(poly.Eval(x), k) }, 0, 1, rel)
		if r.Nodes != base.Nodes || r.Height != base.Height || r.Value() != math.Ldexp(base.Value(), k) {
			t.Errorf("f·2^%d: %d nodes height %d value %v; f: %d %d %v·2^%d", k, r.Nodes, r.Height, r.Value(),
				base.Nodes, base.Height, base.Value(), k)
		}
	}
	abs := Options{ThetaA: 1e-8, ThetaR: SeedThetaR}
	_, a1 := solve(t, poly.Eval, 0, 1, abs)
	_, a2 := solve(t, func(x float64) float64 { return math.Ldexp(poly.Eval(x), 40) }, 0, 1, abs)
	if a1.Nodes == a2.Nodes {
		t.Errorf("absolute rule: f and f·2^40 both give %d nodes", a1.Nodes)
	}
}

// TestNonFiniteIntegrand: a pole at a midpoint ends that node and makes the
// result non-finite; the tree stays finite. For 1/(x−¼) on [0, 1] the root
// spawns, [0, ½] meets the pole at its midpoint and is a leaf, and [½, 1]
// is refined as on its own.
func TestNonFiniteIntegrand(t *testing.T) {
	f := func(x float64) float64 { return 1 / (x - 0.25) }
	o := Options{ThetaA: 1e-10, ThetaR: 1e-10}
	_, r := solve(t, f, 0, 1, o)
	if r.Finite() || !math.IsNaN(r.Value()) && !math.IsInf(r.Value(), 0) {
		t.Errorf("pole at ¼: finite=%v value %v", r.Finite(), r.Value())
	}
	_, right := solve(t, f, 0.5, 1, o)
	if r.Nodes != 2+right.Nodes {
		t.Errorf("pole at ¼: %d nodes, want 2 + %d", r.Nodes, right.Nodes)
	}
}

// TestLevelAndSplit follows seed 003's step: a task holding one node
// evaluates it; if it spawns, a Split leaves each part one child, both at
// the next level.
func TestLevelAndSplit(t *testing.T) {
	p, err := New(math.Exp, 0, 1, Options{ThetaA: 1e-12, ThetaR: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	app := NewApp(p)
	fresh := app.Root().(*Task) // splits at once, evaluating its interval in place and owing it
	if piece := fresh.Split(); piece == nil || fresh.Level() != 1 || piece.(*Task).Level() != 1 || fresh.Work(1) != 1 || app.Result().Nodes != 1 || len(fresh.Open) != 1 {
		t.Fatalf("a fresh root: split %v, at level %d, %d nodes counted", piece, fresh.Level(), app.Result().Nodes)
	}
	root := app.Root().(*Task)
	if root.Level() != 0 || root.Work(0) != 0 || root.Split() != nil {
		t.Fatalf("root: level %d, or it worked for budget 0, or split after it", root.Level())
	}
	task := root
	for level := 1; level <= 5; level++ {
		if n := task.Work(1); n != 1 {
			t.Fatalf("Work(1) = %d", n)
		}
		piece := task.Split()
		if piece == nil || task.Level() != level || piece.(*Task).Level() != level || len(task.Open) != 1 {
			t.Fatalf("level %d: task at %d, piece %v", level, task.Level(), piece)
		}
		if task.Split() != nil {
			t.Fatal("a one-node task split")
		}
		task = piece.(*Task)
	}
	for !task.Empty() {
		task.Work(100)
	}
	if task.Level() != -1 {
		t.Errorf("empty task at level %d", task.Level())
	}
}

func TestFuncs(t *testing.T) {
	want := map[string]float64{
		"sqrt": 2.0 / 3, "exp": math.E - 1, "runge": math.Atan(5) / 5, "gauss": math.Sqrt(math.Pi) / 10 * math.Erf(5),
		"osc": math.Sin(30)/900 - math.Cos(30)/30, "kink": 5.0 / 18, "step": 2.0 / 3,
	}
	fs := Funcs()
	if len(fs) != len(want) {
		t.Fatalf("%d functions, want %d", len(fs), len(want))
	}
	for _, f := range fs {
		if got := f.Integral(0, 1); math.Abs(got-want[f.Name]) > 1e-15 {
			t.Errorf("%s: ∫₀¹ = %v, want %v", f.Name, got, want[f.Name])
		}
		// G′ = F, by central differences away from the kink and the jump.
		for _, x := range []float64{0.05, 0.2, 0.5, 0.77, 1.3, 2.9} {
			const h = 1e-5
			d := (f.G(x+h) - f.G(x-h)) / (2 * h)
			if math.Abs(d-f.F(x)) > 1e-6*(1+math.Abs(f.F(x))) {
				t.Errorf("%s: G′(%v) ≈ %v, F = %v", f.Name, x, d, f.F(x))
			}
		}
		if g, err := LookupFunc(f.Name); err != nil || g.Name != f.Name {
			t.Errorf("LookupFunc(%q) = %v, %v", f.Name, g.Name, err)
		}
	}
	if _, err := LookupFunc("nope"); err == nil || !strings.Contains(err.Error(), "sqrt") {
		t.Errorf("LookupFunc(nope) = %v", err)
	}
	// Where G(b) − G(a) cancels: gauss's tails (erfc(5)·√π/20 on [1, 2],
	// 1.3625383·10⁻¹³; erf gave 1.36252·10⁻¹³, and 0 on [3, 4]) and exp on a
	// short interval (e^a·(b − a) to the last place).
	gauss, _ := LookupFunc("gauss")
	exp, _ := LookupFunc("exp")
	for _, c := range []struct {
		f          Func
		a, b, want float64
	}{
		{gauss, 1, 2, math.Sqrt(math.Pi) / 20 * (math.Erfc(5) - math.Erfc(15))},
		{gauss, -1, 0, math.Sqrt(math.Pi) / 20 * (math.Erfc(5) - math.Erfc(15))},
		{gauss, 3, 4, math.Sqrt(math.Pi) / 20 * math.Erfc(25)},
		{exp, 0, 1e-300, 1e-300},
		{exp, 2, 2 + 0x1p-40, math.Exp(2) * 0x1p-40 * (1 + 0x1p-41)},
	} {
		if got := c.f.Integral(c.a, c.b); c.want == 0 || math.Abs(got-c.want) > 1e-14*c.want {
			t.Errorf("%s: ∫ over [%g, %g] = %g, want %g", c.f.Name, c.a, c.b, got, c.want)
		}
	}
}

// TestUnmarshalErrors: malformed tasks are refused with nodestack.ErrMalformed.
func TestUnmarshalErrors(t *testing.T) {
	p, _ := New(math.Exp, 0, 1, Options{ThetaA: 1e-8, ThetaR: 1e-10})
	app := NewApp(p)
	root := app.Root()
	root.Work(0) // no longer fresh: its encoding is its stack alone
	good, _ := root.AppendBinary(nil)
	after := func(tail ...byte) []byte { return append(slices.Clone(good), tail...) }
	enc := func(lo, hi float64, level uint64) []byte {
		q := nodestack.Stack[interval]{Open: []interval{{a: lo, b: hi, level: int32(level)}}}
		b, _ := q.AppendBinary(nil)
		return b
	}
	for i, b := range [][]byte{
		nil, {0x80}, {5}, good[:len(good)-1], after(0), after(4), after(2), after(2, 0), after(1, 0),
		enc(0.5, 0.25, 1), enc(-0.5, 0.5, 1), enc(0.5, 1.5, 1), enc(math.NaN(), 1, 1), enc(0, 1, MaxLevel+1),
	} {
		if _, err := app.Unmarshal(b); !errors.Is(err, nodestack.ErrMalformed) {
			t.Errorf("case %d (%x): %v", i, b, err)
		}
	}
	if u, err := app.Unmarshal(enc(0.25, 0.5, 2)); err != nil || u.(*Task).Level() != 2 {
		t.Errorf("a good task: %v", err)
	}
}

// TestWorkAllocations: an integration of 13353 nodes allocates only while
// the stack grows, not per node.
func TestWorkAllocations(t *testing.T) {
	p, err := New(RandomPoly(10).Eval, 0, 1, Options{ThetaA: 1e-8, ThetaR: SeedThetaR})
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(3, func() { p.Solve() }); n > 20 {
		t.Errorf("%v allocations per integration", n)
	}
}

// BenchmarkWork measures the nodes per second of the sequential solver on a
// random polynomial of degree 57 (relative rule) and on exp.
func BenchmarkWork(b *testing.B) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{{"poly57", RandomPoly(1).Eval}, {"exp", math.Exp}} {
		p, err := New(c.f, 0, 1, Options{ThetaA: 1e-10, ThetaR: SeedThetaR, Rule: Relative})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			var nodes int64
			for b.Loop() {
				nodes += p.Solve().Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

func ExampleProblem_Solve() {
	poly, _ := NewPoly(2, []float64{0, 1}) // (2x(x−1))², ∫₀¹ = 2/15
	p, _ := New(poly.Eval, 0, 1, Options{ThetaA: 1e-10, ThetaR: SeedThetaR})
	r := p.Solve()
	fmt.Printf("%.9f ≈ %.9f: %d nodes, %d leaves, height %d\n", r.Value(), poly.Integral(0, 1), r.Nodes, r.Leaves, r.Height)
	// Output: 0.133333333 ≈ 0.133333333: 3543 nodes, 1772 leaves, height 11
}
