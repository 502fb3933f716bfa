package lb

import (
	"math"
	"strings"
	"testing"
	"time"
)

// rangeReducer is rangeApp with a result of nothing but the nodes, which
// the balancers' statistics count.
type rangeReducer struct{ rangeApp }

func (rangeReducer) Result() int64            { return 0 }
func (rangeReducer) Combine(a, b int64) int64 { return a + b }

// TestUnitMachineIsTheStepModel: the unit machine with a budget of one
// node is seed 003's step model exactly. A hand-driven step model (every
// rank with work executes one node, then every message of the step is
// delivered, chains of replies included, before the next step) and the
// simulator on the unit machine give every rank the same nodes, and the
// last work slice ends after the number of steps in µs of virtual time;
// KOSO and KOSO* (whose loads are exchanged within a step) on rings of 2 to
// 12 ranks.
func TestUnitMachineIsTheStepModel(t *testing.T) {
	mi, err := LookupMachine("unit")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"koso", "koso-star"} {
		info, _ := Lookup(name)
		for _, p := range []int{2, 3, 5, 12} {
			app := rangeApp{n: 3000}
			steps, nodes := handSteps(t, info, p, app)
			w, err := NewSim(p, SimConfig{Machine: mi.For("")})
			if err != nil {
				t.Fatal(err)
			}
			_, out, err := Run(w, Config{Balancer: info.New, Budget: 1, RankStats: true},
				func() Reducer[int64] { return rangeReducer{app} })
			if err != nil {
				t.Fatal(err)
			}
			if got := out.Sim.LastWorkSeconds * 1e6; math.Abs(got-float64(steps)) > 1e-6 {
				t.Errorf("%s P=%d: last work at %.6f µs of virtual time, the step model takes %d steps", name, p, got, steps)
			}
			for r := range p {
				if out.Ranks[r].Nodes != nodes[r] {
					t.Fatalf("%s P=%d: rank %d worked %d nodes, %d in the step model", name, p, r, out.Ranks[r].Nodes, nodes[r])
				}
			}
		}
	}
}

// handSteps runs the step model by hand and returns the number of steps
// until no rank has work, and the nodes of every rank.
func handSteps(t *testing.T, info Info, p int, app rangeApp) (int, []int64) {
	t.Helper()
	bs := make([]Balancer, p)
	for r := range bs {
		b, err := NewBalancer(info.New, Env{Rank: r, Size: p, App: app, Rand: NewRand(0, r)})
		if err != nil {
			t.Fatal(err)
		}
		bs[r] = b
	}
	var inflight []Msg
	deliver := func() {
		for {
			for _, b := range bs {
				inflight = append(inflight, b.Outbox()...)
			}
			if len(inflight) == 0 {
				return
			}
			msgs := inflight
			inflight = nil
			for _, m := range msgs {
				bs[m.To].Deliver(m)
			}
		}
	}
	for _, b := range bs {
		b.Start(app.Root())
	}
	deliver()
	nodes := make([]int64, p)
	steps := 0
	for ; ; steps++ {
		worked := false
		for r, b := range bs {
			if task := b.Task(); task != nil {
				n := task.Work(1)
				nodes[r] += n
				b.Tick(n)
				worked = true
			}
		}
		deliver()
		if !worked {
			return steps, nodes
		}
	}
}

