// Package quad integrates a function over an interval with the adaptive
// trapezoid rule of seed 003 §4.2, written as a tree-shaped computation for
// package lb, and supplies its integrands: the random squared polynomials
// of the seed's second experiment and a few named test functions with known
// integrals.
//
// A node of the tree is an interval [a, b] with m = a + ½(b−a) and the
// trapezoids A(a,b) = ½(b−a)(f(a)+f(b)). It is a leaf when
//
//   - ½(b−a) < θ_r (the resolution threshold; its value is A(a,b)), or
//   - |A(a,m) + A(m,b) − A(a,b)| < θ (the accuracy test; its value is
//     A(a,m) + A(m,b)),
//
// and otherwise it spawns [a,m] and [m,b]. The integral is the sum of the
// leaves' values. Under the Absolute rule (the seed's, the default) θ is
// θ_a; under the Relative rule θ is θ_a·S, where S estimates ∫|f| (see
// New). The seed returns A(a,b) at an accuracy leaf; we return the
// finer A(a,m)+A(m,b), already computed: the tree and its node count are
// the same, the value is more accurate (its error is about a third of the
// difference tested, where A(a,b)'s is about four thirds).
//
// Two guards keep the tree finite whatever the integrand: a node whose
// midpoint rounds onto a or b (no float64 lies strictly between) is a leaf
// valued A(a,b), and a node where f(m), a trapezoid or the difference is
// not finite is a leaf valued A(a,m)+A(m,b): a non-finite f(m) then makes
// the integral non-finite (Result.Finite reports it) instead of refining
// forever around a pole.
//
// Every decision depends only on the interval, so the tree — its nodes,
// leaves and height — is the same whichever rank expands which node. The
// leaves' values are added into an exact accumulator (Sum), so the integral
// is bit-identical too, whatever the number of ranks, the schedule or the
// shape of the reduction tree: tests compare integrals across schedules
// with tolerance zero. Against the exact integral the tests allow
// Leaves·θ (an accuracy leaf's error is about a third of its difference,
// below θ) plus 16·2^−53·(S + |exact|), S ≥ ∫|f|, for the rounding of the
// leaves' values; the errors measured stay below 0.16·Leaves·θ.
package quad

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
	"github.com/treelb/treelb/cert"
	"github.com/treelb/treelb/internal/wire"
)

// Rule says how the accuracy test's threshold is set.
type Rule int

const (
	// Absolute halts a node when the halves differ from the whole by less
	// than θ_a: seed 003's rule. For a random polynomial of large degree
	// the whole integral is far below any usual θ_a, and the tree is its
	// root alone.
	Absolute Rule = iota
	// Relative halts a node when the halves differ from the whole by less
	// than θ_a·S, with S an estimate of ∫|f| over the interval: the seed's
	// rule made invariant to the integrand's scale (multiplying f by a
	// power of two leaves the tree unchanged).
	Relative
)

// String returns "absolute" or "relative".
func (r Rule) String() string {
	switch r {
	case Absolute:
		return "absolute"
	case Relative:
		return "relative"
	}
	return fmt.Sprintf("Rule(%d)", int(r))
}

// ParseRule returns the Rule named by its String.
func ParseRule(s string) (Rule, error) {
	for _, r := range []Rule{Absolute, Relative} {
		if s == r.String() {
			return r, nil
		}
	}
	return 0, fmt.Errorf("quad: tolerance rule %q: want absolute or relative", s)
}

// SeedThetaR is the seed's resolution threshold θ_r = 10^−10 (§4.2).
const SeedThetaR = 1e-10

// SeedThetaA returns the seed's accuracy thresholds θ_a (§4.2), a new
// slice on every call: 10^−6, 10^−8 and 10^−10 (the last is the one of its
// time series, Figs. 7 and 8).
func SeedThetaA() []float64 { return []float64{1e-6, 1e-8, 1e-10} }

// scalePanels is the number of panels of the composite trapezoid rule that
// estimates S = ∫|f| for the Relative rule.
const scalePanels = 1024

