package parallel

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// easiest returns the n Korf instances with the fewest nodes in the table.
func easiest(t testing.TB, n int) []puzzle.Instance {
	t.Helper()
	ins, err := puzzle.Korf100()
	if err != nil {
		t.Fatal(err)
	}
	ins = slices.DeleteFunc(ins, func(in puzzle.Instance) bool { return in.Nodes == 0 })
	slices.SortFunc(ins, func(a, b puzzle.Instance) int { return int(a.Nodes - b.Nodes) })
	return ins[:n]
}

// embeddedOnly skips a test that starts worlds of its own size, which only
// the embedded world can (TestUnderMpirun is the test of the MPI build).
func embeddedOnly(t *testing.T) {
	t.Helper()
	if mpi.WorldName != "embedded" {
		t.Skipf("starts worlds of its own size; this is the %s world", mpi.WorldName)
	}
}

// sequential solves in with puzzle.Solve and checks it against the table.
func sequential(t testing.TB, in puzzle.Instance) Result {
	t.Helper()
	r, err := puzzle.Solve(in.State)
	if err != nil {
		t.Fatalf("korf %d: %v", in.ID, err)
	}
	if r.Length != in.Optimal || r.Nodes != in.Nodes {
		t.Fatalf("korf %d: sequential length %d nodes %d, table %d and %d", in.ID, r.Length, r.Nodes, in.Optimal, in.Nodes)
	}
	return FromSequential(r)
}

// checkResult checks a parallel result against the sequential one: the same
// length, a solution that reaches the goal, and failing iterations with the
// same thresholds and exactly the same node counts.
func checkResult(in puzzle.Instance, got, seq Result) error {
	if got.Length != seq.Length || len(got.Moves) != got.Length {
		return fmt.Errorf("korf %d: length %d with %d moves, want %d", in.ID, got.Length, len(got.Moves), seq.Length)
	}
	if end, err := puzzle.ApplyMoves(in.State, got.Moves); err != nil || end != puzzle.Goal() {
		return fmt.Errorf("korf %d: moves %s end at %v (%v)", in.ID, puzzle.FormatMoves(got.Moves), end, err)
	}
	if len(got.Iterations) != len(seq.Iterations) {
		return fmt.Errorf("korf %d: %d iterations, want %d", in.ID, len(got.Iterations), len(seq.Iterations))
	}
	sum := int64(1)
	for i, st := range got.Iterations {
		want := seq.Iterations[i]
		last := i == len(seq.Iterations)-1
		if st.Threshold != want.Threshold || st.Failed == last {
			return fmt.Errorf("korf %d: iteration %d: %+v, want threshold %d failed %v", in.ID, i, st, want.Threshold, !last)
		}
		if !last && (st.Nodes != want.Nodes || st.Digest != want.Digest) {
			return fmt.Errorf("korf %d: failing iteration %d (threshold %d): %d nodes, digest %#x; sequential %d, %#x",
				in.ID, i, st.Threshold, st.Nodes, st.Digest, want.Nodes, want.Digest)
		}
		if last && (st.Nodes < 1 || st.Nodes > want.Nodes*100) {
			return fmt.Errorf("korf %d: final iteration: %d nodes, sequential %d", in.ID, st.Nodes, want.Nodes)
		}
		sum += st.Nodes
	}
	if got.Nodes != sum {
		return fmt.Errorf("korf %d: %d nodes, the iterations sum to %d plus the root", in.ID, got.Nodes, sum)
	}
	return nil
}

