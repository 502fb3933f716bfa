package quad

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/treelb/treelb/internal/benchratio"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/skeleton"
)

// This file is a second implementation of the search of App (the adaptive
// trapezoid rule of seed 003 §4.2), on package skeleton: the same tree,
// node for node, evaluated by the same functions as App.expand
// (interval.bisect, the integrand, interval.halves), decoded by the same
// Problem.decodeInterval, and folded into the same Result (nodes, leaves,
// height, the exact Sum and the leaf digest), so that the benchmarks can
// measure what the skeleton's generality costs against the hand-written
// Task (docs/skeleton.md, "A shipped app: integrate"). It lives in a test
// file: the app ships once, as App.

// The trapezoid rule's verdicts on a node (quadNode.kind).
const (
	spawn      = iota // [a,m] and [m,b] are its children: x = m, y = f(m)
	leafWhole         // a leaf valued A(a,b) = x: too narrow, or no float64 inside
	leafHalves        // a leaf valued A(a,m) + A(m,b) = x + y
)

// quadNode is a node of the skeleton's search: an interval and the
// trapezoid rule's verdict on it, reached when the node is generated
// (the skeleton visits, hence folds, a node when its parent is expanded,
// and the fold must know whether it is a leaf and its value; App.expand
// decides when it pops the node). The verdict costs f(m), the node's one
// evaluation of the integrand, as in App.expand.
type quadNode struct {
	interval
	x, y float64
	kind uint8
}

// quadSpace is the skeleton.Space of a problem's intervals.
type quadSpace struct{ p *Problem }

var (
	_ skeleton.Space[quadNode]    = (*quadSpace)(nil)
	_ skeleton.Brancher[quadNode] = (*quadSpace)(nil)
)

// judge sets n's verdict from its interval, as App.expand decides it.
func (s *quadSpace) judge(n *quadNode) {
	p := s.p
	m, whole, leaf := n.bisect(p.opt.ThetaR)
	if leaf {
		n.x, n.y, n.kind = whole, 0, leafWhole
		return
	}
	fm := p.f(m)
	left, right, leaf := n.halves(m, fm, whole, p.theta)
	if leaf {
		n.x, n.y, n.kind = left, right, leafHalves
		return
	}
	n.x, n.y, n.kind = m, fm, spawn
}

func (s *quadSpace) Root() quadNode {
	p := s.p
	r := quadNode{interval: interval{p.a, p.b, p.fa, p.fb, 0}}
	s.judge(&r)
	return r
}

// Child returns [a,m] (c = 0) or [m,b] (c = 1) of an interval that spawns.
func (s *quadSpace) Child(n quadNode, c int) (quadNode, int, bool) {
	if n.kind != spawn || c > 1 {
		return quadNode{}, 0, false
	}
	var k quadNode
	if c == 0 {
		k.interval = interval{n.a, n.x, n.fa, n.y, n.level + 1}
	} else {
		k.interval = interval{n.x, n.b, n.y, n.fb, n.level + 1}
	}
	s.judge(&k)
	return k, c + 1, true
}

// Children appends [a,m] and [m,b] of an interval that spawns, judged in
// place at the end of buf, field by field.
func (s *quadSpace) Children(n quadNode, buf []quadNode) []quadNode {
	if n.kind != spawn {
		return buf
	}
	k := len(buf)
	buf = slices.Grow(buf, 2)[:k+2]
	l, r := &buf[k], &buf[k+1]
	l.a, l.b, l.fa, l.fb, l.level = n.a, n.x, n.fa, n.y, n.level+1
	r.a, r.b, r.fa, r.fb, r.level = n.x, n.b, n.y, n.fb, n.level+1
	s.judge(l)
	s.judge(r)
	return buf
}

// AppendNode appends the interval as App's tasks encode it.
func (s *quadSpace) AppendNode(b []byte, n quadNode) []byte { return n.AppendBinary(b) }

// DecodeNode decodes an interval as App.Unmarshal does (f at its ends
// evaluated again) and judges it.
func (s *quadSpace) DecodeNode(b []byte) (quadNode, []byte, error) {
	iv, k, err := s.p.decodeInterval(b)
	if err != nil {
		return quadNode{}, nil, fmt.Errorf("quad: %w", err)
	}
	n := quadNode{interval: iv}
	s.judge(&n)
	return n, b[k:], nil
}

// foldNode adds node n to r as App.expand counts it: a node, its level,
// and for a leaf its value's terms and its hash.
func foldNode(r *Result, n *quadNode) {
	r.Nodes++
	r.Height = max(r.Height, int64(n.level))
	switch n.kind {
	case leafWhole:
		r.Sum.Add(n.x)
	case leafHalves:
		r.Sum.Add(n.x)
		r.Sum.Add(n.y)
	default:
		return
	}
	r.Leaves++
	r.Digest += LeafHash(n.a, n.b)
}

