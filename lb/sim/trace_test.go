package sim_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// tracedRun runs a range of n nodes on p simulated ranks of machine m under
// the balancer with a budget of one node and the trace on.
func tracedRun(t *testing.T, p int, m lb.Machine, balancer string, n uint64) *lb.Outcome {
	t.Helper()
	info, err := lb.Lookup(balancer)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.New(p, sim.Config{Machine: m, Trace: true})
	if err != nil {
		t.Fatal(err)
	}
	got, out, err := lb.Run(w, lb.Config{Balancer: info.New, Budget: 1, RankStats: true},
		func() lb.Reducer[int64] { return lbtest.NewRange(n) })
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(n) {
		t.Fatalf("%s on %d ranks: %d nodes, want %d", balancer, p, got, n)
	}
	return out
}

// checkTrace checks what every trace satisfies: points cover the run
// without gaps up to the run's end, at most P ranks busy, no negative
// queue, the ranks' queues summing to the queued tasks, the busy rank-time
// the run's BusySeconds, nothing busy or queued after the last work slice.
func checkTrace(t *testing.T, name string, out *lb.Outcome) {
	t.Helper()
	s := out.Sim
	tr := s.Trace
	if len(tr) == 0 || len(tr) > 1024 {
		t.Fatalf("%s: %d trace points", name, len(tr))
	}
	const eps = 1e-9
	var busy float64
	prev := 0.0
	for i, tp := range tr {
		if tp.Start != prev || tp.End <= tp.Start {
			t.Fatalf("%s: point %d on [%g, %g) after %g", name, i, tp.Start, tp.End, prev)
		}
		prev = tp.End
		busy += tp.Busy * (tp.End - tp.Start)
		if tp.Busy < -eps || tp.Busy > float64(s.Ranks)+eps || tp.Queued < -eps {
			t.Fatalf("%s: point %d: %g busy of %d ranks, %g queued", name, i, tp.Busy, s.Ranks, tp.Queued)
		}
		if s.Ranks <= lb.TraceRanks && len(tp.Queues) != s.Ranks || s.Ranks > lb.TraceRanks && tp.Queues != nil {
			t.Fatalf("%s: point %d: %d queues of %d ranks", name, i, len(tp.Queues), s.Ranks)
		}
		var sum float64
		for r, q := range tp.Queues {
			if q < -eps {
				t.Fatalf("%s: point %d: rank %d's queue %g", name, i, r, q)
			}
			sum += q
		}
		if tp.Queues != nil && math.Abs(sum-tp.Queued) > eps*max(1, sum) {
			t.Fatalf("%s: point %d: the queues sum to %g, queued %g", name, i, sum, tp.Queued)
		}
	}
	if math.Abs(prev-s.VirtualSeconds) > 1e-12 {
		t.Errorf("%s: the trace ends at %g s, the run at %g s", name, prev, s.VirtualSeconds)
	}
	if math.Abs(busy-s.BusySeconds) > 1e-9*s.BusySeconds {
		t.Errorf("%s: the trace's busy rank-time %g s, the run's %g s", name, busy, s.BusySeconds)
	}
	for i, tp := range tr {
		if tp.Start >= s.LastWorkSeconds && (tp.Busy != 0 || tp.Queued != 0) {
			t.Fatalf("%s: point %d on [%g, %g), after the last work slice (%g s): %g busy, %g queued",
				name, i, tp.Start, tp.End, s.LastWorkSeconds, tp.Busy, tp.Queued)
		}
	}
}

