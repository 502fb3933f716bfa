// Package lbtest checks lb.App implementations and holds what the tests of
// lb, its drivers and the apps share. TestApp (CheckApp for a report
// instead of a test failure), as testing/fstest.TestFS checks a file
// system, checks an app's tasks: Work's bounds, splits disjoint and
// covering wherever they are made and whichever rank works the parts,
// halving of fresh tasks, encodings that round-trip, Halve equal to Split;
// an app's own tests call it (docs/writing-an-app.md). The rest:
// Tree, a seeded synthetic tree-shaped computation with an exhaustive, a
// branch-and-bound and a first-solution mode; Variants, the balancers and
// option variants every conformance test runs, with World and Range; the
// resume chains (ResumeChain, ResumeVariants); FuzzCanonicalEncoding; and
// LargeP, the balancers on 1024 and 4096 simulated ranks for the apps'
// scale tests.
package lbtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/treelb/treelb/lb"
)

// Mode says what a Tree searches for.
type Mode int

// The modes of a Tree.
const (
	Count Mode = iota // visit every node (exhaustive)
	Bound             // the minimum leaf value, by branch-and-bound
	First             // stop at the first leaf whose value is divisible by 1000
)

// Tree is one rank's view of a seeded random tree explored depth first. It
// implements lb.Reducer[TreeResult], lb.Bounded and lb.Stopper; make one with
// NewTree. It is not safe for concurrent use.
type Tree struct {
	seed   uint64
	depth  int
	mode   Mode
	nodes  int64
	digest uint64 // the sum of the leaves' hashes
	best   int64
	found  int64 // First: a value divisible by 1000, or -1
	solved bool
	sols   *[]int64 // Solutions: where Count mode collects the leaf values divisible by 1000
}

// TreeResult is what a search of a Tree found.
type TreeResult struct {
	Nodes int64 // nodes expanded
	// Digest is the sum modulo 2^64 of the hashes of the leaves expanded:
	// in Count mode, the certificate of the tree with Nodes (package
	// cert), the same however the search was split.
	Digest uint64
	Best   int64 // Bound: the minimum leaf value; math.MaxInt64 otherwise
	Found  int64 // First: a leaf value divisible by 1000, -1 if none
}

// NewTree returns one rank's view of the tree of seed with leaves at the
// given depth, searched in mode.
func NewTree(seed uint64, depth int, mode Mode) *Tree {
	return &Tree{seed: seed, depth: depth, mode: mode, best: noBest, found: -1}
}

const noBest = 1<<63 - 1

// Sequential searches the tree on one rank with no balancer.
func Sequential(seed uint64, depth int, mode Mode) TreeResult {
	a := NewTree(seed, depth, mode)
	t := a.Root()
	for !t.Empty() {
		t.Work(1 << 40)
	}
	return a.Result()
}

// Solutions returns the values, sorted and each once, of the leaves of the
// tree of seed with leaves at depth that a First search may stop at: any
// correct first-solution search of it finds one of them. It walks the whole
// tree.
func Solutions(seed uint64, depth int) []int64 {
	var sols []int64
	a := NewTree(seed, depth, Count)
	a.sols = &sols
	t := a.Root()
	for !t.Empty() {
		t.Work(1 << 40)
	}
	slices.Sort(sols)
	return slices.Compact(sols)
}

// Nodes returns the nodes expanded on this rank so far.
func (a *Tree) Nodes() int64 { return a.nodes }

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

type treeNode struct {
	id    uint64
	depth int32
	lb    int32 // lower bound of leaf values below
}

type treeTask struct {
	app   *Tree
	stack []treeNode
}

// Root returns the whole tree: a forest of 16 roots, so that fast
// initialisation has pieces to split.
func (a *Tree) Root() lb.Task {
	t := &treeTask{app: a}
	for i := range uint64(16) {
		t.stack = append(t.stack, treeNode{id: mix(a.seed*31 + i)})
	}
	return t
}

func (t *treeTask) Work(budget int64) int64 {
	a := t.app
	var n int64
	for n < budget && len(t.stack) > 0 && !a.solved {
		v := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		if a.mode == Bound && 1000*int64(v.lb) >= a.best {
			continue // pruned: not a node
		}
		n++
		a.nodes++
		h := mix(v.id)
		kids := int(h % 4)
		if v.depth < 6 {
			kids = 2 + int(h%2)
		}
		if int(v.depth) >= a.depth {
			kids = 0
		}
		if kids == 0 {
			a.digest += h
			// Path costs only grow, so 1000·lb bounds every leaf below.
			val := 1000*int64(v.lb) + int64(h>>40)%1000
			if a.mode == Bound && val < a.best {
				a.best = val
			}
			if a.mode == First && val%1000 == 0 {
				a.found, a.solved = val, true
			}
			if a.sols != nil && val%1000 == 0 {
				*a.sols = append(*a.sols, val)
			}
			continue
		}
		for i := kids - 1; i >= 0; i-- {
			c := mix(v.id + uint64(i) + 1)
			t.stack = append(t.stack, treeNode{id: c, depth: v.depth + 1, lb: v.lb + int32(c%7)})
		}
	}
	return n
}