// skeletonQuad is the enumeration of p's intervals whose value is the
// integration's Result, folded by value (Fold takes and returns a Result
// of 584 bytes); withChildren false hides the Space's Children (the
// skeleton then calls Child, one child at a time).
func skeletonQuad(p *Problem, withChildren bool) *skeleton.Enumeration[quadNode, Result] {
	var sp skeleton.Space[quadNode] = &quadSpace{p}
	if !withChildren {
		sp = childOnlyQuad{sp}
	}
	return &skeleton.Enumeration[quadNode, Result]{
		Space: sp,
		Fold: func(acc Result, n quadNode) Result {
			foldNode(&acc, &n)
			return acc
		},
		Combine: func(x, y Result) Result {
			x.merge(&y)
			return x
		},
	}
}

// pointerQuad is the same enumeration with the Result behind a pointer
// (the zero value nil is the empty Result): Fold adds a node to the
// accumulator in place instead of copying it in and out, and Combine
// returns a new Result.
func pointerQuad(p *Problem, withChildren bool) *skeleton.Enumeration[quadNode, *Result] {
	var sp skeleton.Space[quadNode] = &quadSpace{p}
	if !withChildren {
		sp = childOnlyQuad{sp}
	}
	return &skeleton.Enumeration[quadNode, *Result]{
		Space: sp,
		Fold: func(acc *Result, n quadNode) *Result {
			if acc == nil {
				acc = new(Result)
			}
			foldNode(acc, &n)
			return acc
		},
		Combine: func(x, y *Result) *Result {
			var r Result
			if x != nil {
				r = *x
			}
			if y != nil {
				r.merge(y)
			}
			return &r
		},
	}
}

// childOnlyQuad hides a Space's Children.
type childOnlyQuad struct{ skeleton.Space[quadNode] }

// sameResult reports how got differs from want (the hand-written
// search's): nodes, leaves, height, digest, the exact sum (its normalised
// encoding and its rounded value, bit for bit); Replayed is not compared
// (the skeleton's Space cannot count its decodings).
func sameResult(got, want Result) error {
	gs, _ := got.Sum.AppendBinary(nil)
	ws, _ := want.Sum.AppendBinary(nil)
	if got.Nodes != want.Nodes || got.Leaves != want.Leaves || got.Height != want.Height || got.Digest != want.Digest ||
		!bytes.Equal(gs, ws) || math.Float64bits(got.Value()) != math.Float64bits(want.Value()) {
		return fmt.Errorf("%d nodes, %d leaves, height %d, digest %x, value %v; the hand-written search %d, %d, %d, %x, %v",
			got.Nodes, got.Leaves, got.Height, got.Digest, got.Value(), want.Nodes, want.Leaves, want.Height, want.Digest, want.Value())
	}
	return nil
}

