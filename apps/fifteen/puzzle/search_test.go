package puzzle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// schedule is the outcome of working an iteration in pieces.
type schedule struct {
	nodes     int64
	digest    uint64
	minExc    int
	solution  []Move // the first one found, nil if none
	pieces    int    // pieces made by splitting
	transfers int    // marshal round trips
}

// budget draws a work budget, log-uniform in 1..maxBudget.
func budget(r *rand.Rand, maxBudget int64) int64 {
	b := int64(1) << r.IntN(bits.Len64(uint64(maxBudget)))
	return min(maxBudget, b+r.Int64N(b))
}

// runSchedule works the iteration of root with the threshold in pieces: it
// keeps a pool of searches and repeatedly picks one at random to work a
// random budget, split, or send through MarshalBinary and UnmarshalBinary,
// until no work is left or a piece finds the goal. Every piece splits near
// its frontier between the levels floor and near (SetNear; near 0: at the
// shallowest open level).
func runSchedule(t *testing.T, r *rand.Rand, root State, threshold int, maxBudget int64, floor, near int) schedule {
	t.Helper()
	first, err := NewIteration(root, threshold)
	if err != nil {
		t.Fatal(err)
	}
	first.SetNear(floor, near)
	out := schedule{minExc: NoExceeded}
	retire := func(s *Search) {
		out.nodes += s.Nodes()
		out.digest += s.Digest()
		out.minExc = min(out.minExc, s.MinExceeded())
	}
	pool := []*Search{first}
	for len(pool) > 0 {
		i := r.IntN(len(pool))
		s := pool[i]
		switch x := r.IntN(10); {
		case x < 6:
			b := budget(r, maxBudget)
			before := s.Nodes()
			n, done := s.Work(b)
			if n > b || n < 0 || s.Nodes()-before != n {
				t.Fatalf("Work(%d) = %d nodes, counter moved by %d", b, n, s.Nodes()-before)
			}
			if done != s.Empty() || (!done && n != b) {
				t.Fatalf("Work(%d) = %d, %v; Empty %v", b, n, done, s.Empty())
			}
			if s.Solved() {
				retire(s)
				out.solution = s.Solution()
				for _, o := range pool {
					if o != s {
						retire(o)
					}
				}
				return out
			}
		case x < 9:
			split := s.Split
			if r.IntN(2) == 0 { // as poll-and-shuffle splits
				split = s.SplitEven
			}
			o, ok := split()
			if !ok {
				// Only a single move at the top of the stack is left.
				for lvl, fr := range s.stack {
					if fr.pending != 0 && (lvl+1 < len(s.stack) || bits.OnesCount8(fr.pending) > 1) {
						t.Fatalf("Split refused with work at level %d of %d", lvl, len(s.stack))
					}
				}
				continue
			}
			if o.Empty() || s.Empty() || o.Nodes() != 0 || o.Digest() != 0 || o.MinExceeded() != NoExceeded || o.floor != floor || o.near != near {
				t.Fatalf("Split: a piece is empty or not fresh")
			}
			out.pieces++
			pool = append(pool, o)
		default:
			data, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var u Search
			if err := u.UnmarshalBinary(data); err != nil {
				t.Fatalf("UnmarshalBinary(MarshalBinary()) = %v", err)
			}
			u.SetNear(floor, near)
			again, _ := u.MarshalBinary()
			if !bytes.Equal(again, data) || u.Empty() != s.Empty() || u.Root() != root || u.Threshold() != threshold {
				t.Fatalf("round trip changes the search: %x, %x", data, again)
			}
			retire(s)
			pool[i] = &u
			out.transfers++
		}
		if s := pool[i]; s.Empty() {
			retire(s)
			pool = slices.Delete(pool, i, i+1)
		}
	}
	return out
}