// MaxLevel bounds the levels in a decoded task: every level halves the
// interval, and a finite float64 interval can be halved about 2100 times
// before no float64 lies inside it.
const MaxLevel = 4096

// Options are the thresholds of the trapezoid rule.
type Options struct {
	ThetaA float64 // accuracy threshold θ_a > 0 (relative to S under Relative)
	ThetaR float64 // resolution threshold θ_r > 0: no node narrower than 2θ_r spawns
	Rule   Rule
}

// Problem is an integration: the integrand, the interval and the
// thresholds. It is immutable once made and safe for concurrent use if f
// is; the ranks may share one Problem, each with its own App.
type Problem struct {
	f      func(float64) float64
	a, b   float64
	opt    Options
	theta  float64 // the accuracy test's threshold: θ_a, or θ_a·S
	scale  float64 // S under Relative, 1 under Absolute
	fa, fb float64
}

// New returns the integration of f over [a, b]. It checks that a < b are
// finite with a finite width, that θ_a and θ_r are positive and finite,
// and that f is finite at both ends. Under Relative it also estimates
// S = ∫ₐᵇ|f| with a 1024-panel composite trapezoid rule (the same on every
// rank); if S is 0 the threshold is the smallest positive float64, so that
// only a zero difference halts a node.
func New(f func(float64) float64, a, b float64, o Options) (*Problem, error) {
	switch {
	case math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0):
		return nil, fmt.Errorf("quad: interval [%v, %v] is not finite", a, b)
	case a >= b:
		return nil, fmt.Errorf("quad: interval [%v, %v] is empty: need a < b", a, b)
	case math.IsInf(b-a, 0):
		return nil, fmt.Errorf("quad: interval [%v, %v] is wider than the largest float64", a, b)
	case !(o.ThetaA > 0) || math.IsInf(o.ThetaA, 0):
		return nil, fmt.Errorf("quad: accuracy threshold θ_a = %v: need a finite θ_a > 0", o.ThetaA)
	case !(o.ThetaR > 0) || math.IsInf(o.ThetaR, 0):
		return nil, fmt.Errorf("quad: resolution threshold θ_r = %v: need a finite θ_r > 0", o.ThetaR)
	case o.Rule != Absolute && o.Rule != Relative:
		return nil, fmt.Errorf("quad: unknown tolerance rule %v", o.Rule)
	}
	p := &Problem{f: f, a: a, b: b, opt: o, theta: o.ThetaA, scale: 1, fa: f(a), fb: f(b)}
	if !finite(p.fa) || !finite(p.fb) {
		return nil, fmt.Errorf("quad: integrand is not finite at the ends: f(%v) = %v, f(%v) = %v", a, p.fa, b, p.fb)
	}
	if o.Rule == Relative {
		p.scale = absTrapezoid(f, a, b, scalePanels)
		if !finite(p.scale) {
			return nil, fmt.Errorf("quad: relative rule: estimate of ∫|f| over [%v, %v] is %v", a, b, p.scale)
		}
		p.theta = o.ThetaA * p.scale
		if p.theta == 0 {
			p.theta = math.SmallestNonzeroFloat64
		}
	}
	return p, nil
}

// absTrapezoid returns the composite trapezoid rule for |f| over [a, b]
// with n panels, summed exactly.
func absTrapezoid(f func(float64) float64, a, b float64, n int) float64 {
	w := (b - a) / float64(n)
	var s Sum
	prev := math.Abs(f(a))
	for i := 1; i <= n; i++ {
		x := b
		if i < n {
			x = a + float64(w*float64(i))
		}
		cur := math.Abs(f(x))
		s.Add(float64(w*prev) * 0.5)
		s.Add(float64(w*cur) * 0.5)
		prev = cur
	}
	return s.Value()
}

// Interval returns the ends of the interval.
func (p *Problem) Interval() (a, b float64) { return p.a, p.b }

// Options returns the thresholds the problem was made with.
func (p *Problem) Options() Options { return p.opt }

// Threshold returns the threshold of the accuracy test: θ_a under
// Absolute, θ_a·S under Relative.
func (p *Problem) Threshold() float64 { return p.theta }

