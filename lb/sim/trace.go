package sim

import "github.com/treelb/treelb/lb"

// traceBuckets is the most buckets a busy trace keeps; past it, pairs of
// buckets merge and the width doubles.
const traceBuckets = 1024

// busyTrace integrates the number of busy ranks over virtual time in at
// most traceBuckets buckets of equal width, exactly: a busy interval adds
// O(1) work (a difference array of counts and offsets), and doubling the
// width merges buckets in O(traceBuckets). The zero value is not usable;
// use newBusyTrace.
//
// For intervals [a, b), bucket i holds cnt[i], the net number of intervals
// starting minus ending in it, and off[i], the sum of their offsets from
// the bucket's start (ends negated); its busy rank-time is then
// w·(cnt[0]+…+cnt[i]) − off[i].
type busyTrace struct {
	w   int64 // bucket width, ps
	cnt []int64
	off []int64
}

func newBusyTrace() *busyTrace {
	return &busyTrace{w: 1 << 10, cnt: make([]int64, traceBuckets), off: make([]int64, traceBuckets)}
}

// add records one rank busy during [a, b), a ≤ b, in O(1) amortised.
func (t *busyTrace) add(a, b int64) {
	if a == b {
		return
	}
	for b/t.w >= traceBuckets {
		t.double()
	}
	i, j := a/t.w, b/t.w
	t.cnt[i]++
	t.off[i] += a - i*t.w
	t.cnt[j]--
	t.off[j] -= b - j*t.w
}

// double merges pairs of buckets, doubling the width.
func (t *busyTrace) double() {
	for k := range traceBuckets / 2 {
		c0, c1 := t.cnt[2*k], t.cnt[2*k+1]
		t.off[k] = t.off[2*k] + t.off[2*k+1] + t.w*c1
		t.cnt[k] = c0 + c1
	}
	clear(t.cnt[traceBuckets/2:])
	clear(t.off[traceBuckets/2:])
	t.w *= 2
}

// points returns the trace up to virtual time end (ps), in seconds.
func (t *busyTrace) points(end int64) []lb.TracePoint {
	var out []lb.TracePoint
	var c int64
	for i := int64(0); i < traceBuckets && i*t.w < end; i++ {
		c += t.cnt[i]
		busy := t.w*c - t.off[i]
		hi := min((i+1)*t.w, end)
		out = append(out, lb.TracePoint{Start: float64(i*t.w) / 1e12, End: float64(hi) / 1e12, Busy: float64(busy) / float64(hi-i*t.w)})
	}
	return out
}