// skeletonCases are the problems on which the skeleton's search is
// checked against App's: exactCases (every named function under the
// absolute rule, random polynomials under both rules), a pole (the
// non-finite guard: TestNonFiniteIntegrand's 1/(x−¼)), and a random
// polynomial of degree 3 under the absolute rule whose tree reaches the
// resolution threshold θ_r (leaves valued A(a,b)).
func skeletonCases(t *testing.T) []exactCase {
	cs := exactCases(t)
	pole, err := New(func(x float64) float64 { return 1 / (x - 0.25) }, 0, 1, Options{ThetaA: 1e-10, ThetaR: 1e-10})
	if err != nil {
		t.Fatal(err)
	}
	deep, err := New(RandomPoly(10).Eval, 0, 1, Options{ThetaA: 1e-12, ThetaR: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	return append(cs, exactCase{name: "pole", p: pole}, exactCase{name: "poly10-resolution", p: deep})
}

// TestSkeletonCounts: the skeleton's search counts the nodes, leaves,
// height, digest and exact sum that App counts, with Fold by value and by
// pointer, through Children and through Child; and the Space's Children
// agree with its Child (skeleton.CheckChildren; not on the pole, whose NaN
// values are not equal to themselves).
func TestSkeletonCounts(t *testing.T) {
	var whole, halves bool // both kinds of leaf were seen
	for _, c := range skeletonCases(t) {
		want := c.p.Solve()
		if want.Nodes < 25 {
			t.Fatalf("%s: %d nodes: too small a test tree", c.name, want.Nodes)
		}
		for _, withChildren := range []bool{true, false} {
			got := skeletonQuad(c.p, withChildren).Sequential()
			if err := sameResult(got.Value, want); err != nil || got.Nodes != want.Nodes {
				t.Errorf("%s, children=%v: skeleton counted %d nodes: %v", c.name, withChildren, got.Nodes, err)
			}
		}
		for _, withChildren := range []bool{true, false} {
			got := pointerQuad(c.p, withChildren).Sequential()
			if err := sameResult(*got.Value, want); err != nil || got.Nodes != want.Nodes {
				t.Errorf("%s, pointer, children=%v: skeleton counted %d nodes: %v", c.name, withChildren, got.Nodes, err)
			}
		}
		if c.name == "pole" {
			if want.Finite() {
				t.Errorf("pole: a finite integral %v", want.Value())
			}
			continue
		}
		sp := &quadSpace{c.p}
		if err := skeleton.CheckChildren[quadNode](sp, 1<<14); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		e := &skeleton.Enumeration[quadNode, [3]int64]{Space: sp, Combine: func(x, y [3]int64) [3]int64 {
			return [3]int64{x[0] + y[0], x[1] + y[1], x[2] + y[2]}
		}, Value: func(n quadNode) (v [3]int64) {
			v[n.kind] = 1
			return v
		}}
		kinds := e.Sequential().Value
		whole = whole || kinds[leafWhole] > 0
		halves = halves || kinds[leafHalves] > 0
	}
	if !whole || !halves {
		t.Errorf("the cases have leaves valued A(a,b): %v, A(a,m)+A(m,b): %v; want both", whole, halves)
	}
}

// TestSkeletonApp: the skeleton's integration tasks keep lb.Task's
// promises (lbtest.TestApp), exhaustively, on two of TestTaskContract's
// problems. A Work visits a node's two children together, and a split's
// owed and fresh nodes (up to the tree's height) at once.
func TestSkeletonApp(t *testing.T) {
	osc, err := LookupFunc("osc")
	if err != nil {
		t.Fatal(err)
	}
	problems := map[string]func() (*Problem, error){
		"osc": func() (*Problem, error) {
			return New(osc.F, 0, 1, Options{ThetaA: 1e-9, ThetaR: SeedThetaR})
		},
		"poly7-relative": func() (*Problem, error) {
			return New(RandomPoly(7).Eval, 0, 1, Options{ThetaA: 1e-9, ThetaR: SeedThetaR, Rule: Relative})
		},
	}
	for name, mk := range problems {
		t.Run(name, func(t *testing.T) {
			p, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			h := p.Solve().Height
			lbtest.TestApp(t, func() lb.App { return skeletonQuad(p, true).NewApp() },
				lbtest.AppOptions{Exhaustive: true, Overshoot: 2 + h, Result: lbtest.SameResult(func(w, p skeleton.Count[Result]) bool { return w.Nodes == p.Nodes && sameQuad(w.Value, p.Value) })})
		})
	}
}

// TestSkeletonParallel: the skeleton's integration on every balancer
// variant and rank count of lbtest.EachVariant, on the simulated network
// (sim.New), gives the sequential tree and integral, bit for bit, with
// the Result folded by value and by pointer.
func TestSkeletonParallel(t *testing.T) {
	var c exactCase
	for _, x := range exactCases(t) {
		if x.name == "poly1-relative" {
			c = x
		}
	}
	if c.p == nil {
		t.Fatal("no poly1-relative case")
	}
	want := c.p.Solve()
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, ranks int) {
		w, err := sim.New(ranks, sim.Config{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		e := skeletonQuad(c.p, true)
		got, out, err := lb.Run(w, v.Config(20, 3), e.NewApp)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameResult(got.Value, want); err != nil || got.Nodes != want.Nodes || out.Total.Nodes != want.Nodes {
			t.Errorf("by value: %d nodes (balancer %d): %v", got.Nodes, out.Total.Nodes, err)
		}
		w, err = sim.New(ranks, sim.Config{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		gp, out, err := lb.Run(w, v.Config(20, 4), pointerQuad(c.p, true).NewApp)
		if err != nil {
			t.Fatal(err)
		}
		if gp.Value == nil {
			t.Fatal("by pointer: no result")
		}
		if err := sameResult(*gp.Value, want); err != nil || gp.Nodes != want.Nodes || out.Total.Nodes != want.Nodes {
			t.Errorf("by pointer: %d nodes (balancer %d): %v", gp.Nodes, out.Total.Nodes, err)
		}
	})
}

// skeletonApps are the implementations of one search that
// BenchmarkSkeletonRatio compares: the skeleton's enumeration with
// Children and the Result folded by value (skeletonQuad), by pointer
// (pointerQuad), by pointer without Children (Child, a child a call), and
// App, the Task written by hand.
var skeletonApps = []struct {
	name string
	app  func(p *Problem) lb.App
}{
	{"skeleton", func(p *Problem) lb.App { return skeletonQuad(p, true).NewApp() }},
	{"pointer", func(p *Problem) lb.App { return pointerQuad(p, true).NewApp() }},
	{"child", func(p *Problem) lb.App { return pointerQuad(p, false).NewApp() }},
	{"hand", func(p *Problem) lb.App { return NewApp(p) }},
}

// searchApp works app's root to its end in slices of 4096 nodes, as a
// balancer's rank works them, and returns its result's nodes (-1 when the
// skeleton's count and its Result's differ).
func searchApp(app lb.App) int64 {
	benchratio.Work(app)
	switch a := app.(type) {
	case *App:
		return a.Result().Nodes
	case lb.Reducer[skeleton.Count[Result]]:
		if r := a.Result(); r.Nodes == r.Value.Nodes {
			return r.Nodes
		}
	case lb.Reducer[skeleton.Count[*Result]]:
		if r := a.Result(); r.Value != nil && r.Nodes == r.Value.Nodes {
			return r.Nodes
		}
	default:
		panic(fmt.Sprintf("searchApp: %T", app))
	}
	return -1
}

// ratioProblems are BenchmarkSkeletonRatio's integrations.
func ratioProblems(b *testing.B) []struct {
	name string
	p    *Problem
} {
	osc, err := LookupFunc("osc")
	if err != nil {
		b.Fatal(err)
	}
	poly1, err := New(RandomPoly(1).Eval, 0, 1, Options{ThetaA: 1e-18, ThetaR: SeedThetaR, Rule: Relative})
	if err != nil {
		b.Fatal(err)
	}
	oscP, err := New(osc.F, 0, 1, Options{ThetaA: 1e-17, ThetaR: 1e-18})
	if err != nil {
		b.Fatal(err)
	}
	return []struct {
		name string
		p    *Problem
	}{{"poly1", poly1}, {"osc", oscP}}
}

// BenchmarkSkeletonSearch measures each implementation of skeletonApps
// alone (for a profile of one): wall ns/node on BenchmarkSkeletonRatio's
// integrations.
func BenchmarkSkeletonSearch(b *testing.B) {
	for _, c := range ratioProblems(b) {
		for _, a := range skeletonApps {
			b.Run(c.name+"/"+a.name, func(b *testing.B) {
				var nodes int64
				for b.Loop() {
					nodes += searchApp(a.app(c.p))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(nodes), "ns/node")
			})
		}
	}
}

// BenchmarkSkeletonRatio measures the generality cost of package skeleton
// on integrate, as skeleton's BenchmarkQueensRatio does on N-queens and
// uts/tree's BenchmarkSkeletonRatio on UTS: on two integrations of a few
// million nodes, every iteration runs every implementation of
// skeletonApps in turn (in reverse order every other iteration), checks
// each run's node count, and the benchmark reports the CPU time per node
// of each (process CPU time, less disturbed than wall time on a shared
// machine) and the ratios to hand's: ratio is skeleton/hand,
// pointer-ratio pointer/hand, child-ratio child/hand. The integrations:
//
//   - poly1: the random polynomial of seed 1 (degree 57: the command's
//     default `integrate poly`; a node evaluates 57 factors), under the
//     relative rule with θ_a = 10⁻¹⁸, θ_r = 10⁻¹⁰: 3 380 905 nodes;
//   - osc: x·sin(30x) under the absolute rule, θ_a = 10⁻¹⁷, θ_r = 10⁻¹⁸
//     (results/scaling's integrate instance): 3 242 811 nodes.
func BenchmarkSkeletonRatio(b *testing.B) {
	for _, c := range ratioProblems(b) {
		b.Run(c.name, func(b *testing.B) {
			p := c.p
			want := p.Solve().Nodes
			names := make([]string, len(skeletonApps))
			for j, a := range skeletonApps {
				names[j] = a.name
			}
			ns := benchratio.Alternate(b, names, func(j int) int64 {
				n := searchApp(skeletonApps[j].app(p))
				if n != want {
					b.Fatalf("%s on %s: %d nodes, not %d", skeletonApps[j].name, c.name, n, want)
				}
				return n
			})
			b.ReportMetric(ns["skeleton"]/ns["hand"], "ratio")
			b.ReportMetric(ns["pointer"]/ns["hand"], "pointer-ratio")
			b.ReportMetric(ns["child"]/ns["hand"], "child-ratio")
		})
	}
}
