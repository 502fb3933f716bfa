package sim

import "github.com/treelb/treelb/lb"

// traceBuckets is the most buckets a trace keeps; past it, pairs of
// buckets merge and the width doubles.
const traceBuckets = 1024

// The series of a trace: the busy ranks, the tasks held by all ranks, then
// those of each rank (runs of at most lb.TraceRanks ranks).
const (
	seriesBusy = iota
	seriesQueued
	seriesRank0
)

// trace integrates step functions of virtual time, its series, in at most
// traceBuckets buckets of equal width shared by all series, exactly: a
// change of a series adds O(1) work (a difference array of changes and
// their offsets), and doubling the width merges buckets in O(traceBuckets)
// per series. The buckets start one node wide (on the unit machine, one
// step each while the run is shorter than traceBuckets steps). The zero
// value is not usable; use newTrace.
//
// For a series, bucket i holds cnt[i], the net change of the function in
// it, and off[i], the sum of the changes' offsets from the bucket's start,
// each times its change; the function's integral over [iw, iw+x), with
// every change of the bucket before iw+x, is then x·(cnt[0]+…+cnt[i]) −
// off[i].
type trace struct {
	w   int64     // bucket width, ps
	cnt [][]int64 // by series, then bucket
	off [][]int64
}

// newTrace returns a trace of n series whose buckets start w0 ps wide.
func newTrace(n int, w0 int64) *trace {
	t := &trace{w: max(1, w0), cnt: make([][]int64, n), off: make([][]int64, n)}
	for k := range n {
		t.cnt[k] = make([]int64, traceBuckets)
		t.off[k] = make([]int64, traceBuckets)
	}
	return t
}

// busy records one rank busy during [a, b), a ≤ b, in O(1) amortised.
func (t *trace) busy(a, b int64) {
	if a == b {
		return
	}
	t.change(seriesBusy, b, -1) // the later time first: it may widen the buckets
	t.change(seriesBusy, a, 1)
}

// change adds d to series k from virtual time at (ps) on.
func (t *trace) change(k int, at, d int64) {
	t.cover(at)
	i := at / t.w
	t.cnt[k][i] += d
	t.off[k][i] += d * (at - i*t.w)
}

// cover widens the buckets until time at falls into one.
func (t *trace) cover(at int64) {
	for at/t.w >= traceBuckets {
		t.double()
	}
}

// double merges pairs of buckets, doubling the width.
func (t *trace) double() {
	for s := range t.cnt {
		cnt, off := t.cnt[s], t.off[s]
		for k := range traceBuckets / 2 {
			c0, c1 := cnt[2*k], cnt[2*k+1]
			off[k] = off[2*k] + off[2*k+1] + t.w*c1
			cnt[k] = c0 + c1
		}
		clear(cnt[traceBuckets/2:])
		clear(off[traceBuckets/2:])
	}
	t.w *= 2
}

// points returns the trace up to virtual time end (ps), in seconds; every
// change must be at end or before. A point's Queues hold the series from
// seriesRank0 on, when there are any.
func (t *trace) points(end int64) []lb.TracePoint {
	if end <= 0 {
		return nil
	}
	t.cover(end - 1)
	var out []lb.TracePoint
	level := make([]int64, len(t.cnt))
	avg := func(k int, i, x int64) float64 {
		level[k] += t.cnt[k][i]
		return float64(x*level[k]-t.off[k][i]) / float64(x)
	}
	for i := int64(0); i*t.w < end; i++ {
		lo, hi := i*t.w, min((i+1)*t.w, end)
		x := hi - lo
		tp := lb.TracePoint{Start: float64(lo) / 1e12, End: float64(hi) / 1e12, Busy: avg(seriesBusy, i, x), Queued: avg(seriesQueued, i, x)}
		if n := len(t.cnt) - seriesRank0; n > 0 {
			tp.Queues = make([]float64, n)
			for r := range tp.Queues {
				tp.Queues[r] = avg(seriesRank0+r, i, x)
			}
		}
		out = append(out, tp)
	}
	return out
}
