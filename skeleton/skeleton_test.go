package skeleton_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/skeleton"
)

// solutions are the counts of N-queens solutions (OEIS A000170).
var solutions = []int64{1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200}

// counters are the skeleton's N-queens counters: over queens and boards,
// with Value or Fold, expanded by Children or by Child (childOnly).
var counters = []counter{
	{"queens", func(n int) func() skeleton.Count[int64] { return countQueens(n).Sequential },
		func(n int) func() lb.Reducer[skeleton.Count[int64]] { return countQueens(n).NewApp }},
	{"queens-child", func(n int) func() skeleton.Count[int64] { return childQueens(n).Sequential },
		func(n int) func() lb.Reducer[skeleton.Count[int64]] { return childQueens(n).NewApp }},
	{"boards", func(n int) func() skeleton.Count[int64] { return countBoards(n).Sequential },
		func(n int) func() lb.Reducer[skeleton.Count[int64]] { return countBoards(n).NewApp }},
	{"boards-fold", func(n int) func() skeleton.Count[int64] { return foldBoards(n).Sequential },
		func(n int) func() lb.Reducer[skeleton.Count[int64]] { return foldBoards(n).NewApp }},
}

// counter is a way of counting the N-queens solutions with the skeleton:
// count(n) runs it on one rank, app(n) makes its Apps.
type counter struct {
	name  string
	count func(n int) func() skeleton.Count[int64]
	app   func(n int) func() lb.Reducer[skeleton.Count[int64]]
}

// childQueens is countQueens expanded by Child.
func childQueens(n int) *skeleton.Enumeration[queen, int64] {
	e := countQueens(n)
	e.Space = childOnly[queen]{e.Space}
	return e
}

// TestSequential: the skeleton counts the N-queens solutions of OEIS
// A000170, and the nodes of the hand-written Task, with every Space and
// fold.
func TestSequential(t *testing.T) {
	for n, want := range solutions {
		if n > 10 && testing.Short() {
			break
		}
		h := &handQueens{n: n}
		for t := h.Root(); !t.Empty(); {
			t.Work(1000)
		}
		for _, c := range counters {
			got := c.count(n)()
			if got.Value != want || h.count != want || got.Nodes != h.nodes {
				t.Errorf("%s, n=%d: skeleton %d solutions %d nodes, by hand %d solutions %d nodes; want %d solutions",
					c.name, n, got.Value, got.Nodes, h.count, h.nodes, want)
			}
		}
	}
}

// TestCheckChildren: the test Spaces' Children agree with their Child,
// and CheckChildren finds a Children that drops, adds or reorders a
// child.
func TestCheckChildren(t *testing.T) {
	for n := range 9 {
		if err := skeleton.CheckChildren[queen](&queens{n}, 1<<20); err != nil {
			t.Errorf("queens n=%d: %v", n, err)
		}
		if err := skeleton.CheckChildren[board](&boards{n}, 1<<20); err != nil {
			t.Errorf("boards n=%d: %v", n, err)
		}
	}
	if err := skeleton.CheckChildren[queen](childOnly[queen]{&queens{6}}, 1<<20); err != nil {
		t.Errorf("a Space without Children: %v", err)
	}
	for _, bug := range []string{"drop", "add", "swap", "fresh", "overwrite"} {
		if err := skeleton.CheckChildren[board](&badBoards{boards{6}, bug}, 1<<20); err == nil {
			t.Errorf("Children that %s a child: no error", bug)
		}
	}
	// The searches stop with a clear panic (exit status 70 in a command)
	// where such a Children loses the nodes still to expand, not with
	// wrong counts: CheckChildren passed it, and the count of 6 queens'
	// boards came out 2 without an error.
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "must return append(buf, children...)") {
				t.Errorf("a Children that ignores buf: the search went on (%v)", r)
			}
		}()
		e := &skeleton.Enumeration[board, int64]{Space: &badBoards{boards{6}, "fresh"},
			Value: func(board) int64 { return 1 }, Combine: func(a, b int64) int64 { return a + b }}
		t.Errorf("the search ended: %+v", e.Sequential())
	}()
}

