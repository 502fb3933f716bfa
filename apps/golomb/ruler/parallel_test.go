package ruler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// shorter returns g for n marks from the reference data.
func shorter(t testing.TB, n int) []int {
	want := optimal(t)
	g := make([]int, n)
	for m := 1; m < n; m++ {
		g[m] = want[m]
	}
	return g
}

func countSeq(t testing.TB, n, maxLen int) Outcome {
	p, err := NewProblem(n, shorter(t, n), Count, maxLen)
	if err != nil {
		t.Fatal(err)
	}
	r := p.Root()
	for !r.Empty() {
		r.Work(1 << 62)
	}
	return p.Result()
}

// TestSplitPackEquivalence: random split schedules, with every piece packed
// and unpacked, cover the exhaustive search exactly: same nodes, same rulers;
// whether Split gives work away at the shallowest level (a count) or near
// the frontier first (the near levels of branch-and-bound, here on the
// count so that the totals are exact), by Split or SplitEven.
func TestSplitPackEquivalence(t *testing.T) {
	const n, maxLen = 8, 40
	want := countSeq(t, n, maxLen)
	if want.Solutions == 0 {
		t.Fatal("no rulers to count")
	}
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 1))
		p, _ := NewProblem(n, shorter(t, n), Count, maxLen)
		p.near = int(seed % 3 * 2) // 0, 2, 4
		pool := []lb.Task{p.Root()}
		for len(pool) > 0 {
			i := rng.IntN(len(pool))
			task := pool[i]
			task.Work(int64(1 + rng.IntN(300)))
			if rng.IntN(5) == 0 { // move the whole task, as a shuffle does
				b, err := task.AppendBinary(nil)
				if err != nil {
					t.Fatal(err)
				}
				if pool[i], err = p.Unmarshal(b); err != nil {
					t.Fatal(err)
				}
				task = pool[i]
			}
			if rng.IntN(3) == 0 {
				split := task.Split
				if rng.IntN(2) == 0 { // as poll-and-shuffle splits
					split = task.(lb.EvenSplitter).SplitEven
				}
				if piece := split(); piece != nil {
					b, err := piece.AppendBinary(nil)
					if err != nil {
						t.Fatal(err)
					}
					u, err := p.Unmarshal(b)
					if err != nil {
						t.Fatal(err)
					}
					pool = append(pool, u)
				}
			}
			if task.Empty() {
				pool = append(pool[:i], pool[i+1:]...)
			}
		}
		got := p.Result()
		if got.Nodes != want.Nodes || got.Solutions != want.Solutions || got.Digest != want.Digest {
			t.Fatalf("seed %d (near %d): %d nodes %d rulers digest %#x, sequential %d nodes %d rulers %#x", seed, p.near, got.Nodes, got.Solutions, got.Digest, want.Nodes, want.Solutions, want.Digest)
		}
	}
}

func TestUnmarshalRejectsGarbage(t *testing.T) {
	p, _ := NewProblem(8, shorter(t, 8), Count, 40)
	for _, b := range [][]byte{nil, {200}, {2, 5}, {3, 2, 1, 3, 4}, append([]byte{2, 2, 3, 3}, make([]byte, 32)...)} {
		if _, err := p.Unmarshal(b); err == nil {
			t.Errorf("Unmarshal(%v) succeeded", b)
		}
	}
}

// TestFakeNetwork: the exhaustive count (all 9-mark rulers up to length 50)
// gives exactly the sequential node and ruler counts under every balancer
// variant and rank count (lbtest.EachVariant) and seeded schedule of the
// fake network, which delays and reorders messages between different pairs.
func TestFakeNetwork(t *testing.T) {
	const n, maxLen = 9, 50
	want := countSeq(t, n, maxLen)
	g := shorter(t, n)
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, ranks int) {
		for seed := uint64(1); seed <= 3; seed++ {
			w, err := sim.New(ranks, sim.Config{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			got, out, err := CountParallel(w, n, g, maxLen, v.Config(200, seed))
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if got.Nodes != want.Nodes || got.Solutions != want.Solutions || got.Digest != want.Digest || out.Total.Nodes != want.Nodes {
				t.Fatalf("seed %d: %d nodes %d rulers, sequential %d nodes %d rulers",
					seed, got.Nodes, got.Solutions, want.Nodes, want.Solutions)
			}
		}
	})
}