// TestTraceQueuesStepByStep: on the unit machine (seed 003's step model)
// the trace's buckets are one step wide while a run is shorter than 1024
// steps, and each holds, exactly, the busy ranks and every rank's queue in
// that step, as a hand-driven step model (handSteps' rules) measures them
// on KOSO's and KOSO*'s queues (lb.Loader) at the start of each step.
func TestTraceQueuesStepByStep(t *testing.T) {
	mi, err := lb.LookupMachine("unit")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"koso", "koso-star"} {
		info, _ := lb.Lookup(name)
		for _, p := range []int{3, 8, 16} {
			const n = 1500
			busy, loads := handLoads(t, info, p, n)
			out := tracedRun(t, p, mi.Machine, name, n)
			label := fmt.Sprintf("%s P=%d", name, p)
			checkTrace(t, label, out)
			tr := out.Sim.Trace
			if len(busy) > len(tr) {
				t.Fatalf("%s: %d steps of work, %d trace points", label, len(busy), len(tr))
			}
			for k, tp := range tr {
				if w := (tp.End - tp.Start) * 1e6; math.Abs(w-1) > 1e-6 && k < len(tr)-1 {
					t.Fatalf("%s: point %d is %g steps wide, want 1", label, k, w)
				}
				wantBusy, wantLoads := 0, make([]int, p)
				if k < len(busy) {
					wantBusy, wantLoads = busy[k], loads[k]
				}
				if tp.Busy != float64(wantBusy) {
					t.Fatalf("%s: step %d: %g ranks busy in the trace, %d in the step model", label, k, tp.Busy, wantBusy)
				}
				for r, q := range tp.Queues {
					if q != float64(wantLoads[r]) {
						t.Fatalf("%s: step %d: rank %d holds %g tasks in the trace, %d in the step model (%v)", label, k, r, q, wantLoads[r], wantLoads)
					}
				}
			}
		}
	}
}

// handLoads runs the step model by hand, as handSteps does, and returns
// for every step until no rank has work the ranks that work in it and the
// load (lb.Loader) of each rank at its start.
func handLoads(t *testing.T, info lb.Info, p int, n uint64) (busy []int, loads [][]int) {
	t.Helper()
	bs := make([]lb.Balancer, p)
	apps := make([]*lbtest.Range, p)
	for r := range bs {
		apps[r] = lbtest.NewRange(n)
		b, err := lb.NewBalancer(info.New, lb.Env{Rank: r, Size: p, App: apps[r], Rand: lb.NewRand(0, r)})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := b.(lb.Loader); !ok {
			t.Fatalf("%s is not an lb.Loader", info.Name)
		}
		bs[r] = b
	}
	deliver := func() {
		for {
			var inflight []lb.Msg
			for _, b := range bs {
				inflight = append(inflight, b.Outbox()...)
			}
			if len(inflight) == 0 {
				return
			}
			for _, m := range inflight {
				bs[m.To].Deliver(m)
			}
		}
	}
	for r, b := range bs {
		b.Start(apps[r].Root())
	}
	deliver()
	for {
		l := make([]int, p)
		k := 0
		for r, b := range bs {
			l[r] = b.(lb.Loader).Load()
			if task := b.Task(); task != nil {
				b.Tick(task.Work(1))
				k++
			}
		}
		if k == 0 {
			return busy, loads
		}
		busy, loads = append(busy, k), append(loads, l)
		deliver()
	}
}

// TestTraceOtherBalancers: under balancers without a queue (not an
// lb.Loader) a rank's queue in the trace is 1 while it has a task, so no
// more ranks are busy than hold tasks; the sum alone beyond lb.TraceRanks
// ranks; the general checks on a machine with message costs.
func TestTraceOtherBalancers(t *testing.T) {
	m := lb.Machine{NodeNS: 10, LatencyNS: 1000}
	for _, c := range []struct {
		name string
		p    int
	}{{"rp", 8}, {"ps", 8}, {"static", 8}, {"koso-star", 8}, {"rp", 100}} {
		out := tracedRun(t, c.p, m, c.name, 200000)
		label := c.name
		checkTrace(t, label, out)
		for i, tp := range out.Sim.Trace {
			if c.name != "koso-star" && tp.Busy > tp.Queued+1e-9 {
				t.Fatalf("%s P=%d: point %d: %g busy, %g holding a task", label, c.p, i, tp.Busy, tp.Queued)
			}
			for r, q := range tp.Queues {
				if c.name != "koso-star" && q > 1+1e-9 {
					t.Fatalf("%s: point %d: rank %d holds %g tasks, at most 1 without a queue", label, i, r, q)
				}
			}
		}
	}
}