func (t *treeTask) Empty() bool { return len(t.stack) == 0 || t.app.solved }

// Split gives away every other entry from the bottom (shallowest) half of
// the stack.
func (t *treeTask) Split() lb.Task {
	if len(t.stack) < 2 {
		return nil
	}
	o := &treeTask{app: t.app}
	keep := t.stack[:0:0]
	half := (len(t.stack) + 1) / 2
	for i, v := range t.stack {
		if i < half && i%2 == 0 {
			o.stack = append(o.stack, v)
		} else {
			keep = append(keep, v)
		}
	}
	t.stack = keep
	return o
}

func (t *treeTask) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(t.stack)))
	for _, v := range t.stack {
		b = binary.LittleEndian.AppendUint64(b, v.id)
		b = binary.AppendUvarint(b, uint64(v.depth))
		b = binary.AppendUvarint(b, uint64(v.lb))
	}
	return b, nil
}

// Unmarshal decodes a task of any rank's Tree.
func (a *Tree) Unmarshal(b []byte) (lb.Task, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errors.New("tree: bad task")
	}
	b = b[k:]
	t := &treeTask{app: a}
	for range n {
		if len(b) < 8 {
			return nil, errors.New("tree: short task")
		}
		v := treeNode{id: binary.LittleEndian.Uint64(b)}
		b = b[8:]
		d, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, errors.New("tree: bad node")
		}
		l, k2 := binary.Uvarint(b[k1:])
		if k2 <= 0 {
			return nil, errors.New("tree: bad node")
		}
		b = b[k1+k2:]
		if d > uint64(a.depth) || l > math.MaxInt32 {
			return nil, fmt.Errorf("tree: a node at depth %d with bound %d in a tree of depth %d", d, l, a.depth)
		}
		v.depth, v.lb = int32(d), int32(l)
		t.stack = append(t.stack, v)
	}
	return t, nil
}

// Sense is lb.Minimize: lower leaf values are better.
func (a *Tree) Sense() lb.Sense { return lb.Minimize }

// Incumbent returns the best leaf value known here, in Bound mode.
func (a *Tree) Incumbent() (int64, bool) {
	return a.best, a.mode == Bound && a.best != noBest
}

// Improve learns of a leaf value found elsewhere.
func (a *Tree) Improve(v int64) { a.best = min(a.best, v) }

// Solved reports whether this rank found a leaf in First mode.
func (a *Tree) Solved() bool { return a.solved }

// Result returns what this rank found.
func (a *Tree) Result() TreeResult {
	return TreeResult{Nodes: a.nodes, Digest: a.digest, Best: a.best, Found: a.found}
}

// Combine sums the nodes and the digests and keeps the best and any found
// value.
func (a *Tree) Combine(x, y TreeResult) TreeResult {
	return TreeResult{Nodes: x.Nodes + y.Nodes, Digest: x.Digest + y.Digest, Best: min(x.Best, y.Best), Found: max(x.Found, y.Found)}
}

// Variant is a registered balancer with options, as the conformance tests
// run it.
type Variant struct {
	Name    string // the balancer's name, then "+" and the variant's
	Info    lb.Info
	Options lb.Options
	// MinBudget is lb.Config.MinBudget: positive for an adaptive Δt.
	MinBudget int64
}

// Variants returns every registered balancer with default options, and the
// option variants worth testing of each.
func Variants() []Variant {
	var vs []Variant
	for _, info := range lb.Balancers() {
		v := func(suffix string, o lb.Options) Variant {
			name := info.Name
			if suffix != "" {
				name += "+" + suffix
			}
			return Variant{Name: name, Info: info, Options: o}
		}
		vs = append(vs, v("", info.Options))
		switch info.Name {
		case "rp":
			adaptive := v("adaptive", info.Options)
			adaptive.MinBudget = 1 // every request cuts the slice to one node
			vs = append(vs, v("fastinit", lb.RPOptions{FastInit: true}), v("queue1", lb.RPOptions{QueueLimit: 1}),
				v("drain1", lb.RPOptions{Drain: true, QueueLimit: 1}), adaptive)
		case "rp-local":
			vs = append(vs, v("radius2", lb.RPLocalOptions{Radius: 2}), v("growth-ordered", lb.RPLocalOptions{Growth: 1.5, OrderedInit: true}))
		case "ps":
			vs = append(vs, v("pairsync", lb.PSOptions{PairSync: true}), v("asklower", lb.PSOptions{AskLower: true, PairSync: true}),
				v("shufflebelow", lb.PSOptions{ShuffleBelow: 0.5, FastInit: true}))
		case "static":
			vs = append(vs, v("lcg", lb.StaticOptions{Permutation: "lcg", Levels: 9}))
		case "hybrid":
			vs = append(vs, v("clusters3", lb.HybridOptions{Clusters: 3}))
		case "koso-star":
			vs = append(vs, v("fastinit", lb.KOSOOptions{FastInit: true}))
		}
	}
	return vs
}

