package alphatree

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

func solve(t *testing.T, alpha float64, seed uint64) Result {
	t.Helper()
	p, err := New(alpha, seed)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Solve()
	if r.Nodes != 2*r.Leaves-1 || r.Nodes < 3 {
		t.Fatalf("α=%v seed %d: %d nodes, %d leaves: not a full binary tree with a spawning root", alpha, seed, r.Nodes, r.Leaves)
	}
	return r
}

// TestGolden pins a few trees of the seed's α bit for bit: the same on
// every machine.
func TestGolden(t *testing.T) {
	for _, g := range []struct {
		alpha                 float64
		seed                  uint64
		nodes, leaves, height int64
		digest                uint64
	}{
		{0.96, 1, 4269, 2135, 36, 0x2295d0b1c193f0f},
		{0.96, 2, 7493, 3747, 33, 0xebdf35f537d7186},
		{0.965, 1, 9457, 4729, 40, 0x2a3f3600129499d},
		{0.97, 2, 61641, 30821, 44, 0x1d9c0cb9c5216a10},
	} {
		r := solve(t, g.alpha, g.seed)
		if r.Nodes != g.nodes || r.Leaves != g.leaves || r.Height != g.height || r.Digest != g.digest {
			t.Errorf("α=%v seed %d: %+v digest %#x; want %d nodes %d leaves height %d digest %#x",
				g.alpha, g.seed, r, r.Digest, g.nodes, g.leaves, g.height, g.digest)
		}
	}
}

// TestScheduleIndependence: node count, leaves, height and digest are the
// same when the tree is expanded by 1, 2, 7 or 16 ranks under random
// slices, splits and byte round trips, as by the sequential solver.
func TestScheduleIndependence(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		seed  uint64
	}{{0.96, 1}, {0.96, 2}, {0.965, 3}, {0.9, 11}} {
		want := solve(t, c.alpha, c.seed)
		p, _ := New(c.alpha, c.seed)
		for _, ranks := range []int{1, 2, 7, 16} {
			for seed := range uint64(3) {
				own := make([]*App, ranks)
				apps := make([]bagsched.App, ranks)
				for i := range own {
					own[i] = NewApp(p)
					apps[i] = own[i]
				}
				worked, err := bagsched.Run(seed, apps, []int{1, 5, 200}[seed])
				if err != nil {
					t.Fatalf("α=%v seed %d, %d ranks: %v", c.alpha, c.seed, ranks, err)
				}
				parts := make([]Result, ranks)
				for i, a := range own {
					parts[i] = a.Result()
				}
				if got := bagsched.Reduce(seed, parts, own[0].Combine); got != want || worked != want.Nodes {
					t.Errorf("α=%v seed %d, %d ranks, schedule %d: %+v (%d worked), sequential %+v",
						c.alpha, c.seed, ranks, seed, got, worked, want)
				}
			}
		}
	}
}

// TestSpawnProbability checks the rule itself: over many trees, the share
// of level-l nodes that spawn is α^l within five standard errors, and the
// root always spawns.
func TestSpawnProbability(t *testing.T) {
	const alpha = 0.9
	tried := make([]int, 40)
	spawned := make([]int, 40)
	for seed := range uint64(3000) {
		p, _ := New(alpha, seed)
		app := NewApp(p)
		open := []node{{p.rootHash(), 0}}
		for len(open) > 0 {
			n := open[len(open)-1]
			open = open[:len(open)-1]
			tried[n.level]++
			if uniform(n.hash) < app.power(int(n.level)) {
				spawned[n.level]++
				open = append(open, node{childHash(n.hash, 0), n.level + 1}, node{childHash(n.hash, 1), n.level + 1})
			}
		}
	}
	if spawned[0] != tried[0] {
		t.Errorf("the root spawned %d times in %d trees", spawned[0], tried[0])
	}
	checked := 0
	for l := 1; l < len(tried); l++ {
		if tried[l] < 500 {
			continue
		}
		q := math.Pow(alpha, float64(l))
		se := math.Sqrt(q * (1 - q) / float64(tried[l]))
		if got := float64(spawned[l]) / float64(tried[l]); math.Abs(got-q) > 5*se {
			t.Errorf("level %d: %d of %d spawned (%.4f), want α^l = %.4f ± %.4f", l, spawned[l], tried[l], got, q, 5*se)
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("only %d levels with enough nodes", checked)
	}
}

// TestExpectedNodes: the mean size of many trees agrees with ExpectedNodes
// within five standard errors; the digests of different seeds differ.
func TestExpectedNodes(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		trees uint64
	}{{0.9, 4000}, {0.95, 1000}, {0.96, 300}} {
		var sum, sq float64
		digests := map[uint64]bool{}
		for seed := range c.trees {
			r := solve(t, c.alpha, seed)
			x := float64(r.Nodes)
			sum += x
			sq += x * x
			digests[r.Digest] = true
		}
		n := float64(c.trees)
		mean := sum / n
		se := math.Sqrt((sq/n - mean*mean) / n)
		if want := ExpectedNodes(c.alpha); math.Abs(mean-want) > 5*se {
			t.Errorf("α=%v: mean %.1f nodes over %d trees, expected %.1f ± %.1f", c.alpha, mean, c.trees, want, 5*se)
		}
		if len(digests) != int(c.trees) {
			t.Errorf("α=%v: %d distinct digests in %d trees", c.alpha, len(digests), c.trees)
		}
	}
	// The sizes the package doc quotes for the seed's α.
	for i, a := range SeedAlphas() {
		if got, want := ExpectedNodes(a), []float64{6339, 15995, 54275}[i]; math.Abs(got-want) > 1 {
			t.Errorf("ExpectedNodes(%v) = %.1f, want %v", a, got, want)
		}
	}
	// Σ_l 2^l·α^(l(l−1)/2) in closed form for tiny α: 1 + 2 + 4α + O(α³).
	if got := ExpectedNodes(1e-6); math.Abs(got-(3+4e-6)) > 1e-9 {
		t.Errorf("ExpectedNodes(1e-6) = %v", got)
	}
	if !math.IsInf(ExpectedNodes(1), 1) {
		t.Error("ExpectedNodes(1) is finite")
	}
}

