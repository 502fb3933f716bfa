package knap

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
)

// schedule runs a search like a balancer would, in one goroutine: ranks
// Apps and a bag of tasks, each on a rank; each step works a random task
// for a random slice, and at random moves a task to another rank, splits a
// task and ships the piece, all through bytes, and spreads the incumbent
// of a rank to the others. It returns the Results combined over the ranks.
// fixed, when ≥ 0, is told to every rank as an incumbent before the start
// and nothing better may be found.
func schedule(t *testing.T, in *Instance, s Search, ranks int, rng *rand.Rand, fixed int64) Result {
	t.Helper()
	apps := make([]*App, ranks)
	for r := range apps {
		a, err := NewApp(in, s)
		if err != nil {
			t.Fatal(err)
		}
		if r > 0 && rng.IntN(2) == 0 {
			a = apps[0].Clone() // shares the sorted items, starts afresh
		}
		if rng.IntN(2) == 0 {
			a.maxDepth = 1 + rng.IntN(3) // the recursion stops and restarts often
		}
		if fixed >= 0 {
			a.Improve(fixed)
		}
		apps[r] = a
	}
	type job struct {
		task lb.Task
		rank int
	}
	ship := func(task lb.Task, to int) lb.Task {
		b, err := task.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		u, err := apps[to].Unmarshal(b)
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		if b2, _ := u.AppendBinary(nil); !bytes.Equal(b, b2) {
			t.Fatalf("%v: encoding changed in a round trip: %x, then %x", s, b, b2)
		}
		return u
	}
	bag := []job{{apps[0].Root(), 0}}
	for len(bag) > 0 {
		i := rng.IntN(len(bag))
		j := &bag[i]
		a := apps[j.rank]
		before, _ := a.Incumbent()
		if n := j.task.Work(int64(1 + rng.IntN(50))); n < 0 {
			t.Fatalf("Work returned %d", n)
		}
		if v, _ := a.Incumbent(); v > before || rng.IntN(4) == 0 {
			for _, o := range apps { // spread, late and out of order as messages go
				if rng.IntN(3) > 0 {
					o.Improve(v)
				}
			}
		}
		if rng.IntN(6) == 0 {
			to := rng.IntN(ranks)
			j.task, j.rank = ship(j.task, to), to
		}
		if rng.IntN(3) == 0 {
			if piece := j.task.Split(); piece != nil {
				to := rng.IntN(ranks)
				bag = append(bag, job{ship(piece, to), to})
				j = &bag[i]
			}
		}
		if j.task.Empty() {
			bag[i] = bag[len(bag)-1]
			bag = bag[:len(bag)-1]
		}
	}
	res := apps[0].Result()
	for _, a := range apps[1:] {
		res = apps[0].Combine(res, a.Result())
	}
	return res
}

// TestScheduleMatchesDP: random schedules over several ranks sharing the
// incumbent find the DP optimum, with both searches, on every class.
func TestScheduleMatchesDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range Classes() {
		for k := range 40 {
			in := randomInstance(t, rng, c, 40)
			want := dpOptimum(in)
			for _, s := range []Search{Core, HS} {
				ranks := 1 + rng.IntN(5)
				r := schedule(t, in, s, ranks, rng, -1)
				checkResult(t, in, r, want, fmt.Sprintf("%v #%d %v on %d ranks", c, k, s, ranks))
			}
		}
	}
}

// TestScheduleNodes: with the optimum told to every rank at the start the
// incumbent cannot change, and then every schedule expands exactly the
// nodes of the sequential search: the pieces Split makes are disjoint and
// together cover the tree.
func TestScheduleNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range Classes() {
		for k := range 15 {
			in := randomInstance(t, rng, c, 60)
			want := dpOptimum(in)
			for _, s := range []Search{Core, HS} {
				a, err := NewApp(in, s)
				if err != nil {
					t.Fatal(err)
				}
				a.Improve(want)
				root := a.Root()
				for !root.Empty() {
					root.Work(math.MaxInt64)
				}
				seq := a.Result().Nodes
				for range 3 {
					ranks := 1 + rng.IntN(4)
					if got := schedule(t, in, s, ranks, rng, want).Nodes; got != seq {
						t.Fatalf("%v #%d %v on %d ranks: %d nodes, sequential %d", c, k, s, ranks, got, seq)
					}
				}
			}
		}
	}
}