// badBoards is boards whose Children drops the last child, adds the first
// again, or swaps the first two, of the nodes of row 3, or ignores or
// writes over its buf at every node.
type badBoards struct {
	boards
	bug string
}

func (q *badBoards) Children(s board, buf []board) []board {
	switch q.bug {
	case "fresh": // ignores buf: a new slice of the children alone
		return q.boards.Children(s, nil)
	case "overwrite": // writes over buf's nodes
		return q.boards.Children(s, buf[:0])
	}
	m := len(buf)
	buf = q.boards.Children(s, buf)
	if s.row != 3 || len(buf)-m < 2 {
		return buf
	}
	switch q.bug {
	case "drop":
		return buf[:len(buf)-1]
	case "add":
		return append(buf, buf[m])
	}
	buf[m], buf[m+1] = buf[m+1], buf[m]
	return buf
}

// TestQueensApp: the skeleton's tasks keep the promises of lb.Task
// (lbtest.TestApp), their parts' results combining to the whole's, and so
// does the hand-written Task it is measured against.
func TestQueensApp(t *testing.T) {
	// A Work visits the children of a node together, and a split's
	// pieces' visits at once: up to 8 children and 8 rows more than its
	// budget on 8 queens.
	const overshoot = 16
	for _, c := range counters {
		t.Run(c.name, func(t *testing.T) {
			app := c.app(8)
			lbtest.TestApp(t, func() lb.App { return app() }, lbtest.AppOptions{Exhaustive: true, Overshoot: overshoot, Result: lbtest.SameResult[skeleton.Count[int64]](nil)})
		})
	}
	t.Run("hand", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App { return &handQueens{n: 8} }, lbtest.AppOptions{Exhaustive: true, NoHalving: true}) // its root does not split
	})
	t.Run("optimisation", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App { return weightedQueens(8).NewApp() }, lbtest.AppOptions{Overshoot: overshoot, Result: sameBest})
	})
	t.Run("decision", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App { return firstQueens(8).NewApp() }, lbtest.AppOptions{Overshoot: overshoot, Result: sameFound})
	})
	t.Run("optimisation-child", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			o := weightedQueens(8)
			o.Space = childOnly[queen]{o.Space}
			return o.NewApp()
		}, lbtest.AppOptions{Overshoot: overshoot, Result: sameBest})
	})
	t.Run("decision-child", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			d := firstQueens(8)
			d.Space = childOnly[queen]{d.Space}
			return d.NewApp()
		}, lbtest.AppOptions{Overshoot: overshoot, Result: sameFound})
	})
}

// sameBest and sameFound compare the results of a whole search and of its
// parts (lbtest.SameResult): the same best value (of a board among those
// of that value), and a solution found by both.
var (
	sameBest  = lbtest.SameResult(skeleton.SameOptimum)
	sameFound = lbtest.SameResult(func(w, p skeleton.Best) bool { return w.Found && p.Found })
)

// TestCountInvariant: the enumeration's count and nodes are the sequential
// ones under every balancer variant, in every world, at several rank
// counts, with every Space and fold.
func TestCountInvariant(t *testing.T) {
	for _, c := range counters {
		t.Run(c.name, func(t *testing.T) { testCountInvariant(t, c.app(9)) })
	}
}

