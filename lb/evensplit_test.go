package lb_test

import (
	"encoding/binary"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/sim"
)

// splitCounts counts the calls of a run's Split and SplitEven, over all
// ranks.
type splitCounts struct{ split, even atomic.Int64 }

// nearRange is a range of n units whose Split gives away one unit, the
// next (as a branch-and-bound search splits near its frontier), and whose
// SplitEven gives away the upper half (lb.EvenSplitter).
type nearRange struct {
	n, nodes int64
	c        *splitCounts
}

type nearTask struct {
	a      *nearRange
	lo, hi int64
}

func (a *nearRange) Root() lb.Task { return &nearTask{a, 0, a.n} }
func (a *nearRange) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) != 16 {
		return nil, errors.New("nearRange: bad task")
	}
	return &nearTask{a, int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))}, nil
}
func (a *nearRange) Result() int64            { return a.nodes }
func (a *nearRange) Combine(x, y int64) int64 { return x + y }

func (t *nearTask) Work(budget int64) int64 {
	n := min(budget, t.hi-t.lo)
	t.lo += n
	t.a.nodes += n
	return n
}
func (t *nearTask) Empty() bool { return t.lo >= t.hi }
func (t *nearTask) Split() lb.Task {
	t.a.c.split.Add(1)
	if t.hi-t.lo < 2 {
		return nil
	}
	t.hi--
	return &nearTask{t.a, t.hi, t.hi + 1}
}
func (t *nearTask) SplitEven() lb.Task {
	t.a.c.even.Add(1)
	if t.hi-t.lo < 2 {
		return nil
	}
	mid := t.lo + (t.hi-t.lo)/2
	o := &nearTask{t.a, mid, t.hi}
	t.hi = mid
	return o
}
func (t *nearTask) AppendBinary(b []byte) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, uint64(t.lo)), uint64(t.hi)), nil
}

var _ lb.EvenSplitter = (*nearTask)(nil)

// TestEvenSplitter: poll-and-shuffle, whose phases need every split to give
// away a constant fraction of the work (seed 002 §2 and §5), splits an
// lb.EvenSplitter by SplitEven and never by Split; random polling splits by
// Split (the near pieces a branch-and-bound search prefers). The count is
// exact either way.
func TestEvenSplitter(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		balancer string
		even     bool
	}{{"ps", true}, {"rp", false}} {
		info, err := lb.Lookup(tc.balancer)
		if err != nil {
			t.Fatal(err)
		}
		w, err := sim.New(8, sim.Config{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var c splitCounts
		cfg := lb.Config{Balancer: info.New, Options: info.Options, Budget: 10, Seed: 1}
		got, _, err := lb.Run(w, cfg, func() lb.Reducer[int64] { return &nearRange{n: n, c: &c} })
		if err != nil {
			t.Fatalf("%s: %v", tc.balancer, err)
		}
		if got != n {
			t.Errorf("%s: %d nodes, want %d", tc.balancer, got, n)
		}
		split, even := c.split.Load(), c.even.Load()
		if tc.even && (even == 0 || split != 0) || !tc.even && (split == 0 || even != 0) {
			t.Errorf("%s: %d calls of Split, %d of SplitEven", tc.balancer, split, even)
		}
	}
}
