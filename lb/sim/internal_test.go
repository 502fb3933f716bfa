package sim

import (
	"math"
	"testing"
	"unsafe"

	"github.com/treelb/treelb/lb"
)

// TestSimMachineDelays: on a machine without jitter a message's delay is
// what the model says: o at both ends, L, the bandwidth, and on a mesh
// the hops, the store-and-forward transfers and a busy link.
func TestSimMachineDelays(t *testing.T) {
	s := &sim{m: &machine{Machine: lb.Machine{StoreForward: true}, overhead: 3000, latency: 10000, byteT: 500, hop: 2000,
		width: 4, height: 4}}
	const n = 4 // data bytes: 20 with the envelope, 10 ns
	xfer := int64(n+lb.MessageEnvelope) * 500
	// Rank 0 to rank 6 = (2, 1): 3 hops, two of them stored and forwarded.
	if got, want := s.delay(0, 6, n, 0), 10000+xfer+3*2000+2*xfer; got != want {
		t.Errorf("mesh delay %d ps, want %d", got, want)
	}
	if got, want := s.pathDelay(0, 6, n), 2*3000+10000+xfer+3*2000+2*xfer; got != want {
		t.Errorf("path delay %d ps, want %d", got, want)
	}
	// With contention, two messages over the same first link at once: the
	// second waits for the first's transfer.
	s.links = make([]int64, 4*16)
	a := s.delay(0, 1, n, 0)
	b := s.delay(0, 1, n, 0)
	if a != 10000+2000+xfer || b != a+xfer {
		t.Errorf("contention: delays %d and %d ps, want %d and %d", a, b, 10000+2000+xfer, 10000+2000+2*xfer)
	}
}

// TestBusyTrace: the trace integrates busy intervals and changes of the
// queues exactly, also after its buckets merge, and a point's averages are
// over the part of its bucket before the end.
func TestBusyTrace(t *testing.T) {
	tr := newTrace(seriesRank0+2, 1024)
	// Two ranks: one busy on [0, 3w), one on [w/2, 5w/2), in the first
	// width; then an interval far out forces merges. Rank 1 holds 2 tasks
	// on [w, far−w), then none.
	w := tr.w
	tr.busy(0, 3*w)
	tr.busy(w/2, 5*w/2)
	far := int64(traceBuckets) * w * 8
	tr.busy(far-w, far)
	for _, k := range []int{seriesQueued, seriesRank0 + 1} {
		tr.change(k, w, 2)
		tr.change(k, far-w, -2)
	}
	pts := tr.points(far)
	var total, queued float64
	for _, tp := range pts {
		d := (tp.End - tp.Start) * 1e12
		total += tp.Busy * d
		queued += tp.Queued * d
		if len(tp.Queues) != 2 || tp.Queues[0] != 0 || tp.Queues[1] != tp.Queued {
			t.Fatalf("point %+v: want queues [0 %g]", tp, tp.Queued)
		}
	}
	if want := float64(3*w + 2*w + w); math.Abs(total-want) > 1e-3*want {
		t.Fatalf("busy rank-time %g ps, want %g", total, want)
	}
	if want := float64(2 * (far - 2*w)); math.Abs(queued-want) > 1e-6*want {
		t.Fatalf("queued task-time %g ps, want %g", queued, want)
	}
	// The width doubled 4 times: the first bucket, [0, 16w), held 5w of
	// busy rank-time and 2·15w of queued task-time.
	if len(pts) > traceBuckets || math.Abs(pts[0].Busy-5.0/16) > 1e-9 || math.Abs(pts[0].Queued-30.0/16) > 1e-9 ||
		(pts[0].End-pts[0].Start)*1e12 != float64(16*w) {
		t.Fatalf("%d points, first %+v", len(pts), pts[0])
	}
	// An end in the middle of a bucket: the average over its first part.
	tr = newTrace(seriesRank0, 1000)
	tr.change(seriesQueued, 0, 3)
	tr.change(seriesQueued, 500, -1)
	tr.change(seriesQueued, 1500, -2)
	pts = tr.points(1500)
	if len(pts) != 2 || pts[0].Queued != 2.5 || pts[1].Queued != 2 || math.Abs(pts[1].End*1e12-1500) > 1e-6 || pts[0].Queues != nil {
		t.Fatalf("points %+v, want averages 2.5 on [0, 1000) and 2 on [1000, 1500)", pts)
	}
}

// TestEventHeap: events come out by time, then class, then order of
// pushing.
func TestEventHeap(t *testing.T) {
	var h eventHeap
	var seq uint64
	push := func(at int64, class int) {
		seq++
		h.push(event{at: at, key: uint64(class)<<classShift | seq, rank: int32(seq)})
	}
	for i := range 200 {
		push(int64(i*7919%101), i%3)
	}
	prev := event{at: -1}
	for len(h) > 0 {
		e := h.pop()
		if e.at < prev.at || e.at == prev.at && e.key < prev.key {
			t.Fatalf("%+v after %+v", e, prev)
		}
		prev = e
	}
}

// TestRankSize: a rank's state and its engine take two cache lines, so
// that an event of a simulation of many ranks touches few (the simulator is
// memory-bound at 16384 ranks).
func TestRankSize(t *testing.T) {
	if n := unsafe.Sizeof(lb.Rank{}); n > 64 {
		t.Errorf("lb.Rank takes %d bytes, more than a cache line", n)
	}
	if n := unsafe.Sizeof(rank{}); n > 128 {
		t.Errorf("the simulator's rank takes %d bytes, more than two cache lines", n)
	}
}