// TestSplitGivesPromisingWork: on a sanders instance, every piece that
// Split hands out has its first node expanded when worked at once, and
// pieces are made until the search ends.
func TestSplitGivesPromisingWork(t *testing.T) {
	in, err := Generate(GenConfig{Class: Sanders, M: 200, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Search{Core, HS} {
		a, err := NewApp(in, s)
		if err != nil {
			t.Fatal(err)
		}
		root := a.Root()
		pieces := 0
		for !root.Empty() && pieces < 200 {
			root.Work(100)
			if p := root.Split(); p != nil {
				pieces++
				if n := p.Work(1); n != 1 {
					t.Fatalf("%v: piece %d expanded %d nodes in its first slice", s, pieces, n)
				}
				for !p.Empty() {
					p.Work(math.MaxInt64)
				}
			}
		}
		if pieces < 5 {
			t.Fatalf("%v: only %d pieces", s, pieces)
		}
	}
}

func TestUnmarshalRejectsGarbage(t *testing.T) {
	in, err := Generate(GenConfig{Class: Sanders, M: 50, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	core, _ := NewApp(in, Core)
	hs, _ := NewApp(in, HS)
	bad := map[string][][]byte{
		"both": {nil, {}, {'X'}, {tagCore}, {tagHS}, {tagCore, 0xff}, {tagHS, 0xff, 0xff}},
		"core": {
			{tagHS, 0, 0, 0, 0},         // tag of the other search
			{tagCore, 1, 2},             // base above the frames
			{tagCore, 2, 0, 60, 0, 1},   // flip beyond the items
			{tagCore, 1, 0, 0, 1},       // cursor before the root's first child
			{tagCore, 1, 0, 50, 0},      // step 0
			{tagCore, 1, 0, 50, 1, 7},   // bytes after the task
			{tagCore, 1, 0, 0x80},       // truncated varint
			{tagCore, 2, 1, 0, 0, 0, 1}, // root of the break solution cannot pack item 0, before the break item
			{tagCore, 1, 0, 51, 1},      // cursor beyond the items
		},
		"hs": {
			{tagCore, 0, 0},
			{tagHS, 0, 0, 0, 2},        // bad pending flag
			{tagHS, 0, 0, 0},           // truncated
			{tagHS, 10, 1, 10, 0, 0},   // left-out item not before lo
			{tagHS, 0, 0, 1, 0, 49, 0}, // a run of every item overfills
			{tagHS, 0, 0, 0, 1, 51},    // node beyond the items
			{tagHS, 50, 0, 0, 0},       // everything packed overfills
		},
	}
	for what, cases := range bad {
		for _, b := range cases {
			for _, a := range []*App{core, hs} {
				if what != "both" && (what == "core") != (a.search == Core) {
					continue
				}
				if task, err := a.Unmarshal(b); err == nil {
					t.Errorf("%v: Unmarshal(%x) = %v, want an error", a.search, b, task)
				}
			}
		}
	}
	// Random bytes must never panic; what decodes must encode the same.
	rng := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		b := make([]byte, 1+rng.IntN(12))
		for i := range b {
			b[i] = byte(rng.IntN(64))
		}
		b[0] = []byte{tagCore, tagHS}[rng.IntN(2)]
		for _, a := range []*App{core, hs} {
			task, err := a.Unmarshal(b)
			if err != nil {
				continue
			}
			if b2, _ := task.AppendBinary(nil); !bytes.Equal(b, b2) {
				t.Errorf("%v: %x decodes and encodes as %x", a.search, b, b2)
			}
			task.Work(1000) // a valid task is a valid part of the search
		}
	}
}

func TestNewAppRejects(t *testing.T) {
	for _, in := range invalidInstances() {
		if _, err := NewApp(in, Core); err == nil {
			t.Errorf("NewApp(%+v) accepted it", in)
		}
	}
	if _, err := NewApp(&Instance{}, Search(7)); err == nil {
		t.Error("NewApp accepted search 7")
	}
}

func TestParseSearch(t *testing.T) {
	for _, s := range []Search{Core, HS} {
		if got, err := ParseSearch(s.String()); got != s || err != nil {
			t.Errorf("ParseSearch(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseSearch("dp"); err == nil {
		t.Error("ParseSearch(dp) accepted it")
	}
}

func TestCombine(t *testing.T) {
	a := &App{}
	x := Result{Profit: 10, Weight: 5, Items: []int{1, 2}, Nodes: 3}
	y := Result{Profit: 10, Weight: 4, Items: []int{3}, Nodes: 4}
	z := Result{Profit: 10, Weight: 4, Items: []int{0, 5}, Nodes: 5}
	w := Result{Profit: 11, Weight: 9, Items: []int{7}, Nodes: 1}
	rs := []Result{x, y, z, w}
	for _, p := range [][]int{{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}, {2, 0, 3, 1}} {
		r := rs[p[0]]
		for _, i := range p[1:] {
			r = a.Combine(r, rs[i])
		}
		if r.Profit != 11 || r.Nodes != 13 || r.Items[0] != 7 {
			t.Fatalf("order %v: %+v", p, r)
		}
	}
	if r := a.Combine(x, y); r.Items[0] != 3 || r.Nodes != 7 {
		t.Fatalf("lower weight should win: %+v", r)
	}
	if r := a.Combine(y, z); r.Items[0] != 0 || a.Combine(z, y).Items[0] != 0 {
		t.Fatalf("smaller items should win: %+v", r)
	}
}

// TestIncumbent: the greedy start (15) is below the optimum (16); Improve
// only raises the incumbent, and a rank told of a solution as good as any
// finds nothing better and keeps its own best.
func TestIncumbent(t *testing.T) {
	// Item 0 weighs nothing; in ratio order 1, 2, 3, 4 the break item is 3,
	// and no greedy neighbour of the break solution packs 2, 3 and 4.
	in := &Instance{Profit: []int64{2, 8, 5, 5, 4}, Weight: []int64{0, 6, 4, 4, 4}, Capacity: 12}
	for _, s := range []Search{Core, HS} {
		a, err := NewApp(in, s)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := a.Incumbent(); !ok || v != 15 {
			t.Fatalf("%v: start incumbent %d %v, want 15", s, v, ok)
		}
		a.Improve(14)
		if v, _ := a.Incumbent(); v != 15 {
			t.Fatalf("%v: Improve(14) changed the incumbent to %d", s, v)
		}
		root := a.Root()
		for !root.Empty() {
			root.Work(1)
		}
		if r := a.Result(); r.Profit != 16 || fmt.Sprint(r.Items) != "[0 2 3 4]" || r.Weight != 12 {
			t.Fatalf("%v: result %+v, want profit 16 with items 0, 2, 3, 4", s, r)
		}
		if c := a.Clone(); c.Result().Nodes != 0 || c.Result().Profit != 15 {
			t.Fatalf("%v: a clone of a solved App starts with %+v, want the greedy start", s, c.Result())
		} else if v, _ := c.Incumbent(); v != 15 {
			t.Fatalf("%v: a clone of a solved App has incumbent %d, want 15", s, v)
		}
		b, _ := NewApp(in, s)
		b.Improve(16)
		root = b.Root()
		for !root.Empty() {
			root.Work(1)
		}
		if v, _ := b.Incumbent(); v != 16 || b.Result().Profit != 15 {
			t.Fatalf("%v: told 16, incumbent %d and own best %d, want 16 and 15", s, v, b.Result().Profit)
		}
	}
}

// TestWorkAllocations: the searches allocate only to grow their stacks,
// not per node: a whole search of 10^5..10^6 nodes allocates a few dozen
// times, most of it in NewApp, the same with one Work call or slices of 100
// nodes.
func TestWorkAllocations(t *testing.T) {
	in, err := Generate(GenConfig{Class: Sanders, M: 2000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Search{Core, HS} {
		for _, slice := range []int64{math.MaxInt64, 100} {
			var nodes int64
			allocs := testing.AllocsPerRun(2, func() {
				a, err := NewApp(in, s)
				if err != nil {
					t.Fatal(err)
				}
				root := a.Root()
				for !root.Empty() {
					root.Work(slice)
				}
				nodes = a.Result().Nodes
			})
			t.Logf("%v in slices of %d: %.0f allocations for %d nodes", s, slice, allocs, nodes)
			if nodes < 100_000 || allocs > 60 {
				t.Errorf("%v in slices of %d: %.0f allocations for %d nodes", s, slice, allocs, nodes)
			}
		}
	}
}

// TestSplitFreshRoot: a root that has not worked yet splits, again and
// again, as static placement and fast initialisation split it; so do the
// pieces. Worked on other ranks, the pieces find the optimum, and with the
// optimum as the incumbent from the start (nothing to find, pruning fixed)
// they expand exactly the nodes of the sequential search.
func TestSplitFreshRoot(t *testing.T) {
	in, err := Generate(GenConfig{Class: Sanders, M: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	opt := dpOptimum(in)
	for _, s := range []Search{Core, HS} {
		for _, fixed := range []bool{false, true} {
			seq, err := NewApp(in, s)
			if err != nil {
				t.Fatal(err)
			}
			apps := make([]*App, 8)
			for i := range apps {
				apps[i], _ = NewApp(in, s)
				if fixed {
					apps[i].Improve(opt)
					seq.Improve(opt)
				}
			}
			for r := seq.Root(); !r.Empty(); {
				r.Work(math.MaxInt64)
			}
			root := apps[0].Root()
			pool := []lb.Task{root}
			pieceSplits := 0
			for level := 0; level < 3; level++ { // as static placement with k = 3
				var next []lb.Task
				for _, task := range pool {
					next = append(next, task)
					if piece := task.Split(); piece != nil {
						next = append(next, piece)
						if task != root {
							pieceSplits++
						}
					}
				}
				pool = next
			}
			if len(pool) < 4 || pieceSplits == 0 {
				t.Fatalf("%v: %d pieces after 3 rounds of splits, %d of them split off by pieces", s, len(pool), pieceSplits)
			}
			res := Result{}
			for i, task := range pool {
				b, _ := task.AppendBinary(nil)
				u, err := apps[i].Unmarshal(b)
				if err != nil {
					t.Fatal(err)
				}
				for !u.Empty() {
					u.Work(math.MaxInt64)
				}
				res = apps[i].Combine(res, apps[i].Result())
			}
			if !fixed {
				checkResult(t, in, res, opt, fmt.Sprintf("%v pieces of a fresh root", s))
			} else if want := seq.Result().Nodes; res.Nodes != want || want == 0 {
				t.Fatalf("%v: the pieces expand %d nodes, the sequential search %d", s, res.Nodes, want)
			}
		}
	}
}

// TestClonesConcurrently: Apps that share their items (Clone) search at
// the same time in goroutines, as the ranks of the embedded world do (run
// with -race to check that they share nothing they write).
func TestClonesConcurrently(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	in := randomInstance(t, rng, StronglyCorrelated, 60)
	want := dpOptimum(in)
	for _, s := range []Search{Core, HS} {
		first, err := NewApp(in, s)
		if err != nil {
			t.Fatal(err)
		}
		results := make(chan Result)
		for range 4 {
			a := first.Clone()
			go func() {
				for r := a.Root(); !r.Empty(); {
					r.Work(7)
				}
				results <- a.Result()
			}()
		}
		for range 4 {
			checkResult(t, in, <-results, want, fmt.Sprintf("%v clone", s))
		}
	}
}

// TestLeavesAtGrowingIncumbent: static placement makes each leaf of the
// k-level splitting tree from a new root when it needs it, after other
// leaves have raised the incumbent, and fast initialisation splits a root
// on every rank, whose incumbents may differ. Fresh tasks split by the
// tree's structure alone, so the leaves, made in a random order on one App
// whose incumbent grows meanwhile (by its own finds and by values below
// the optimum told from outside), still cover the optimum.
func TestLeavesAtGrowingIncumbent(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	big, err := Generate(GenConfig{Class: Sanders, M: 300, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ins := []*Instance{big}
	for _, c := range Classes() {
		for range 12 {
			ins = append(ins, randomInstance(t, rng, c, 50))
		}
	}
	for i, in := range ins {
		opt := dpOptimum(in)
		for _, s := range []Search{Core, HS} {
			k := 1 + rng.IntN(6)
			a, err := NewApp(in, s)
			if err != nil {
				t.Fatal(err)
			}
			greedy, _ := a.Incumbent()
			for _, j := range rng.Perm(1 << k) {
				if rng.IntN(3) == 0 && opt > greedy {
					a.Improve(greedy + rng.Int64N(opt-greedy)) // below the optimum
				}
				var task lb.Task = a.Root()
				for b := 0; b < k && task != nil; b++ {
					if piece := task.Split(); j>>b&1 == 1 {
						task = piece
					}
				}
				for task != nil && !task.Empty() {
					task.Work(int64(1 + rng.IntN(100)))
				}
			}
			checkResult(t, in, a.Result(), opt, fmt.Sprintf("instance %d %v, %d leaves", i, s, 1<<k))
		}
	}
}