// Scale returns S, the estimate of ∫|f| that the Relative rule scales θ_a
// by (1 under Absolute).
func (p *Problem) Scale() float64 { return p.scale }

// Solve integrates on one core, the sequential baseline: one task worked
// until it is empty.
func (p *Problem) Solve() Result {
	app := NewApp(p)
	nodestack.Drain(app.root())
	return app.Result()
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Result is the outcome of an integration, or one rank's part of it.
type Result struct {
	Nodes  int64 // intervals evaluated
	Leaves int64 // intervals that halted (Nodes = 2·Leaves − 1 for a whole tree)
	Height int64 // the deepest level evaluated; the root is level 0
	Sum    Sum   // the leaves' values, summed exactly
	// Digest is the sum modulo 2^64 of the leaves' hashes (LeafHash of
	// their ends): with the counts it certifies the tree (package cert),
	// whichever rank evaluated which interval.
	Digest uint64
	// Replayed counts the intervals decoded from tasks that travelled,
	// whose ends f is evaluated at again, and those a fresh task's split
	// evaluated in place (nodestack.Task), which the part keeping them
	// evaluates again: overhead of the balancing, never in Nodes.
	Replayed int64
}

// LeafHash is the hash of a leaf [a, b] that Result.Digest adds: the bits
// of its ends, mixed.
func LeafHash(a, b float64) uint64 {
	return cert.Mix(cert.Mix(math.Float64bits(a)) ^ math.Float64bits(b))
}

// Value returns the integral: the exact sum of the leaves' values rounded
// once to the nearest float64.
func (r *Result) Value() float64 { return r.Sum.Value() }

// Finite reports whether every leaf's value was finite.
func (r *Result) Finite() bool { return r.Sum.Finite() }

// MarshalBinary encodes r: a wire tally of 40 bytes (nodes, leaves,
// height, replayed, digest), then the sum (Sum.AppendBinary), the encoding
// lb's reductions and checkpoints use.
func (r Result) MarshalBinary() ([]byte, error) {
	b, err := wire.AppendTally(make([]byte, 0, 64), r.Digest, r.Nodes, r.Leaves, r.Height, r.Replayed)
	if err != nil {
		return nil, fmt.Errorf("quad: result: %w", err)
	}
	return r.Sum.AppendBinary(b)
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (r *Result) UnmarshalBinary(b []byte) error {
	var v Result
	rest, err := wire.TallyPrefix(b, &v.Digest, &v.Nodes, &v.Leaves, &v.Height, &v.Replayed)
	if err != nil {
		return fmt.Errorf("quad: malformed result: %w", err)
	}
	if err := v.Sum.UnmarshalBinary(rest); err != nil {
		return err
	}
	*r = v
	return nil
}

// merge adds o's counts and sum to r; the height is the larger.
func (r *Result) merge(o *Result) {
	r.Nodes += o.Nodes
	r.Leaves += o.Leaves
	r.Height = max(r.Height, o.Height)
	r.Sum.Merge(&o.Sum)
	r.Digest += o.Digest
	r.Replayed += o.Replayed
}

// interval is an open node: an interval, f at its ends, its level.
type interval struct {
	a, b, fa, fb float64
	level        int32
}

// Level returns the interval's level; the root is level 0.
func (iv interval) Level() int { return int(iv.level) }

// AppendBinary appends the ends (8 bytes each, IEEE 754 little-endian) and
// the level (uvarint); f at the ends is recomputed when decoded.
func (iv interval) AppendBinary(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(iv.a))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(iv.b))
	return binary.AppendUvarint(b, uint64(iv.level))
}

// intervalMin is the fewest bytes an encoded interval takes.
const intervalMin = 8 + 8 + 1