func testCountInvariant(t *testing.T, newApp func() lb.Reducer[skeleton.Count[int64]]) {
	const n = 9
	want := countQueens(n).Sequential()
	if want.Value != solutions[n] {
		t.Fatalf("sequential: %d solutions", want.Value)
	}
	for _, world := range lbtest.Worlds() {
		for _, v := range lbtest.Variants() {
			for _, p := range []int{1, 3, 8} {
				t.Run(fmt.Sprintf("%s/%s/P=%d", world.Name, v.Name, p), func(t *testing.T) {
					err := world.Run(p, 5, func(w lb.World) error {
						got, out, err := lb.Run(w, v.Config(20, 1), newApp)
						if err != nil {
							return err
						}
						if got != want || out.Total.Nodes != want.Nodes {
							return fmt.Errorf("got %+v (balancer's nodes %d), want %+v", got, out.Total.Nodes, want)
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestResume: an enumeration suspended for checkpoints and resumed on
// other rank counts and worlds counts what an uninterrupted one counts,
// with every Space and fold.
func TestResume(t *testing.T) {
	for _, c := range counters {
		t.Run(c.name, func(t *testing.T) { testResume(t, c.app(9)) })
	}
}

func testResume(t *testing.T, newApp func() lb.Reducer[skeleton.Count[int64]]) {
	const n = 9
	want := countQueens(n).Sequential()
	run := func(w lb.World, cfg lb.Config) (skeleton.Count[int64], *lb.Outcome, error) {
		return lb.Run(w, cfg, newApp)
	}
	lbtest.ResumeVariants(t, 20, 40, 3, lbtest.Chain[skeleton.Count[int64]]{First: run},
		func(t *testing.T, got skeleton.Count[int64]) {
			if got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
}

// weightedQueens is an optimisation over the N-queens tree: the largest
// sum of (row+1)·column over the queens of a solution, bounded by the sum
// so far plus (row+1)·(n−1) for every row left.
func weightedQueens(n int) *skeleton.Optimisation[queen] {
	return &skeleton.Optimisation[queen]{
		Space:     &queens{n},
		Sense:     lb.Maximize,
		Objective: func(s queen) (int64, bool) { return int64(s.score), s.row == n },
		Bound: func(s queen) int64 {
			v := int64(s.score)
			for r := s.row + 1; r <= n; r++ {
				v += int64(r * (n - 1))
			}
			return v
		},
	}
}

// firstQueens looks for one N-queens solution.
func firstQueens(n int) *skeleton.Decision[queen] {
	return &skeleton.Decision[queen]{Space: &queens{n}, Goal: func(s queen) bool { return s.row == n }}
}

// TestOptimisationAndDecision: branch-and-bound finds the sequential
// optimum, and the decision search a valid solution, under every balancer
// variant in every world.
func TestOptimisationAndDecision(t *testing.T) {
	const n = 8
	best, all := weightedQueens(n).Sequential(), countQueens(n).Sequential()
	if !best.Found || best.Nodes >= all.Nodes {
		t.Fatalf("branch-and-bound: %+v, not fewer nodes than the %d of the whole tree", best, all.Nodes)
	}
	if first := firstQueens(n).Sequential(); !first.Found || first.Nodes >= all.Nodes {
		t.Fatalf("decision: %+v, not fewer nodes than the %d of the whole tree", first, all.Nodes)
	}
	for _, world := range lbtest.Worlds() {
		for _, v := range lbtest.Variants() {
			t.Run(fmt.Sprintf("%s/%s", world.Name, v.Name), func(t *testing.T) {
				err := world.Run(4, 5, func(w lb.World) error {
					got, _, err := lb.Run(w, v.Config(20, 1), weightedQueens(n).NewApp)
					if err != nil {
						return err
					}
					if !got.Found || got.Value != best.Value {
						return fmt.Errorf("optimisation: got %+v, want the value %d", got, best.Value)
					}
					first, _, err := lb.Run(w, v.Config(20, 1), firstQueens(n).NewApp)
					if err != nil {
						return err
					}
					s, rest, err := (&queens{n}).DecodeNode(first.Node)
					if !first.Found || err != nil || len(rest) != 0 || s.row != n {
						return fmt.Errorf("decision: got %+v (%v)", first, err)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestUnmarshalErrors: an encoding that is not a task of this skeleton's
// (an older skeleton's, a bad first byte, cut short, with bytes left
// over, a bad node) is an error, not a task or a panic.
func TestUnmarshalErrors(t *testing.T) {
	app := countQueens(8).NewApp()
	root := app.Root()
	p := root.Split()
	if p == nil {
		t.Fatal("the root does not split")
	}
	good, err := p.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := app.Unmarshal(good); err != nil {
		t.Fatalf("a good encoding: %v", err)
	}
	bad := map[string][]byte{
		"empty":       nil,
		"older":       {0, 0, 0},
		"older root":  {1},
		"first byte":  {9, 0, 0},
		"cut short":   good[:len(good)-1],
		"bytes left":  append(append([]byte(nil), good...), 0),
		"empty frame": {2, 0, 1, 0},
		"bad node":    {2, 0, 1, 2, 99, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	}
	for name, b := range bad {
		if task, err := app.Unmarshal(b); err == nil {
			t.Errorf("%s (% x): no error", name, b)
		} else if task != nil {
			t.Errorf("%s: a Task (%#v) beside the error: want nil, as a caller checks it", name, task)
		}
	}
	if _, err := app.Unmarshal([]byte{0, 0, 0}); err == nil || !strings.Contains(err.Error(), "older skeleton") {
		t.Errorf("an older skeleton's encoding: %v", err)
	}
}

// TestIncomplete: a search without what it needs says what it lacks (Check),
// and NewApp and Sequential panic with that error instead of a nil pointer
// deep in a rank.
func TestIncomplete(t *testing.T) {
	sp := &queens{n: 4}
	one := func(queen) int64 { return 1 }
	for _, tc := range []struct {
		check func() error
		run   func()
		want  string
	}{
		{(&skeleton.Enumeration[queen, int64]{}).Check, func() { (&skeleton.Enumeration[queen, int64]{}).Sequential() }, "Enumeration.Space is nil"},
		{(&skeleton.Enumeration[queen, int64]{Space: sp, Value: one}).Check,
			func() { (&skeleton.Enumeration[queen, int64]{Space: sp, Value: one}).NewApp() }, "Enumeration.Combine is nil"},
		{(&skeleton.Optimisation[queen]{Space: sp}).Check, func() { (&skeleton.Optimisation[queen]{Space: sp}).NewApp() }, "Optimisation.Objective is nil"},
		{(&skeleton.Optimisation[queen]{Space: sp, Objective: func(queen) (int64, bool) { return 0, true }, Sense: 7}).Check,
			func() {
				(&skeleton.Optimisation[queen]{Space: sp, Objective: func(queen) (int64, bool) { return 0, true }, Sense: 7}).Sequential()
			}, "Optimisation.Sense 7"},
		{(&skeleton.Decision[queen]{Space: sp}).Check, func() { (&skeleton.Decision[queen]{Space: sp}).Sequential() }, "Decision.Goal is nil"},
		{(&skeleton.Decision[queen]{}).Check, func() { (&skeleton.Decision[queen]{}).NewApp() }, "Decision.Space is nil"},
	} {
		if err := tc.check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check: %v, want %q", err, tc.want)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("panic %v, want %q", r, tc.want)
				}
			}()
			tc.run()
		}()
	}
	if err := countQueens(4).Check(); err != nil {
		t.Errorf("a complete enumeration: %v", err)
	}
	// Nodes only: no Value, no Fold, no Combine needed.
	if got := (&skeleton.Enumeration[queen, int64]{Space: sp}).Sequential(); got.Nodes == 0 {
		t.Errorf("counting nodes only: %+v", got)
	}
}

// stuckQueens is queens (with its Children) whose Child returns a cursor
// that does not move past its c at the nodes of row 2: the children never
// end.
type stuckQueens struct{ queens }

func (q *stuckQueens) Child(s queen, c int) (queen, int, bool) {
	k, after, ok := q.queens.Child(s, c)
	if s.row == 2 {
		after = c
	}
	return k, after, ok
}

// TestChildMustAdvance: a Space whose Child returns after ≤ c (Space's
// doc: after must exceed c) is found out: CheckChildren says so where the
// Space has Children, and a search over Child alone panics with the
// Space's mistake, which a run reports as an internal error; it looped
// for ever, growing memory, and so did the checkers.
func TestChildMustAdvance(t *testing.T) {
	if err := skeleton.CheckChildren[queen](&stuckQueens{queens{6}}, 1<<20); err == nil || !strings.Contains(err.Error(), "after must exceed c") {
		t.Errorf("CheckChildren: %v, want an error saying after must exceed c", err)
	}
	e := countQueens(6)
	e.Space = childOnly[queen]{&stuckQueens{queens{6}}}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "after must exceed c") {
			t.Errorf("Sequential: panic %v, want one saying after must exceed c", r)
		}
	}()
	e.Sequential()
	t.Error("Sequential returned")
}