// TestSearchMatchesIterate checks that Search, worked in one piece with any
// budget, generates exactly the nodes of Iterate, iteration by iteration,
// and finds the same first solution.
func TestSearchMatchesIterate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, in := range easiest(t, 3) {
		for threshold := in.State.Manhattan(); threshold <= in.Optimal; threshold += 2 {
			want, moves, err := Iterate(in.State, threshold)
			if err != nil {
				t.Fatal(err)
			}
			for _, maxBudget := range []int64{1e12, 1000} {
				s, err := NewIteration(in.State, threshold)
				if err != nil {
					t.Fatal(err)
				}
				for !s.Empty() {
					s.Work(budget(r, maxBudget))
				}
				if s.Nodes() != want.Nodes || s.Solved() != want.Solved {
					t.Errorf("id %d threshold %d budgets %d: %d nodes solved %v; Iterate %d %v",
						in.ID, threshold, maxBudget, s.Nodes(), s.Solved(), want.Nodes, want.Solved)
				}
				if s.MinExceeded() != want.MinExceeded {
					t.Errorf("id %d threshold %d: min exceeded %d, Iterate %d", in.ID, threshold, s.MinExceeded(), want.MinExceeded)
				}
				if !want.Solved && (s.Digest() != want.Digest || want.Digest == 0) {
					t.Errorf("id %d threshold %d: digest %#x, Iterate %#x", in.ID, threshold, s.Digest(), want.Digest)
				}
				if want.Solved && !slices.Equal(s.Solution(), moves) {
					t.Errorf("id %d: solution %s, Iterate %s", in.ID, FormatMoves(s.Solution()), FormatMoves(moves))
				}
			}
		}
	}
}