// TestOptimalParallel: optimal lengths for 2..10 marks under every
// balancer variant, on every rank count of lbtest.EachVariant, on the
// embedded world, and 2..12 under rp on its largest rank count (not with
// -short; on each of the five counts it took 17 s); and the whole
// multi-step run on four times as many simulated ranks.
func TestOptimalParallel(t *testing.T) {
	want := optimal(t)
	check := func(steps []Step, out *lb.Outcome) error {
		var nodes int64
		for _, s := range steps {
			if l := s.Ruler[s.Marks-1]; l != want[s.Marks] || !Valid(s.Ruler) {
				return fmt.Errorf("%d marks: %v, want length %d", s.Marks, s.Ruler, want[s.Marks])
			}
			nodes += s.Nodes
		}
		if nodes == 0 || out.Total.Nodes != nodes {
			return fmt.Errorf("statistics count %d nodes, the steps %d", out.Total.Nodes, nodes)
		}
		return nil
	}
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, ranks int) {
		top := 10
		if v.Name == "rp" && ranks == slices.Max(lbtest.Ranks("embedded")) && !testing.Short() {
			top = 12
		}
		err := mpi.Run(ranks, func(c *mpi.Comm) error {
			steps, out, err := SolveParallel(driver.New(c), top, v.Config(0, 3))
			if err != nil {
				return err
			}
			return check(steps, out)
		})
		if err != nil {
			t.Fatal(err)
		}
		w, err := sim.New(ranks*4, sim.Config{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		steps, out, err := SolveParallel(w, 9, v.Config(500, 3))
		if err != nil {
			t.Fatalf("simulated, %d ranks: %v", ranks*4, err)
		}
		if err := check(steps, out); err != nil {
			t.Fatalf("simulated, %d ranks: %v", ranks*4, err)
		}
	})
}

// leafTasks splits a fresh root k times along every path, as static
// placement does (lb's leaves), with Split or in place (Halve), and returns
// the 2^k leaves (nil where a split gave nothing), each packed and
// unpacked.
func leafTasks(t *testing.T, p *Problem, k int, inPlace bool) []lb.Task {
	t.Helper()
	var out []lb.Task
	for j := range 1 << k {
		task := p.Root()
		for b := 0; b < k && task != nil; b++ {
			give := j>>b&1 == 1
			if inPlace {
				if !task.(*Search).Halve(give) && give {
					task = nil
				}
			} else if piece := task.Split(); give {
				task = piece
			}
		}
		if task != nil {
			data, err := task.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			if task, err = p.Unmarshal(data); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, task)
	}
	return out
}

// TestSplitKeepsHalving: splitting a fresh root k times along every path
// (static placement's 2^k leaves), with Split or in place with Halve, keeps
// dividing the tree below its first level: the leaves cover the exhaustive
// search exactly, and for k = 10 most of the 1024 leaves hold work, where
// splitting only the first level gave at most one leaf per legal first
// distance (16 here).
func TestSplitKeepsHalving(t *testing.T) {
	const n, maxLen = 10, 60
	want := countSeq(t, n, maxLen)
	for _, k := range []int{1, 4, 10, -10} {
		p, _ := NewProblem(n, shorter(t, n), Count, maxLen)
		busy := 0
		for _, task := range leafTasks(t, p, max(k, -k), k < 0) {
			if task == nil || task.Empty() {
				continue
			}
			if task.Work(1<<62) > 0 {
				busy++
			}
		}
		got := p.Result()
		if got.Nodes != want.Nodes || got.Solutions != want.Solutions || got.Digest != want.Digest {
			t.Fatalf("k=%d: leaves hold %d nodes %d rulers digest %#x, sequential %d nodes %d rulers %#x", k, got.Nodes, got.Solutions, got.Digest, want.Nodes, want.Solutions, want.Digest)
		}
		if max(k, -k) == 10 && busy < 900 {
			t.Fatalf("k=%d: %d of 1024 leaves hold work", k, busy)
		}
		if max(k, -k) == 10 && got.Replayed == 0 {
			t.Fatalf("k=%d: the halvings below the first level replayed no frame", k)
		}
		t.Logf("k=%d (in place: %v): %d of %d leaves hold work", max(k, -k), k < 0, busy, 1<<max(k, -k))
	}
}