// TestEasiestAllBalancers: the 10 easiest Korf instances (4 under -short),
// solved by puzzle.Solve (exact node counts of the table) and by Solve
// under every balancer variant and rank count of the embedded world
// (lbtest.EachVariant):
// optimal lengths, solutions that reach the goal, and failing iterations
// with the sequential node counts exactly.
func TestEasiestAllBalancers(t *testing.T) {
	embeddedOnly(t)
	n := 10
	if testing.Short() {
		n = 4
	}
	ins := easiest(t, n)
	seq := make([]Result, len(ins))
	for i, in := range ins {
		seq[i] = sequential(t, in)
	}
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, ranks int) {
		err := mpi.Run(ranks, func(c *mpi.Comm) error {
			for i, in := range ins {
				cfg := v.Config(0, uint64(i+1))
				cfg.RankStats = true
				got, out, err := Solve(driver.New(c), in.State, cfg)
				if err != nil {
					return err
				}
				if err := checkResult(in, got, seq[i]); err != nil {
					return err
				}
				if (c.Rank() == 0) != (len(out.Ranks) == ranks) || out.Total.Nodes != got.Nodes-1 {
					return fmt.Errorf("korf %d: statistics of %d ranks, %d nodes, want %d", in.ID, len(out.Ranks), out.Total.Nodes, got.Nodes-1)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestFailingIterationsSimulated: every failing iteration of two small
// instances, and their final iteration, under every balancer on the fake
// network (random delays reorder messages between pairs), with and without
// fast initialisation, at P = 1, 3, 16 and 64, with eight seeds: the failing
// ones generate exactly the sequential nodes and find the same next
// threshold; the final one finds a valid solution.
func TestFailingIterationsSimulated(t *testing.T) {
	embeddedOnly(t) // no world needed, but no need to repeat it on every rank of mpirun either
	if testing.Short() {
		t.Skip("simulates a few hundred runs")
	}
	for _, in := range easiest(t, 2) {
		seq, err := puzzle.Solve(in.State)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range lb.Balancers() {
			for _, fast := range []bool{false, true} {
				for k, p := range []int{1, 3, 16, 64} {
					// One seed per case, a different one for each: the static
					// balancers make every rank build its share of many
					// leaves, which is slow to simulate at P = 64.
					seed := uint64(1 + 2*k)
					if fast {
						seed++
					}
					for _, want := range seq.Iterations {
						cfg := lb.Config{Balancer: info.New, Options: lbtest.WithOption(info, nil, "fast-init", strconv.FormatBool(fast)), Budget: 300, Seed: seed}
						if err := simulate(in.State, want, cfg, p, seed); err != nil {
							t.Fatalf("korf %d %s fast=%v P=%d seed %d: %v", in.ID, info.Name, fast, p, seed, err)
						}
					}
				}
			}
		}
	}
}

// simulate runs the iteration described by want on p simulated ranks and
// checks its outcome.
func simulate(s puzzle.State, want puzzle.IterStats, cfg lb.Config, p int, seed uint64) error {
	w, err := sim.New(p, sim.Config{Seed: seed})
	if err != nil {
		return err
	}
	got, out, err := RunIteration(w, s, want.Threshold, cfg)
	if err != nil {
		return err
	}
	if got.Found != want.Solved {
		return fmt.Errorf("threshold %d: found %v, sequential %v", want.Threshold, got.Found, want.Solved)
	}
	if want.Solved {
		end, err := puzzle.ApplyMoves(s, got.Moves)
		if err != nil || end != puzzle.Goal() || len(got.Moves) != want.Threshold {
			return fmt.Errorf("threshold %d: solution %s ends at %v (%v)", want.Threshold, puzzle.FormatMoves(got.Moves), end, err)
		}
		return nil
	}
	if got.Nodes != want.Nodes || out.Total.Nodes != want.Nodes || got.MinExceeded != want.MinExceeded || got.Digest != want.Digest {
		return fmt.Errorf("threshold %d: %d nodes (driver %d), next threshold %d, digest %#x; sequential %d nodes, next %d, %#x",
			want.Threshold, got.Nodes, out.Total.Nodes, got.MinExceeded, got.Digest, want.Nodes, want.MinExceeded, want.Digest)
	}
	return nil
}

// TestRandomSchedules works iterations through the tasks of one Iteration
// in random slices, splits and transfers through AppendBinary and
// Unmarshal, as balancers do, and checks the Iteration's result against
// puzzle.Iterate: the same nodes and next threshold for failing iterations,
// a valid solution for the final one.
func TestRandomSchedules(t *testing.T) {
	in := easiest(t, 1)[0]
	seq, err := puzzle.Solve(in.State)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range seq.Iterations {
		for seed := range uint64(8) {
			rng := rand.New(rand.NewPCG(seed, uint64(want.Threshold)))
			it, err := NewIteration(in.State, want.Threshold)
			if err != nil {
				t.Fatal(err)
			}
			pool := []lb.Task{it.Root()}
			for len(pool) > 0 && !it.Solved() {
				i := rng.IntN(len(pool))
				task := pool[i]
				switch x := rng.IntN(10); {
				case x < 6:
					b := int64(1 + rng.IntN(5000))
					if n := task.Work(b); n > b || (n < b && !task.Empty()) {
						t.Fatalf("Work(%d) = %d, empty %v", b, n, task.Empty())
					}
				case x < 8:
					if piece := task.Split(); piece != nil {
						pool = append(pool, piece)
					}
				default: // move the whole task, as a shuffle does
					data, err := task.AppendBinary([]byte("x"))
					if err != nil {
						t.Fatal(err)
					}
					if pool[i], err = it.Unmarshal(data[1:]); err != nil {
						t.Fatal(err)
					}
				}
				if pool[i].Empty() {
					pool = slices.Delete(pool, i, i+1)
				}
			}
			got := it.Result()
			if want.Solved {
				end, err := puzzle.ApplyMoves(in.State, got.Moves)
				if !got.Found || !it.Solved() || err != nil || end != puzzle.Goal() || len(got.Moves) != want.Threshold {
					t.Fatalf("threshold %d seed %d: %+v ends at %v", want.Threshold, seed, got, end)
				}
			} else if got.Found || got.Nodes != want.Nodes || got.MinExceeded != want.MinExceeded || got.Digest != want.Digest {
				t.Fatalf("threshold %d seed %d: %+v, sequential %+v", want.Threshold, seed, got, want)
			}
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	in := easiest(t, 1)[0]
	h := in.State.Manhattan()
	it, _ := NewIteration(in.State, h)
	other, _ := NewIteration(in.State, h+2)
	foreign, err := other.Root().AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{nil, {1}, {9, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0}, foreign} {
		if _, err := it.Unmarshal(b); err == nil {
			t.Errorf("Unmarshal(%v) succeeded", b)
		}
	}
	if _, err := NewIteration(in.State, puzzle.MaxThreshold+1); err == nil {
		t.Error("NewIteration accepted a threshold above MaxThreshold")
	}
	if _, err := NewIteration(puzzle.State{}, 10); err == nil {
		t.Error("NewIteration accepted an invalid board")
	}
}

// TestCombine: Combine is commutative and associative and keeps the better
// solution.
func TestCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() Outcome {
		o := Outcome{Nodes: rng.Int64N(1e12), MinExceeded: puzzle.NoExceeded}
		if rng.IntN(2) == 0 {
			o.MinExceeded = 40 + rng.IntN(5)
		}
		if rng.IntN(3) == 0 {
			o.Found = true
			o.Moves = make([]puzzle.Move, 3+rng.IntN(2))
			for i := range o.Moves {
				o.Moves[i] = puzzle.Move(rng.IntN(4))
			}
		}
		return o
	}
	var it Iteration
	same := func(a, b Outcome) bool {
		return a.Nodes == b.Nodes && a.MinExceeded == b.MinExceeded && a.Found == b.Found && slices.Equal(a.Moves, b.Moves)
	}
	for range 2000 {
		a, b, c := random(), random(), random()
		ab := it.Combine(a, b)
		if !same(ab, it.Combine(b, a)) {
			t.Fatalf("not commutative: %+v %+v", a, b)
		}
		if !same(it.Combine(ab, c), it.Combine(a, it.Combine(b, c))) {
			t.Fatalf("not associative: %+v %+v %+v", a, b, c)
		}
		if ab.Nodes != a.Nodes+b.Nodes || ab.MinExceeded != min(a.MinExceeded, b.MinExceeded) || ab.Found != (a.Found || b.Found) ||
			(ab.Found && (a.Better(ab) || b.Better(ab))) {
			t.Fatalf("combine(%+v, %+v) = %+v", a, b, ab)
		}
	}
}

// TestGoalAndBadBoards: the goal takes 0 moves under every balancer, and
// invalid or unsolvable boards are rejected before any search.
func TestGoalAndBadBoards(t *testing.T) {
	embeddedOnly(t)
	swapped := puzzle.Goal()
	swapped[1], swapped[2] = swapped[2], swapped[1]
	for _, info := range lb.Balancers() {
		for _, ranks := range []int{1, 3} {
			err := mpi.Run(ranks, func(c *mpi.Comm) error {
				w := driver.New(c)
				cfg := lb.Config{Balancer: info.New, Options: lbtest.WithOption(info, nil, "fast-init", strconv.FormatBool(ranks > 1))}
				r, _, err := Solve(w, puzzle.Goal(), cfg)
				if err != nil {
					return err
				}
				if r.Length != 0 || len(r.Moves) != 0 || r.Nodes != 1 || len(r.Iterations) != 1 || r.Iterations[0].Failed {
					return fmt.Errorf("goal: %+v", r)
				}
				if _, _, err := Solve(w, swapped, cfg); !errors.Is(err, puzzle.ErrUnsolvable) {
					return fmt.Errorf("unsolvable board: %v", err)
				}
				if _, _, err := Solve(w, puzzle.State{}, cfg); err == nil {
					return errors.New("invalid board accepted")
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s P=%d: %v", info.Name, ranks, err)
			}
		}
	}
}

// TestSimLargeP: the two last failing iterations and the final one of the
// easiest instance on 1024 and 4096 simulated ranks of the GCel model,
// under every balancer (lbtest.LargeP): the failing ones generate exactly
// the sequential nodes and find the same next threshold, the final one a
// valid solution, and the same seeds give the same outcome twice.
func TestSimLargeP(t *testing.T) {
	embeddedOnly(t)
	in := easiest(t, 1)[0]
	seq, err := puzzle.Solve(in.State)
	if err != nil {
		t.Fatal(err)
	}
	its := seq.Iterations[max(0, len(seq.Iterations)-3):]
	mi, err := lb.LookupMachine("gcel")
	if err != nil {
		t.Fatal(err)
	}
	lbtest.LargeP(t, 1000, 5, func(t *testing.T, cfg lb.Config, p int) {
		for _, want := range its {
			var outs []*lb.Outcome
			for range 2 {
				w, err := sim.New(p, sim.Config{Seed: 5, Machine: mi.For(NodeCosts())})
				if err != nil {
					t.Fatal(err)
				}
				got, out, err := RunIteration(w, in.State, want.Threshold, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if want.Solved {
					end, err := puzzle.ApplyMoves(in.State, got.Moves)
					if !got.Found || err != nil || end != puzzle.Goal() || len(got.Moves) != want.Threshold {
						t.Fatalf("threshold %d: solution %s (%v)", want.Threshold, puzzle.FormatMoves(got.Moves), err)
					}
				} else if got.Found || got.Nodes != want.Nodes || out.Total.Nodes != want.Nodes || got.MinExceeded != want.MinExceeded || got.Digest != want.Digest {
					t.Fatalf("threshold %d: %d nodes, next %d; sequential %d nodes, next %d",
						want.Threshold, got.Nodes, got.MinExceeded, want.Nodes, want.MinExceeded)
				}
				out.Sim.RealSeconds = 0
				outs = append(outs, out)
			}
			if !reflect.DeepEqual(outs[0], outs[1]) {
				t.Errorf("threshold %d: two runs differ:\n%+v\n%+v", want.Threshold, outs[0], outs[1])
			}
		}
	})
}

// TestEmbeddedLargeP (issue 10 item 7): the last failing iteration and the
// final one of the easiest instance on 1024 goroutine ranks of the embedded
// world, as `fifteen --np 1024` runs them, under every balancer
// (lbtest.LargeEmbedded): the failing one generates exactly the sequential
// nodes and finds the same next threshold on every rank, the final one a
// valid optimal solution.
func TestEmbeddedLargeP(t *testing.T) {
	embeddedOnly(t)
	in := easiest(t, 1)[0]
	seq, err := puzzle.Solve(in.State)
	if err != nil {
		t.Fatal(err)
	}
	its := seq.Iterations[max(0, len(seq.Iterations)-2):]
	lbtest.LargeEmbedded(t, 1000, 5, func(t *testing.T, cfg lb.Config, p int) {
		err := mpi.Run(p, func(c *mpi.Comm) error {
			for _, want := range its {
				got, _, err := RunIteration(driver.New(c), in.State, want.Threshold, cfg)
				if err != nil {
					return err
				}
				if want.Solved {
					end, err := puzzle.ApplyMoves(in.State, got.Moves)
					if !got.Found || err != nil || end != puzzle.Goal() || len(got.Moves) != want.Threshold {
						return fmt.Errorf("rank %d, threshold %d: solution %s (%v)", c.Rank(), want.Threshold, puzzle.FormatMoves(got.Moves), err)
					}
				} else if got.Found || got.Nodes != want.Nodes || got.MinExceeded != want.MinExceeded || got.Digest != want.Digest {
					return fmt.Errorf("rank %d, threshold %d: %d nodes, next %d; sequential %d nodes, next %d",
						c.Rank(), want.Threshold, got.Nodes, got.MinExceeded, want.Nodes, want.MinExceeded)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