// TestSplitEquivalence works iterations in pieces under random schedules of
// splits (at the shallowest level or near the frontier), budgets, transfers
// and order: a failing iteration must give
// exactly the sequential node count and minimum exceeded f, a final one a
// valid solution.
func TestSplitEquivalence(t *testing.T) {
	ins := easiest(t, 2)
	type iter struct {
		in        Instance
		threshold int
	}
	var iters []iter
	for _, in := range ins {
		for threshold := in.State.Manhattan(); threshold <= in.Optimal; threshold += 2 {
			iters = append(iters, iter{in, threshold})
		}
	}
	// A threshold of the other parity: the minimum exceeded is threshold+1.
	iters = append(iters, iter{ins[0], ins[0].State.Manhattan() + 3})
	if !testing.Short() {
		// Larger failing iterations: the last but one of more instances,
		// up to 9 million nodes.
		more := easiest(t, 10)[2:]
		for _, in := range loadKorf(t) {
			if in.ID == 5 {
				more = append(more, in)
			}
		}
		for _, in := range more {
			iters = append(iters, iter{in, in.Optimal - 2})
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i, it := range iters {
		want, _, err := Iterate(it.in.State, it.threshold)
		if err != nil {
			t.Fatal(err)
		}
		maxBudgets := []int64{4, 300, 100000}
		switch {
		case want.Nodes > 1e6:
			maxBudgets = maxBudgets[2:] // keep the test short
		case want.Nodes > 3e5:
			maxBudgets = maxBudgets[1:]
		}
		for j, maxBudget := range maxBudgets {
			// Every other schedule splits near the frontier (SetNear),
			// between levels drawn at random.
			floor, near := 0, 0
			if (i+j)%2 == 1 {
				floor = r.IntN(8)
				near = floor + 1 + r.IntN(12)
			}
			name := fmt.Sprintf("id%d/T%d/b%d/near%d-%d", it.in.ID, it.threshold, maxBudget, floor, near)
			t.Run(name, func(t *testing.T) {
				got := runSchedule(t, r, it.in.State, it.threshold, maxBudget, floor, near)
				if want.Solved {
					if got.solution == nil {
						t.Fatalf("no solution found; %d nodes", got.nodes)
					}
					checkSolution(t, it.in.State, got.solution, it.threshold)
					return
				}
				if got.nodes != want.Nodes || got.minExc != want.MinExceeded || got.solution != nil || got.digest != want.Digest {
					t.Errorf("%d nodes, min exceeded %d, digest %#x, solution %v; sequential %d, %d, %#x",
						got.nodes, got.minExc, got.digest, got.solution, want.Nodes, want.MinExceeded, want.Digest)
				}
				if got.pieces == 0 && want.Nodes > 10*maxBudget {
					t.Errorf("no split happened")
				}
				t.Logf("%d pieces, %d transfers, %d nodes", got.pieces, got.transfers, got.nodes)
			})
		}
	}
}

func TestSearchEdgeCases(t *testing.T) {
	// The goal as the root: solved at once with no moves and no nodes.
	s, err := NewIteration(Goal(), 0)
	if err != nil || !s.Solved() || !s.Empty() || s.Solution() == nil || len(s.Solution()) != 0 || s.Nodes() != 0 {
		t.Fatalf("NewIteration(goal): %+v %v", s, err)
	}
	if n, done := s.Work(10); n != 0 || !done {
		t.Errorf("Work on a solved search: %d %v", n, done)
	}
	if _, ok := s.Split(); ok {
		t.Error("Split of a solved search")
	}
	// A root above the threshold is pruned at once.
	in := easiest(t, 1)[0]
	h := in.State.Manhattan()
	s, err = NewIteration(in.State, h-1)
	if err != nil || !s.Empty() || s.MinExceeded() != h {
		t.Fatalf("NewIteration below h: %+v, %v", s, err)
	}
	if _, err := NewIteration(in.State, MaxThreshold+1); err == nil {
		t.Error("threshold above MaxThreshold accepted")
	}
	var zero Search
	if !zero.Empty() {
		t.Error("zero Search not empty")
	}
	if n, done := zero.Work(5); n != 0 || !done {
		t.Errorf("Work on the zero Search: %d %v", n, done)
	}
	// A fresh search splits its root's moves in halves, then keeps
	// halving below its one move left (a chain of restrictions) until that
	// path ends in a pruned node; the pieces and what is left cover the
	// iteration (a failing one: exhaustive) exactly.
	want, _, _ := Iterate(in.State, in.Optimal-2)
	if want.Solved || in.Optimal-2 < h {
		t.Fatalf("threshold %d does not fail", in.Optimal-2)
	}
	// Static placement's split tree: a fresh search split along every path
	// of a tree of depth 8; most of the 256 leaves hold work (splitting
	// only the root gave at most its 2 to 4 moves).
	// The same in place (Halve), on one search rerooted for every leaf.
	const k = 8
	for _, inPlace := range []bool{false, true} {
		var total int64
		busy := 0
		spare, _ := NewIteration(in.State, in.Optimal-2)
		for j := range 1 << k {
			s, _ = NewIteration(in.State, in.Optimal-2)
			if inPlace {
				spare.Reroot()
				s = spare
			}
			for b := 0; b < k && s != nil; b++ {
				give := j>>b&1 == 1
				if inPlace {
					if !s.Halve(give) && give {
						s = nil
					}
					continue
				}
				if o, ok := s.Split(); give {
					s = o
					if !ok {
						s = nil
					}
				}
			}
			if s == nil {
				continue
			}
			if !s.Empty() {
				busy++
			}
			for !s.Empty() {
				n, _ := s.Work(1 << 40)
				total += n
			}
		}
		if total != want.Nodes || busy < 150 {
			t.Errorf("a split tree of depth %d (in place: %v): %d leaves hold %d nodes, Iterate %d", k, inPlace, busy, total, want.Nodes)
		}
	}
	s, _ = NewIteration(in.State, h+10)
	s.Split()
	// Work(0) does nothing.
	if n, done := s.Work(0); n != 0 || done {
		t.Errorf("Work(0) = %d, %v", n, done)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	in := easiest(t, 1)[0]
	s, _ := NewIteration(in.State, in.Optimal-2)
	s.Work(5000)
	data, _ := s.MarshalBinary()
	if len(data) > 12+s.Depth() {
		t.Errorf("%d bytes for a stack of %d frames", len(data), s.Depth())
	}
	var u Search
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"empty", func(d []byte) []byte { return nil }},
		{"truncated", func(d []byte) []byte { return d[:len(d)-1] }},
		{"version", func(d []byte) []byte { d[0] = 9; return d }},
		{"board", func(d []byte) []byte { d[1] = 0x11; return d }},
		{"stray bits", func(d []byte) []byte { d[len(d)-1] |= 0x80; return d }},
		{"illegal move", func(d []byte) []byte { d[len(d)-2] = d[len(d)-2]&0xf | 0xc0; return d }},
	} {
		d := tc.edit(slices.Clone(data))
		if err := u.UnmarshalBinary(d); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// Work below the goal.
	d := []byte{marshalVersion}
	d = binary.LittleEndian.AppendUint64(d, goalPacked)
	d = append(d, 4, 1, 1<<Right)
	if err := u.UnmarshalBinary(d); err == nil {
		t.Error("work below the goal accepted")
	}
	// The same below a root that is not the goal is fine.
	d = []byte{marshalVersion}
	d = binary.LittleEndian.AppendUint64(d, pack(in.State))
	d = append(d, byte(in.Optimal), 1, moveMask[in.State.Blank()])
	if err := u.UnmarshalBinary(d); err != nil || u.Depth() != 1 || u.Nodes() != 0 {
		t.Errorf("a fresh iteration by hand: %v", err)
	}
}

func TestSearchWorkAllocatesNothing(t *testing.T) {
	in := easiest(t, 1)[0]
	s, _ := NewIteration(in.State, in.Optimal-2)
	allocs := testing.AllocsPerRun(20, func() {
		for _, b := range []int64{1, 7, 100, 1000} {
			s.Work(b)
		}
	})
	if allocs != 0 {
		t.Errorf("Work allocates %v times per run", allocs)
	}
	if s.Empty() {
		t.Error("search exhausted too early for the test")
	}
}

// TestSplitNear checks where SetNear makes Split divide: at the deepest
// level from floor up to near with a move to give, the thief taking the
// next move the depth-first order visits there; with none there, at the
// shallowest level deeper than near; then at the deepest shallower than
// floor.
func TestSplitNear(t *testing.T) {
	in := easiest(t, 1)[0]
	const floor, near = 3, 9
	levels := map[int]int{}
	for _, b := range []int64{50, 500, 5000} {
		s, err := NewIteration(in.State, in.Optimal)
		if err != nil {
			t.Fatal(err)
		}
		s.SetNear(floor, near)
		s.Work(b)
		for split := 0; split < 40 && !s.Empty(); split++ {
			s.trim()
			top := len(s.stack) - 1
			open := func(k int) bool {
				p := s.stack[k].pending
				return k < top && p != 0 || k == top && bits.OnesCount8(p) >= 2
			}
			first := 0
			for s.stack[first].pending == 0 {
				first++
			}
			want := -1
			for k := min(near, top); k >= max(floor, first+1) && want < 0; k-- {
				if open(k) {
					want = k
				}
			}
			for k := max(near+1, first+1); k <= top && want < 0; k++ {
				if open(k) {
					want = k
				}
			}
			for k := min(floor-1, top); k > first && want < 0; k-- {
				if open(k) {
					want = k
				}
			}
			if want < 0 || len(s.chain) > 0 {
				break // the shallowest split, TestSplitEquivalence's
			}
			before := s.stack[want].pending
			o, ok := s.Split()
			if !ok {
				t.Fatalf("budget %d: Split refused with level %d open", b, want)
			}
			if got := len(o.stack) - 1; got != want {
				t.Fatalf("budget %d, split %d: gave level %d, want %d (floor %d, near %d, top %d)", b, split, got, want, floor, near, top)
			}
			give := o.stack[want].pending
			next := before & -before
			if want < top && give&next == 0 || want == top && (give&next != 0 || give == 0) {
				t.Fatalf("budget %d: level %d of %d, moves %04b: gave %04b", b, want, top, before, give)
			}
			if s.stack[want].pending != before&^give {
				t.Fatalf("budget %d: kept %04b of %04b after giving %04b", b, s.stack[want].pending, before, give)
			}
			levels[want]++
			if split%8 == 7 {
				s.Work(b) // new open levels, mostly deep ones
			}
		}
	}
	// Every kind of level turned up: within floor..near, deeper, shallower.
	var within, deeper, shallower int
	for k, n := range levels {
		switch {
		case k > near:
			deeper += n
		case k < floor:
			shallower += n
		default:
			within += n
		}
	}
	if within == 0 || deeper == 0 || shallower == 0 {
		t.Errorf("splits by level %v: none within %d..%d, deeper or shallower", levels, floor, near)
	}
	t.Logf("splits by level: %v (%d shallower than %d)", levels, shallower, floor)
}

// TestSplitEven: with near levels set, SplitEven gives away the shallowest
// open level (about half of the search) where Split gives away near the
// frontier, and both pieces keep the near levels (lb.EvenSplitter).
func TestSplitEven(t *testing.T) {
	in := easiest(t, 1)[0]
	build := func() *Search {
		s, err := NewIteration(in.State, in.Optimal)
		if err != nil {
			t.Fatal(err)
		}
		s.SetNear(4, 8)
		s.Work(5000)
		return s
	}
	a, b := build(), build()
	near, ok1 := a.Split()
	even, ok2 := b.SplitEven()
	if !ok1 || !ok2 {
		t.Fatalf("Split %v, SplitEven %v", ok1, ok2)
	}
	first := 0
	for b.stack[first].pending == 0 && len(b.stack[first:]) > 1 {
		first++
	}
	if got, want := len(even.stack)-1, first; got > want+1 {
		t.Errorf("SplitEven gave level %d, the shallowest open level is about %d", got, want)
	}
	if len(near.stack) <= len(even.stack) {
		t.Errorf("Split gave level %d, SplitEven %d: want the near piece deeper", len(near.stack)-1, len(even.stack)-1)
	}
	if even.near != 8 || b.near != 8 || even.floor != 4 {
		t.Errorf("near levels after SplitEven: piece %d..%d, kept %d", even.floor, even.near, b.near)
	}
}