func TestValidation(t *testing.T) {
	for _, a := range []float64{0, 1, -0.5, 1.5, math.NaN(), math.Inf(1)} {
		if _, err := New(a, 1); err == nil || !strings.Contains(err.Error(), "0 < α < 1") {
			t.Errorf("New(%v) = %v", a, err)
		}
	}
	if _, err := New(math.Nextafter(1, 0), 1); err != nil {
		t.Error(err)
	}
}

// TestLevelAndSplit follows seed 003's step: expand the one node, split,
// and both parts hold one node at the next level. A fresh root splits at
// once, expanding its node in place and owing it.
func TestLevelAndSplit(t *testing.T) {
	p, _ := New(0.999, 5) // spawns at the first levels with high probability
	app := NewApp(p)
	fresh := app.Root().(*Task)
	if piece := fresh.Split(); piece == nil || fresh.Level() != 1 || piece.(*Task).Level() != 1 || fresh.Work(1) != 1 || app.Result().Nodes != 1 || len(fresh.Open) != 1 {
		t.Fatalf("a fresh root: split %v, at level %d, %d nodes counted", piece, fresh.Level(), app.Result().Nodes)
	}
	task := app.Root().(*Task)
	if task.Level() != 0 || task.Work(0) != 0 || task.Split() != nil {
		t.Fatal("root: wrong level, or worked for budget 0, or split after it")
	}
	for level := 1; level <= 5; level++ {
		task.Work(1)
		piece := task.Split()
		if piece == nil || task.Level() != level || piece.(*Task).Level() != level || len(task.Open) != 1 {
			t.Fatalf("level %d: task at %d, piece %v", level, task.Level(), piece)
		}
		task = piece.(*Task)
	}
}

// TestUnmarshalErrors: malformed tasks are refused; any hash is a node.
func TestUnmarshalErrors(t *testing.T) {
	p, _ := New(0.9, 1)
	app := NewApp(p)
	root := app.Root()
	root.Work(0) // no longer fresh: its encoding is its stack alone
	good, _ := root.AppendBinary(nil)
	after := func(tail ...byte) []byte { return append(slices.Clone(good), tail...) }
	deep := nodestack.Stack[node]{Open: []node{{1, MaxLevel + 1}}}
	tooDeep, _ := deep.AppendBinary(nil)
	for i, b := range [][]byte{nil, {0x80}, {3}, good[:len(good)-1], tooDeep,
		after(0), after(4), after(2), after(2, 0), after(1, 0)} { // the flags after the nodes
		if _, err := app.Unmarshal(b); !errors.Is(err, nodestack.ErrMalformed) {
			t.Errorf("case %d (%x): %v", i, b, err)
		}
	}
	// A node at MaxLevel is a leaf: the tree below it is cut.
	at := nodestack.Stack[node]{Open: []node{{0, MaxLevel}}}
	b, _ := at.AppendBinary(nil)
	u, err := app.Unmarshal(b)
	if err != nil || u.Work(10) != 1 || !u.Empty() {
		t.Errorf("node at MaxLevel: %v", err)
	}
}

// TestWorkAllocations: expanding a tree of 60000 nodes allocates only
// while the stack grows, not per node.
func TestWorkAllocations(t *testing.T) {
	p, _ := New(0.97, 2)
	if n := testing.AllocsPerRun(3, func() { p.Solve() }); n > 20 {
		t.Errorf("%v allocations per tree", n)
	}
}

// BenchmarkWork measures the sequential solver's nodes per second.
func BenchmarkWork(b *testing.B) {
	p, _ := New(0.97, 2)
	var nodes int64
	for b.Loop() {
		nodes += p.Solve().Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

func ExampleProblem_Solve() {
	p, _ := New(0.96, 1)
	r := p.Solve()
	fmt.Printf("%d nodes, %d leaves, height %d\n", r.Nodes, r.Leaves, r.Height)
	// Output: 4269 nodes, 2135 leaves, height 36
}
