package ruler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
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
	return DecodeResult(p.Result(), n)
}

// TestSplitPackEquivalence: random split schedules, with every piece packed
// and unpacked, cover the exhaustive search exactly: same nodes, same rulers.
func TestSplitPackEquivalence(t *testing.T) {
	const n, maxLen = 8, 40
	want := countSeq(t, n, maxLen)
	if want.Solutions == 0 {
		t.Fatal("no rulers to count")
	}
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 1))
		p, _ := NewProblem(n, shorter(t, n), Count, maxLen)
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
				if piece := task.Split(); piece != nil {
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
		got := DecodeResult(p.Result(), n)
		if got.Nodes != want.Nodes || got.Solutions != want.Solutions {
			t.Fatalf("seed %d: %d nodes %d rulers, sequential %d nodes %d rulers", seed, got.Nodes, got.Solutions, want.Nodes, want.Solutions)
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
// gives exactly the sequential node and ruler counts under every balancer,
// rank count and seeded schedule of the fake network, which delays and
// reorders messages between different pairs.
func TestFakeNetwork(t *testing.T) {
	const n, maxLen = 9, 50
	want := countSeq(t, n, maxLen)
	g := shorter(t, n)
	for _, name := range lb.Names() {
		for _, fast := range []bool{false, true} {
			for _, ranks := range []int{1, 2, 3, 7, 16, 64} {
				for seed := uint64(1); seed <= 3; seed++ {
					apps := make([]lb.App, ranks)
					for r := range apps {
						apps[r], _ = NewProblem(n, g, Count, maxLen)
					}
					out, err := lb.Simulate(apps, name, lb.Options{FastInit: fast}, lb.SimConfig{Seed: seed, Budget: 200})
					if err != nil {
						t.Fatalf("%s fast=%v P=%d seed %d: %v", name, fast, ranks, seed, err)
					}
					got := DecodeResult(out.Result, n)
					if got.Nodes != want.Nodes || got.Solutions != want.Solutions || out.Total.Nodes != want.Nodes {
						t.Fatalf("%s fast=%v P=%d seed %d: %d nodes %d rulers, sequential %d nodes %d rulers",
							name, fast, ranks, seed, got.Nodes, got.Solutions, want.Nodes, want.Solutions)
					}
				}
			}
		}
	}
}

// TestOptimalParallel: optimal lengths for 2..12 marks under rp (2..10
// with -short) and 2..10 under every other balancer, with ranks {1, 2, 3, 7,
// 16}, fast initialisation on and off, on the embedded world.
func TestOptimalParallel(t *testing.T) {
	want := optimal(t)
	for _, name := range lb.Names() {
		top := 10
		if name == "rp" && !testing.Short() {
			top = 12
		}
		for _, fast := range []bool{false, true} {
			for _, ranks := range []int{1, 2, 3, 7, 16} {
				err := mpi.Run(ranks, func(c *mpi.Comm) error {
					steps, out, err := SolveParallel(c, top, name, lb.Options{FastInit: fast}, lb.Config{Seed: 3})
					if err != nil {
						return err
					}
					for _, s := range steps {
						if l := s.Ruler[s.Marks-1]; l != want[s.Marks] || !Valid(s.Ruler) {
							return fmt.Errorf("%d marks: %v, want length %d", s.Marks, s.Ruler, want[s.Marks])
						}
					}
					if out.Total.Nodes == 0 || len(out.Ranks) != ranks {
						return fmt.Errorf("statistics %+v", out.Total)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("%s fast=%v P=%d: %v", name, fast, ranks, err)
				}
			}
		}
	}
}