// decodeInterval decodes an interval of p from the front of b: non-empty,
// inside p's interval, at a level up to MaxLevel.
func (p *Problem) decodeInterval(b []byte) (interval, int, error) {
	if len(b) < 16 {
		return interval{}, 0, errors.New("cut short")
	}
	lo := math.Float64frombits(binary.LittleEndian.Uint64(b))
	hi := math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))
	level, k := binary.Uvarint(b[16:])
	if k <= 0 || level > MaxLevel {
		return interval{}, 0, errors.New("bad level")
	}
	if !(p.a <= lo && lo < hi && hi <= p.b) {
		return interval{}, 0, fmt.Errorf("[%v, %v] not inside [%v, %v]", lo, hi, p.a, p.b)
	}
	return interval{lo, hi, p.f(lo), p.f(hi), int32(level)}, 16 + k, nil
}

// bisect is the first half of the trapezoid rule at iv, before f(m): it
// returns the midpoint m and A(a,b), and whether iv is a leaf valued
// A(a,b) (narrower than 2θ_r, or no float64 strictly inside, or at
// MaxLevel: no search gets there, but a decoded task may start close to
// it, and its children must decode too).
func (iv *interval) bisect(thetaR float64) (m, whole float64, leaf bool) {
	w := iv.b - iv.a
	whole = float64(w*(iv.fa+iv.fb)) * 0.5
	m = iv.a + 0.5*w
	return m, whole, 0.5*w < thetaR || !(iv.a < m && m < iv.b) || iv.level >= MaxLevel
}

// halves is the second half of the trapezoid rule at iv, given m, fm =
// f(m) and whole = A(a,b) from bisect: it returns A(a,m) and A(m,b), and
// whether iv is a leaf valued their sum (the accuracy test with threshold
// theta, or a NaN or an infinity somewhere); otherwise [a,m] and [m,b]
// are its children.
func (iv *interval) halves(m, fm, whole, theta float64) (left, right float64, leaf bool) {
	left = float64((m-iv.a)*(iv.fa+fm)) * 0.5
	right = float64((iv.b-m)*(fm+iv.fb)) * 0.5
	d := math.Abs(float64(left+right) - whole)
	return left, right, d < theta || !(d <= math.MaxFloat64) // close enough, or NaN or Inf somewhere
}

// spawn returns the halves of iv, [m,b] then [a,m] as expand pushes them,
// or nil when iv is a leaf (nodestack.Spawn): expand's evaluation, with
// nothing counted.
func (p *Problem) spawn(iv interval) []interval {
	m, whole, leaf := iv.bisect(p.opt.ThetaR)
	if leaf {
		return nil
	}
	fm := p.f(m)
	if _, _, leaf := iv.halves(m, fm, whole, p.theta); leaf {
		return nil
	}
	return []interval{{m, iv.b, fm, iv.fb, iv.level + 1}, {iv.a, m, iv.fa, fm, iv.level + 1}}
}

// expand is the App's expansion step (nodestack.Expand): it evaluates up
// to budget intervals from the end of st, depth first and left to right,
// pushing the halves of those that spawn, and returns the stack and how
// many it evaluated. Once the stack has grown to the tree's depth it
// allocates nothing. bisect, f and halves evaluate a node.
func (a *App) expand(st []interval, budget int64) ([]interval, int64) {
	p := a.p
	f, theta, thetaR := p.f, p.theta, p.opt.ThetaR
	res := &a.res
	sum := &res.Sum
	var nodes, leaves int64
	var digest uint64
	height := res.Height
	for nodes < budget && len(st) > 0 {
		iv := st[len(st)-1]
		st = st[:len(st)-1]
		nodes++
		height = max(height, int64(iv.level))
		m, whole, leaf := iv.bisect(thetaR)
		if leaf {
			sum.Add(whole)
			leaves++
			digest += LeafHash(iv.a, iv.b)
			continue
		}
		fm := f(m)
		left, right, leaf := iv.halves(m, fm, whole, theta)
		if leaf {
			sum.Add(left)
			sum.Add(right)
			leaves++
			digest += LeafHash(iv.a, iv.b)
			continue
		}
		st = append(st, interval{m, iv.b, fm, iv.fb, iv.level + 1}, interval{iv.a, m, iv.fa, fm, iv.level + 1})
	}
	res.Nodes += nodes
	res.Leaves += leaves
	res.Digest += digest
	res.Height = height
	return st, nodes
}
