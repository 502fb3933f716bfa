package driver_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// TestDriverEmbedded runs every balancer variant with the real driver over
// the embedded MPI world, on every rank count of the variant table
// (lbtest.EachVariant): exhaustive counts equal the sequential ones, and
// branch-and-bound and first-solution searches give the sequential answer.
func TestDriverEmbedded(t *testing.T) {
	depth := 19
	if testing.Short() {
		depth = 16
	}
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, p int) {
		err := mpi.Run(p, func(c *mpi.Comm) error {
			w := driver.New(c)
			for _, mode := range []lbtest.Mode{lbtest.Count, lbtest.Bound, lbtest.First} {
				got, out, err := lb.Run(w, v.Config(64, 1), func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(4, depth, mode) })
				if err != nil {
					return err
				}
				if err := lbtest.Check(got, out, 4, depth, mode); err != nil {
					return fmt.Errorf("mode %d: %w", mode, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestRankStats: per-rank statistics reach rank 0 only, and sum to the
// totals every rank gets.
func TestRankStats(t *testing.T) {
	const p = 5
	err := mpi.Run(p, func(c *mpi.Comm) error {
		cfg := lb.Config{Budget: 100, RankStats: true}
		_, out, err := lb.Run(driver.New(c), cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, 18, lbtest.Count) })
		if err != nil {
			return err
		}
		if c.Rank() != 0 {
			if out.Ranks != nil {
				return fmt.Errorf("rank %d got %d ranks' statistics", c.Rank(), len(out.Ranks))
			}
			return nil
		}
		if len(out.Ranks) != p {
			return fmt.Errorf("rank 0 got %d ranks' statistics", len(out.Ranks))
		}
		var sum lb.Stats
		for r := range out.Ranks {
			if out.Ranks[r].Rank != r {
				return fmt.Errorf("statistics %d are rank %d's", r, out.Ranks[r].Rank)
			}
			sum.Add(&out.Ranks[r])
		}
		if sum.Nodes != out.Total.Nodes || sum.MessagesSent != out.Total.MessagesSent {
			return fmt.Errorf("per-rank sums %d nodes, %d messages; totals %d, %d", sum.Nodes, sum.MessagesSent, out.Total.Nodes, out.Total.MessagesSent)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestProgress: rank 0 gets snapshots of a running search whose node counts
// grow, add up over the runs of one World, and end with the totals.
func TestProgress(t *testing.T) {
	const p = 6
	err := mpi.Run(p, func(c *mpi.Comm) error {
		var snaps []lb.Progress
		cfg := lb.Config{Budget: 50, ProgressEvery: time.Millisecond,
			Progress: func(s lb.Progress) { snaps = append(snaps, s) }}
		w := driver.New(c)
		var total int64
		for run := range 2 {
			_, out, err := lb.Run(w, cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(uint64(run), 17, lbtest.Count) })
			if err != nil {
				return err
			}
			total += out.Total.Nodes
		}
		if c.Rank() != 0 {
			if len(snaps) > 0 {
				return fmt.Errorf("rank %d got %d snapshots", c.Rank(), len(snaps))
			}
			return nil
		}
		if len(snaps) < 3 {
			return fmt.Errorf("%d snapshots", len(snaps))
		}
		for i, s := range snaps {
			if s.Ranks != p || s.Busy > p || s.Nodes > total || i > 0 && s.Nodes < snaps[i-1].Nodes {
				return fmt.Errorf("snapshot %d: %+v after %+v (total %d nodes)", i, s, snaps[max(i-1, 0)], total)
			}
		}
		if last := snaps[len(snaps)-1]; last.Nodes != total || last.Busy != 0 {
			return fmt.Errorf("last snapshot %+v, want %d nodes and no busy rank", last, total)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSuspendEmbedded suspends a count at a random moment on 3 goroutine
// ranks of the embedded world, resumes it on 7 ranks and suspends it
// again, and finishes it on 2 simulated ranks, under every balancer
// variant (under -short the balancers' defaults, lbtest.ShortVariants):
// the count is the sequential one exactly, and every rank learns of each
// suspension while only rank 0 holds the open tasks. The first suspension
// is rank 0's; the second begins on the last rank alone, as it starts (an
// MPI rank whose process caught a signal: RankConfig.Due), and spreads to
// all.
func TestSuspendEmbedded(t *testing.T) {
	const depth, seed = 18, 6
	newApp := func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(seed, depth, lbtest.Count) }
	want := lbtest.Sequential(seed, depth, lbtest.Count)
	for i, v := range lbtest.ShortVariants() {
		t.Run(v.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			var resume *lb.Suspended
			for seg, p := range []int{3, 7} {
				k := 1 + rng.IntN(20)
				if seg == 1 {
					// The last rank asks at its first poll, as it starts:
					// idle, it polls only after a message or a tick of 20
					// ms (mpi-test.sh signals a rank alone in the middle of
					// a search).
					k = 1
				}
				var got *lb.Suspended
				err := mpi.Run(p, func(c *mpi.Comm) error {
					cfg := v.Config(64, uint64(seg))
					cfg.Resume = resume
					if asks := []int{0, p - 1}[seg]; c.Rank() == asks {
						cfg.CheckpointDue = lbtest.DueAfter(k)
					}
					_, _, err := lb.Run(driver.New(c), cfg, newApp)
					var s *lb.Suspended
					if !errors.As(err, &s) {
						return fmt.Errorf("rank %d: segment %d not suspended at poll %d: %v", c.Rank(), seg, k, err)
					}
					if c.Rank() == 0 {
						got = s
					} else if s.Tasks != nil {
						return fmt.Errorf("rank %d holds %d open tasks", c.Rank(), len(s.Tasks))
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				// The last rank's goroutine may join its search after the
				// others did all its work (on one CPU it did, most times):
				// then the suspension comes after the end, and leaves
				// nothing, which the last segment must finish all the same.
				late := seg == 1 && len(got.Tasks) == 0 && got.Nodes == want.Nodes
				if !late && (len(got.Tasks) == 0 || got.Nodes >= want.Nodes) {
					t.Fatalf("segment %d: %d open tasks after %d of %d nodes", seg, len(got.Tasks), got.Nodes, want.Nodes)
				}
				resume = got
			}
			w, err := sim.New(2, sim.Config{Seed: 5})
			if err != nil {
				t.Fatal(err)
			}
			cfg := v.Config(64, 9)
			cfg.Resume = resume
			res, out, err := lb.Run(w, cfg, newApp)
			if err != nil {
				t.Fatal(err)
			}
			if res.Nodes != want.Nodes || resume.Nodes+out.Total.Nodes != want.Nodes {
				t.Fatalf("nodes %d (%d before the last segment + %d), sequential %d", res.Nodes, resume.Nodes, out.Total.Nodes, want.Nodes)
			}
		})
	}
}

// TestPoolPanic: a panic in a rank's turn on the pool (here rank 0's poll
// of Config.CheckpointDue, which a worker runs) ends the run with an
// *mpi.PanicError that names the rank, leaves no rank waiting, and the
// pool's workers end with the run.
func TestPoolPanic(t *testing.T) {
	before := runtime.NumGoroutine()
	done := make(chan error, 1)
	go func() {
		done <- mpi.Run(6, func(c *mpi.Comm) error {
			cfg := lb.Config{Budget: 50}
			if c.Rank() == 0 {
				cfg.CheckpointDue = func() bool { panic("boom") }
			}
			w := driver.NewWith(c, driver.Options{Pool: driver.PoolAlways})
			_, _, err := lb.Run(w, cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, 14, lbtest.Count) })
			return err
		})
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a panic on the pool left the run waiting")
	}
	var pe *mpi.PanicError
	if !errors.As(err, &pe) || pe.Rank != 0 || pe.Value != "boom" || !strings.Contains(string(pe.Stack), "(*session).turn") {
		t.Fatalf("got %v, want rank 0's panic on a worker of the pool", err)
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines after the run, %d before", runtime.NumGoroutine(), before)
		}
	}
}

// TestPoolModes: the pool and the goroutine loop give the same exhaustive
// count, also where the ranks do not outnumber the cores (PoolAlways) and
// where they do (PoolNever); the times each rank reports are its own.
func TestPoolModes(t *testing.T) {
	want := lbtest.Sequential(5, 15, lbtest.Count)
	for _, mode := range []driver.Pool{driver.PoolAuto, driver.PoolNever, driver.PoolAlways} {
		for _, p := range []int{1, 2, 5} {
			err := mpi.Run(p, func(c *mpi.Comm) error {
				w := driver.NewWith(c, driver.Options{Pool: mode})
				got, out, err := lb.Run(w, lb.Config{Budget: 40, RankStats: true}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(5, 15, lbtest.Count) })
				if err != nil {
					return err
				}
				if got != want {
					return fmt.Errorf("got %+v, want %+v", got, want)
				}
				if c.Rank() == 0 {
					if err := lbtest.CheckTimes(out); err != nil {
						return err
					}
					for _, s := range out.Ranks {
						if s.WorkSeconds <= 0 && s.Nodes > 0 || s.WorkSeconds+s.IdleSeconds > out.Seconds*1.01+0.001 {
							return fmt.Errorf("rank %d: %d nodes, work %g s, idle %g s of a run of %g s", s.Rank, s.Nodes, s.WorkSeconds, s.IdleSeconds, out.Seconds)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("pool mode %d, P=%d: %v", mode, p, err)
			}
		}
	}
}

// TestBcast: every rank gets root's bytes, whether they fit in the first
// broadcast or take a second, and the ranks that are not root get a copy of
// their own.
func TestBcast(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("runs an embedded world of 5 ranks")
	}
	for _, n := range []int{0, 1, 503, 504, 505, 5000} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(i*7 + n)
		}
		got := make([][]byte, 5)
		err := mpi.Run(5, func(c *mpi.Comm) error {
			var b []byte
			if c.Rank() == 2 {
				b = slices.Clone(want)
			}
			b, err := driver.Bcast(c, b, 2)
			got[c.Rank()] = b
			return err
		})
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		for r, b := range got {
			if !bytes.Equal(b, want) {
				t.Errorf("%d bytes: rank %d got %d bytes, not root's", n, r, len(b))
			}
		}
		if n > 0 {
			got[0][0]++
			if got[1][0] == got[0][0] {
				t.Errorf("%d bytes: ranks 0 and 1 share their bytes", n)
			}
		}
	}
}

// TestRanksDisagree: lb.Run is collective with the same Config on every
// rank; ranks given different balancers, options, seeds or resumptions, or
// one rank whose engine cannot be made, all return an error at the start
// of the search, where they counted nodes twice (rp with fast
// initialisation on one rank) or waited for ever in a collective.
func TestRanksDisagree(t *testing.T) {
	rp, err := lb.Lookup("rp")
	if err != nil {
		t.Fatal(err)
	}
	static, err := lb.Lookup("static")
	if err != nil {
		t.Fatal(err)
	}
	same := lb.Config{Balancer: rp.New, Budget: 50}
	tree := func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(2, 12, lbtest.Count) }
	var want int64
	if err := mpi.Run(1, func(c *mpi.Comm) error {
		got, _, err := lb.Run(driver.New(c), same, tree)
		want = got.Nodes
		return err
	}); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		odd  lb.Config // rank 1's
		want string
	}{
		"options":  {lb.Config{Balancer: rp.New, Budget: 50, Options: lb.RPOptions{FastInit: true}}, "different searches"},
		"balancer": {lb.Config{Balancer: static.New, Budget: 50}, "different searches"},
		"seed":     {lb.Config{Balancer: rp.New, Budget: 50, Seed: 9}, "different searches"},
		"resume":   {lb.Config{Balancer: rp.New, Budget: 50, Resume: &lb.Suspended{}}, "different searches"},
		"stats":    {lb.Config{Balancer: rp.New, Budget: 50, RankStats: true}, "different searches"},
		"bad":      {lb.Config{Balancer: rp.New, Budget: 50, Options: lb.StaticOptions{}}, "could not start"},
		"budget":   {lb.Config{Balancer: rp.New, Budget: 70}, ""},                          // the Budget may differ
		"defaults": {lb.Config{Balancer: rp.New, Budget: 50, Options: lb.RPOptions{}}, ""}, // nil Options are the defaults
	}
	// A factory of one's own may take options it ignores, a nil pointer
	// among them: the agreement reads it as the defaults (it panicked).
	ignoring := func(env lb.Env) (lb.Balancer, error) { env.Options = nil; return rp.New(env) }
	if err := mpi.Run(3, func(c *mpi.Comm) error {
		got, _, err := lb.Run(driver.New(c), lb.Config{Balancer: ignoring, Budget: 50, Options: (*lb.RPOptions)(nil)}, tree)
		if err == nil && got.Nodes != want {
			return fmt.Errorf("%d nodes, want %d", got.Nodes, want)
		}
		return err
	}); err != nil {
		t.Fatalf("options a nil pointer: %v", err)
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			errs := make([]error, 3)
			done := make(chan error, 1)
			go func() {
				done <- mpi.Run(3, func(c *mpi.Comm) error {
					cfg := same
					if c.Rank() == 1 {
						cfg = tc.odd
					}
					got, _, err := lb.Run(driver.New(c), cfg, tree)
					errs[c.Rank()] = err
					if err == nil && got.Nodes != want {
						return fmt.Errorf("%d nodes, want %d", got.Nodes, want)
					}
					return nil
				})
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(time.Minute):
				t.Fatal("the ranks hang")
			}
			for rank, err := range errs {
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("rank %d: %v", rank, err)
				case tc.want != "" && err == nil:
					t.Errorf("rank %d: no error", rank)
				case tc.want != "" && rank != 1 && !strings.Contains(err.Error(), tc.want):
					t.Errorf("rank %d: %v, want an error saying %q", rank, err, tc.want)
				}
			}
		})
	}
}