// With returns the variant with its option called name set to value
// (lb.SetOption), unchanged when the balancer has no such option; it
// panics on a value that does not parse (a test's mistake).
func (v Variant) With(name, value string) Variant {
	v.Options = WithOption(v.Info, v.Options, name, value)
	return v
}

// WithOption returns o, options of the balancer info, with the option
// called name set to value, unchanged when the balancer has no such option
// (nil o stands for the balancer's defaults); it panics on a value that
// does not parse (a test's mistake).
func WithOption(info lb.Info, o lb.Options, name, value string) lb.Options {
	if o == nil {
		o = info.Options
	}
	if !lb.HasOption(o, name) {
		return o
	}
	o, err := lb.SetOption(o, name, value)
	if err != nil {
		panic(err)
	}
	return o
}

// Config returns the run configuration of the variant with the given
// budget and seed.
func (v Variant) Config(budget int64, seed uint64) lb.Config {
	return lb.Config{Balancer: v.Info.New, Options: v.Options, Budget: budget, MinBudget: v.MinBudget, Seed: seed}
}

// Check compares a parallel result with the sequential one of the same tree
// and mode (in Count mode the nodes and the digest of the leaves, the
// certificate of an exhaustive search), and the statistics' node count with
// the result's.
func Check(got TreeResult, out *lb.Outcome, seed uint64, depth int, mode Mode) error {
	want := Sequential(seed, depth, mode)
	switch mode {
	case Count:
		if got.Nodes != want.Nodes || out.Total.Nodes != want.Nodes || got.Digest != want.Digest {
			return fmt.Errorf("nodes %d (statistics %d), digest %#x; sequential %d, %#x", got.Nodes, out.Total.Nodes, got.Digest, want.Nodes, want.Digest)
		}
	case Bound:
		if got.Best != want.Best {
			return fmt.Errorf("best %d, sequential %d", got.Best, want.Best)
		}
	case First:
		if got.Found < 0 || got.Found%1000 != 0 {
			return fmt.Errorf("first-solution search found %d", got.Found)
		}
	}
	if out.Total.Nodes != got.Nodes {
		return fmt.Errorf("the statistics count %d nodes, the result %d", out.Total.Nodes, got.Nodes)
	}
	return CheckTimes(out)
}

// CheckTimes checks the times of out's statistics, in total and of each
// rank it has: none negative, and the idle time before the first work
// slice and after the last (Stats.IdleStartSeconds, IdleEndSeconds) parts
// of the idle time; a rank that never worked was idle at the start all
// along.
func CheckTimes(out *lb.Outcome) error {
	check := func(name string, s *lb.Stats) error {
		slack := 1e-9 * (s.IdleSeconds + 1)
		switch {
		case s.WorkSeconds < 0 || s.IdleSeconds < 0 || s.IdleStartSeconds < 0 || s.IdleEndSeconds < 0,
			s.IdleStartSeconds+s.IdleEndSeconds > s.IdleSeconds+slack,
			s.Slices == 0 && (s.IdleEndSeconds != 0 || math.Abs(s.IdleStartSeconds-s.IdleSeconds) > slack):
			return fmt.Errorf("%s: %d slices, work %g s, idle %g s of which %g s before the first slice and %g s after the last",
				name, s.Slices, s.WorkSeconds, s.IdleSeconds, s.IdleStartSeconds, s.IdleEndSeconds)
		}
		return nil
	}
	if err := check("all ranks", &out.Total); err != nil {
		return err
	}
	for i := range out.Ranks {
		if err := check(fmt.Sprintf("rank %d", out.Ranks[i].Rank), &out.Ranks[i]); err != nil {
			return err
		}
	}
	return nil
}

// DueAfter returns a Config.CheckpointDue that fires at its k-th poll: a
// checkpoint at a moment chosen by k, deterministic in the simulator.
func DueAfter(k int) func() bool {
	polls := 0
	return func() bool {
		polls++
		return polls >= k
	}
}