// TestSimLargeP: the exhaustive count (9-mark rulers up to length 50) on
// 1024 and 4096 simulated ranks of the GCel model (a mesh with contention)
// under every balancer (lbtest.LargeP) gives exactly the sequential nodes
// and rulers, every rank terminates once (the asynchronous balancers' exit
// wave reaches each rank but 0 once), and a second run with the same seeds
// is the same.
func TestSimLargeP(t *testing.T) {
	const n, maxLen = 9, 50
	want := countSeq(t, n, maxLen)
	g := shorter(t, n)
	mi, err := lb.LookupMachine("gcel")
	if err != nil {
		t.Fatal(err)
	}
	lbtest.LargeP(t, 200, 7, func(t *testing.T, cfg lb.Config, p int) {
		run := func() (*lb.Outcome, error) {
			w, err := sim.New(p, sim.Config{Seed: 7, Machine: mi.For(NodeCosts())})
			if err != nil {
				return nil, err
			}
			got, out, err := CountParallel(w, n, g, maxLen, cfg)
			if err != nil {
				return nil, err
			}
			if got.Nodes != want.Nodes || got.Solutions != want.Solutions || out.Total.Nodes != want.Nodes {
				return nil, fmt.Errorf("%d nodes %d rulers, sequential %d nodes %d rulers", got.Nodes, got.Solutions, want.Nodes, want.Solutions)
			}
			return out, nil
		}
		a, err := run()
		if err != nil {
			t.Fatal(err)
		}
		if m := a.Total.Messages; m[lb.KPair] == 0 && m[lb.KExit] != int64(p-1) {
			t.Errorf("%d exit messages, want %d", m[lb.KExit], p-1)
		}
		b, err := run()
		if err != nil {
			t.Fatal(err)
		}
		a.Sim.RealSeconds, b.Sim.RealSeconds = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Errorf("two runs differ:\n%+v\n%+v", a, b)
		}
	})
}

// TestEmbeddedLargeP (issue 10 item 7): the exhaustive count on 1024
// goroutine ranks of the embedded world, as `golomb --np 1024 --count 50 9`
// runs it, under every balancer (lbtest.LargeEmbedded): exactly the
// sequential nodes and rulers on every rank's copy of the result, and the
// exit wave reaches every rank but 0 once; then, in the same world, the
// branch-and-bound search for the shortest 9-mark ruler (incumbents spread
// over 1024 ranks) finds optimal rulers for every step.
func TestEmbeddedLargeP(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts a world of 1024 goroutine ranks")
	}
	const n, maxLen = 9, 50
	want := countSeq(t, n, maxLen)
	g := shorter(t, n)
	opt := optimal(t)
	lbtest.LargeEmbedded(t, 2000, 11, func(t *testing.T, cfg lb.Config, p int) {
		err := mpi.Run(p, func(c *mpi.Comm) error {
			got, out, err := CountParallel(driver.New(c), n, g, maxLen, cfg)
			if err != nil {
				return err
			}
			if got.Nodes != want.Nodes || got.Solutions != want.Solutions {
				return fmt.Errorf("rank %d: %d nodes %d rulers, sequential %d nodes %d rulers",
					c.Rank(), got.Nodes, got.Solutions, want.Nodes, want.Solutions)
			}
			if m := out.Total.Messages; c.Rank() == 0 && out.Total.Nodes != want.Nodes {
				return fmt.Errorf("statistics count %d nodes, want %d", out.Total.Nodes, want.Nodes)
			} else if c.Rank() == 0 && m[lb.KPair] == 0 && m[lb.KExit] != int64(p-1) {
				return fmt.Errorf("%d exit messages, want %d", m[lb.KExit], p-1)
			}
			steps, _, err := SolveParallel(driver.New(c), n, cfg)
			if err != nil {
				return err
			}
			for _, s := range steps {
				if l := s.Ruler[s.Marks-1]; l != opt[s.Marks] || !Valid(s.Ruler) {
					return fmt.Errorf("rank %d, %d marks: %v, want length %d", c.Rank(), s.Marks, s.Ruler, opt[s.Marks])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestSplitEvenShallowest: in a branch-and-bound search with a near level,
// Split gives away near the frontier and SplitEven at the shallowest level
// that has work (lb.EvenSplitter, for poll-and-shuffle), from the same
// task; each piece and what stays cover the task exactly (the equivalence
// test above).
func TestSplitEvenShallowest(t *testing.T) {
	p, err := NewProblem(12, shorter(t, 12), Shortest, MaxLength)
	if err != nil {
		t.Fatal(err)
	}
	if p.near < 2 {
		t.Fatalf("near level %d for 12 marks: the test needs one", p.near)
	}
	task := p.Root()
	task.Work(5000)
	b, err := task.AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := p.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	level := func(piece lb.Task) int {
		t.Helper()
		if piece == nil {
			t.Fatal("no piece")
		}
		e, err := piece.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		return int(e[0]) // the piece's base level
	}
	near, even := level(task.Split()), level(twin.(lb.EvenSplitter).SplitEven())
	if even != 0 || near == 0 || near > p.near {
		t.Fatalf("Split gave away at level %d, SplitEven at %d: want 1..%d and 0", near, even, p.near)
	}
}