// TestSimMachineDelays: on a machine without jitter a message's delay is
// what the model says: o at both ends, L, the bandwidth, and on a mesh
// the hops, the store-and-forward transfers and a busy link.
func TestSimMachineDelays(t *testing.T) {
	s := &sim{m: &simMachine{Machine: Machine{StoreForward: true}, overhead: 3000, latency: 10000, byteT: 500, hop: 2000,
		width: 4, height: 4}}
	const n = 4 // data bytes: 20 with the envelope, 10 ns
	xfer := int64(n+MessageEnvelope) * 500
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

// TestBusyTrace: the trace integrates busy intervals exactly, also after
// its buckets merge.
func TestBusyTrace(t *testing.T) {
	tr := newBusyTrace()
	// Two ranks: one busy on [0, 3w), one on [w/2, 5w/2), in the first
	// width; then an interval far out forces merges.
	w := tr.w
	tr.add(0, 3*w)
	tr.add(w/2, 5*w/2)
	far := int64(traceBuckets) * w * 8
	tr.add(far-w, far)
	pts := tr.points(far)
	var total float64
	for _, tp := range pts {
		total += tp.Busy * (tp.End - tp.Start) * 1e12
	}
	if want := float64(3*w + 2*w + w); math.Abs(total-want) > 1e-3*want {
		t.Fatalf("busy rank-time %g ps, want %g", total, want)
	}
	// The width doubled 4 times: the first bucket, [0, 16w), held 5w of
	// busy rank-time.
	if len(pts) > traceBuckets || math.Abs(pts[0].Busy-5.0/16) > 1e-9 || (pts[0].End-pts[0].Start)*1e12 != float64(16*w) {
		t.Fatalf("%d points, first %+v", len(pts), pts[0])
	}
}

// TestEventHeap: events come out by time, then class, then order of
// pushing.
func TestEventHeap(t *testing.T) {
	var h eventHeap
	var seq uint64
	push := func(at int64, class int) {
		seq++
		h.push(simEvent{at: at, key: uint64(class)<<classShift | seq, rank: int32(seq)})
	}
	for i := range 200 {
		push(int64(i*7919%101), i%3)
	}
	prev := simEvent{at: -1}
	for len(h) > 0 {
		e := h.pop()
		if e.at < prev.at || e.at == prev.at && e.key < prev.key {
			t.Fatalf("%+v after %+v", e, prev)
		}
		prev = e
	}
}

// TestSimProgress: the simulator reports progress (Config.Progress) while
// it runs, node counts never going back, and a last snapshot with every
// node of the run.
func TestSimProgress(t *testing.T) {
	info, _ := Lookup("rp")
	w, err := NewSim(64, SimConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []Progress
	cfg := Config{Balancer: info.New, Budget: 10, Progress: func(p Progress) { got = append(got, p) }, ProgressEvery: time.Nanosecond}
	_, out, err := Run(w, cfg, func() Reducer[int64] { return rangeReducer{rangeApp{n: 200000}} })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || got[len(got)-1].Nodes != out.Total.Nodes || out.Total.Nodes != 200000 {
		t.Fatalf("%d snapshots, the last %+v; %d nodes", len(got), got[len(got)-1], out.Total.Nodes)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Nodes < got[i-1].Nodes || got[i].Ranks != 64 || got[i].Busy > 64 {
			t.Fatalf("snapshot %d: %+v after %+v", i, got[i], got[i-1])
		}
	}
}

// TestSimSplitCost: a machine's SplitNS charges every split. On one rank,
// static placement of k = 4 levels cuts 2^k leaves of a range too large for
// any leaf to be empty, k halvings each, so the run takes exactly
// 2^k·k·SplitNS longer than with free splits, for the same nodes; and random
// polling on 4 ranks, whose pieces given away are charged, takes longer
// for the same nodes. The split flag is validated like the others.
func TestSimSplitCost(t *testing.T) {
	run := func(p int, balancer string, opt Options, splitNS float64) *Outcome {
		t.Helper()
		info, _ := Lookup(balancer)
		w, err := NewSim(p, SimConfig{Machine: Machine{NodeNS: 10, LatencyNS: 1000, SplitNS: splitNS}})
		if err != nil {
			t.Fatal(err)
		}
		_, out, err := Run(w, Config{Balancer: info.New, Options: opt, Budget: 100}, func() Reducer[int64] { return rangeReducer{rangeApp{n: 100000}} })
		if err != nil {
			t.Fatal(err)
		}
		if out.Total.Nodes != 100000 {
			t.Fatalf("%s on %d ranks: %d nodes, want 100000", balancer, p, out.Total.Nodes)
		}
		return out
	}
	const k = 4
	free := run(1, "static", Options{SplitLevels: k}, 0)
	paid := run(1, "static", Options{SplitLevels: k}, 500)
	if got, want := paid.Seconds-free.Seconds, float64(k<<k)*500e-9; math.Abs(got-want) > 1e-12 {
		t.Errorf("static, one rank: splits took %g s more, want %g (%d halvings of 500 ns)", got, want, k<<k)
	}
	free, paid = run(4, "rp", Options{}, 0), run(4, "rp", Options{}, 20000)
	if paid.Total.Splits == 0 || paid.Seconds <= free.Seconds {
		t.Errorf("rp, 4 ranks: %d splits, %g s with 20 µs each against %g s free", paid.Total.Splits, paid.Seconds, free.Seconds)
	}
	if err := (Machine{SplitNS: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "split-ns") {
		t.Errorf("a negative split cost: %v", err)
	}
}
