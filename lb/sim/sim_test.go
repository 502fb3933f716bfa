package sim_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/lockstep"
	"github.com/treelb/treelb/lb/sim"
)

// rangeRun runs a range of n nodes on p ranks of machine m under the
// registered balancer with opt and the budget, and checks its nodes.
func rangeRun(t *testing.T, p int, m lb.Machine, balancer string, opt lb.Options, budget int64, n uint64) *lb.Outcome {
	t.Helper()
	info, err := lb.Lookup(balancer)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sim.New(p, sim.Config{Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	got, out, err := lb.Run(w, lb.Config{Balancer: info.New, Options: opt, Budget: budget, RankStats: true},
		func() lb.Reducer[int64] { return lbtest.NewRange(n) })
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(n) || out.Total.Nodes != int64(n) {
		t.Fatalf("%s on %d ranks: %d nodes (statistics %d), want %d", balancer, p, got, out.Total.Nodes, n)
	}
	return out
}

// TestUnitMachineIsTheStepModel: the unit machine with a budget of one
// node is seed 003's step model exactly. A hand-driven step model (every
// rank with work executes one node, then every message of the step is
// delivered, chains of replies included, before the next step) and the
// simulator on the unit machine give every rank the same nodes, and the
// last work slice ends after the number of steps in µs of virtual time; the
// lock-step world (lb/lockstep), which drives lb.Rank, gives every rank the
// same nodes and ends no sooner (termination's steps follow); KOSO and
// KOSO* (whose loads are exchanged within a step) on rings of 2 to 12
// ranks.
func TestUnitMachineIsTheStepModel(t *testing.T) {
	mi, err := lb.LookupMachine("unit")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"koso", "koso-star"} {
		info, _ := lb.Lookup(name)
		for _, p := range []int{2, 3, 5, 12} {
			const n = 3000
			steps, nodes := handSteps(t, info, p, n)
			out := rangeRun(t, p, mi.Machine, name, nil, 1, n)
			if got := out.Sim.LastWorkSeconds * 1e6; math.Abs(got-float64(steps)) > 1e-6 {
				t.Errorf("%s P=%d: last work at %.6f µs of virtual time, the step model takes %d steps", name, p, got, steps)
			}
			for r := range p {
				if out.Ranks[r].Nodes != nodes[r] {
					t.Fatalf("%s P=%d: rank %d worked %d nodes, %d in the step model", name, p, r, out.Ranks[r].Nodes, nodes[r])
				}
			}
			ls, err := lockstep.New(p, lockstep.Config{})
			if err != nil {
				t.Fatal(err)
			}
			_, lout, err := lb.Run(ls, lb.Config{Balancer: info.New, Budget: 1, RankStats: true},
				func() lb.Reducer[int64] { return lbtest.NewRange(n) })
			if err != nil {
				t.Fatal(err)
			}
			if got := lout.Seconds * 1e6; got < float64(steps)-1e-6 {
				t.Errorf("%s P=%d: the lock-step world took %.6f steps, fewer than the step model's %d", name, p, got, steps)
			}
			for r := range p {
				if lout.Ranks[r].Nodes != nodes[r] {
					t.Fatalf("%s P=%d: rank %d worked %d nodes in the lock-step world, %d in the step model", name, p, r, lout.Ranks[r].Nodes, nodes[r])
				}
			}
		}
	}
}

// handSteps runs the step model by hand and returns the number of steps
// until no rank has work, and the nodes of every rank.
func handSteps(t *testing.T, info lb.Info, p int, n uint64) (int, []int64) {
	t.Helper()
	bs := make([]lb.Balancer, p)
	apps := make([]*lbtest.Range, p)
	for r := range bs {
		apps[r] = lbtest.NewRange(n)
		b, err := lb.NewBalancer(info.New, lb.Env{Rank: r, Size: p, App: apps[r], Rand: lb.NewRand(0, r)})
		if err != nil {
			t.Fatal(err)
		}
		bs[r] = b
	}
	var inflight []lb.Msg
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
	for r, b := range bs {
		b.Start(apps[r].Root())
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

// TestSimProgress: the simulator reports progress (Config.Progress) while
// it runs, node counts never going back, and a last snapshot with every
// node of the run.
func TestSimProgress(t *testing.T) {
	info, _ := lb.Lookup("rp")
	w, err := sim.New(64, sim.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []lb.Progress
	cfg := lb.Config{Balancer: info.New, Budget: 10, Progress: func(p lb.Progress) { got = append(got, p) }, ProgressEvery: time.Nanosecond}
	_, out, err := lb.Run(w, cfg, func() lb.Reducer[int64] { return lbtest.NewRange(200000) })
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
	m := func(splitNS float64) lb.Machine { return lb.Machine{NodeNS: 10, LatencyNS: 1000, SplitNS: splitNS} }
	const k = 4
	free := rangeRun(t, 1, m(0), "static", lb.StaticOptions{Levels: k}, 100, 100000)
	paid := rangeRun(t, 1, m(500), "static", lb.StaticOptions{Levels: k}, 100, 100000)
	if got, want := paid.Seconds-free.Seconds, float64(k<<k)*500e-9; math.Abs(got-want) > 1e-12 {
		t.Errorf("static, one rank: splits took %g s more, want %g (%d halvings of 500 ns)", got, want, k<<k)
	}
	free, paid = rangeRun(t, 4, m(0), "rp", nil, 100, 100000), rangeRun(t, 4, m(20000), "rp", nil, 100, 100000)
	if paid.Total.Splits == 0 || paid.Seconds <= free.Seconds {
		t.Errorf("rp, 4 ranks: %d splits, %g s with 20 µs each against %g s free", paid.Total.Splits, paid.Seconds, free.Seconds)
	}
	if err := (lb.Machine{SplitNS: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "split-ns") {
		t.Errorf("a negative split cost: %v", err)
	}
}

// TestSimBusyNodeCost: a machine's BusyNodeNS, a node's cost while every
// core works, is charged for every node of a run of more than one rank,
// NodeNS for a run of one; the sequential baseline stays at NodeNS.
func TestSimBusyNodeCost(t *testing.T) {
	m := func(busy float64) lb.Machine { return lb.Machine{NodeNS: 10, LatencyNS: 1000, BusyNodeNS: busy} }
	const n = 100000
	if alone, busy := rangeRun(t, 1, m(0), "rp", nil, 100, n), rangeRun(t, 1, m(25), "rp", nil, 100, n); alone.Seconds != busy.Seconds {
		t.Errorf("one rank: %g s with a busy node cost, %g s without: want the same", busy.Seconds, alone.Seconds)
	}
	idle, busy := rangeRun(t, 2, m(0), "static", lb.StaticOptions{Levels: 1}, 100, n), rangeRun(t, 2, m(25), "static", lb.StaticOptions{Levels: 1}, 100, n)
	if got, want := busy.Total.WorkSeconds, 2.5*idle.Total.WorkSeconds; math.Abs(got-want) > 1e-12 || math.Abs(idle.Total.WorkSeconds-n*10e-9) > 1e-12 {
		t.Errorf("two ranks: %g s of work at 25 ns a node, want %g (2.5 × %g)", got, want, idle.Total.WorkSeconds)
	}
	if err := (lb.Machine{BusyNodeNS: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "busy-node-ns") {
		t.Errorf("a negative busy node cost: %v", err)
	}
}

// TestSimPollCost: a machine's PollNS charges one poll after every work
// slice. On one rank with static placement of no levels (no messages but
// termination's, which one rank does not send), a range of N nodes in
// slices of B takes ⌈N/B⌉ slices, and the run exactly ⌈N/B⌉·PollNS
// longer; so a smaller Δt costs more, as on a real machine (seed 002
// §4.1).
func TestSimPollCost(t *testing.T) {
	m := func(pollNS float64) lb.Machine { return lb.Machine{NodeNS: 10, LatencyNS: 1000, PollNS: pollNS} }
	const n = 100000
	for _, budget := range []int64{10, 100, 1000, 10000} {
		free := rangeRun(t, 1, m(0), "static", lb.StaticOptions{Levels: 1}, budget, n)
		paid := rangeRun(t, 1, m(250), "static", lb.StaticOptions{Levels: 1}, budget, n)
		slices := paid.Total.Slices
		if want := int64((n + budget - 1) / budget); slices < want || slices > want+2 {
			t.Fatalf("budget %d: %d slices, want about %d", budget, slices, want)
		}
		if got, want := paid.Seconds-free.Seconds, float64(slices-1)*250e-9; math.Abs(got-want) > 1e-12 {
			t.Errorf("budget %d: polls took %g s more, want %g (%d slices)", budget, got, want, slices)
		}
	}
}

// TestSimSliceCost: a machine's SliceNS, the loop's cost per work slice
// beyond the poll that --calibrate measures, is charged once per slice,
// where the poll is: on one rank of random polling (no messages), the
// same N nodes at a budget of 10 and of 10⁴ take ⌈N/10⌉ and ⌈N/10⁴⌉ slices,
// and the virtual times differ by exactly the difference of slices times
// PollNS + SliceNS; without SliceNS by the slices times PollNS alone, and
// a model whose poll holds the whole slice cost gives the same times.
func TestSimSliceCost(t *testing.T) {
	const n = 200000
	m := func(pollNS, sliceNS float64) lb.Machine {
		return lb.Machine{NodeNS: 17, LatencyNS: 1000, PollNS: pollNS, SliceNS: sliceNS}
	}
	for _, c := range []struct{ poll, slice float64 }{{4.3, 95.7}, {0, 213}, {4.3, 0}, {100, 0}} {
		small := rangeRun(t, 1, m(c.poll, c.slice), "rp", nil, 10, n)
		large := rangeRun(t, 1, m(c.poll, c.slice), "rp", nil, 10000, n)
		ds := small.Total.Slices - large.Total.Slices
		if small.Total.Slices != n/10 || large.Total.Slices != n/10000 {
			t.Fatalf("poll %g, slice %g: %d and %d slices, want %d and %d", c.poll, c.slice, small.Total.Slices, large.Total.Slices, n/10, n/10000)
		}
		got, want := small.Seconds-large.Seconds, float64(ds)*(c.poll+c.slice)*1e-9
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("poll %g, slice %g: budget 10 took %g s more than 10⁴, want %d slices × %g ns = %g s",
				c.poll, c.slice, got, ds, c.poll+c.slice, want)
		}
		if whole := rangeRun(t, 1, m(c.poll+c.slice, 0), "rp", nil, 10, n); math.Abs(whole.Seconds-small.Seconds) > 1e-12 {
			t.Errorf("poll %g, slice %g: %g s, against %g s with a poll of %g", c.poll, c.slice, small.Seconds, whole.Seconds, c.poll+c.slice)
		}
	}
	if err := (lb.Machine{SliceNS: math.NaN()}).Validate(); err == nil || !strings.Contains(err.Error(), "slice-ns") {
		t.Errorf("a slice cost that is not a number: %v", err)
	}
}

// TestSimMessageCosts: SendNS and RecvNS charge every message at both
// ends, SendByteNS and RecvByteNS every byte of its data. Two ranks of
// random polling with the same seeds send the same messages whatever the
// costs while no cost changes the order of events, so the busy time is the
// same and the virtual time longer, by no more than every message's costs
// together; and the statistics' bytes are those the costs saw.
func TestSimMessageCosts(t *testing.T) {
	base := lb.Machine{NodeNS: 10, LatencyNS: 1000}
	free := rangeRun(t, 2, base, "rp", nil, 1000, 50000)
	costly := base
	costly.SendNS, costly.RecvNS, costly.SendByteNS, costly.RecvByteNS = 300, 400, 5, 7
	paid := rangeRun(t, 2, costly, "rp", nil, 1000, 50000)
	if paid.Total.MessagesSent == 0 || paid.Seconds <= free.Seconds {
		t.Fatalf("%d messages; %g s with costs against %g s without", paid.Total.MessagesSent, paid.Seconds, free.Seconds)
	}
	st := paid.Total
	bound := float64(st.MessagesSent)*(300+400)*1e-9 + float64(st.BytesSent)*(5+7)*1e-9 + 2*float64(300+400+lb.StatsSize*12)*1e-9
	if paid.Seconds-free.Seconds > bound+1e-6 {
		t.Errorf("the costs added %g s, more than all messages' %g s", paid.Seconds-free.Seconds, bound)
	}
	if err := (lb.Machine{SendByteNS: math.Inf(1)}).Validate(); err == nil || !strings.Contains(err.Error(), "send-byte-ns") {
		t.Errorf("an infinite byte cost: %v", err)
	}
}

// TestSimThrottling: with PauseNS the simulator throttles requests as the
// real worlds do for ranks that outnumber their cores (lb.Rank holds a
// request after a rejection for doubling pauses of idle ticks): on 16 ranks
// of random polling with little work, idle ranks send fewer requests, and
// the count stays exact.
func TestSimThrottling(t *testing.T) {
	base := lb.Machine{NodeNS: 10, LatencyNS: 1000}
	free := rangeRun(t, 16, base, "rp", nil, 50, 30000)
	th := base
	th.PauseNS, th.MaxPauseNS = 20000, 2e6
	held := rangeRun(t, 16, th, "rp", nil, 50, 30000)
	if held.Total.RequestsSent >= free.Total.RequestsSent {
		t.Errorf("throttled: %d requests, unthrottled %d", held.Total.RequestsSent, free.Total.RequestsSent)
	}
	t.Logf("requests %d → %d, virtual %g → %g s", free.Total.RequestsSent, held.Total.RequestsSent, free.Seconds, held.Seconds)
}

// TestSimIdleSplit: on a network of 2 µs latency, rank 0 works from the
// start; every other rank waits for its first task at least a request's
// and a task's latency, and every rank waits at least a latency after its
// last slice, for the news of termination (lb.Times).
func TestSimIdleSplit(t *testing.T) {
	m := lb.Machine{Name: "split", NodeNS: 10, LatencyNS: 2000}
	out := rangeRun(t, 4, m, "rp", nil, 100, 100_000)
	if err := lbtest.CheckTimes(out); err != nil {
		t.Fatal(err)
	}
	lat := m.LatencyNS * 1e-9
	for _, s := range out.Ranks {
		if s.Rank == 0 && s.IdleStartSeconds != 0 || s.Rank > 0 && s.IdleStartSeconds < 2*lat || s.IdleEndSeconds < lat {
			t.Errorf("rank %d: idle %g s, %g s before its first slice and %g s after its last", s.Rank, s.IdleSeconds, s.IdleStartSeconds, s.IdleEndSeconds)
		}
	}
}

// TestSimClockBound: a run whose virtual time outgrows the simulated clock
// (picoseconds in an int64) fails with a message; on a machine of an hour
// a node (as slow as Validate allows) the clock wrapped and one rank
// reported 29 days as 2.49·10⁶ s, two ranks ran for ever (found by a
// review of the balancers).
func TestSimClockBound(t *testing.T) {
	m := lb.Machine{Name: "slow", NodeNS: 3.6e12, LatencyNS: 1000}
	for _, p := range []int{1, 2} {
		w, err := sim.New(p, sim.Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = lb.Run(w, lb.Config{Budget: 100}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(1, 6, lbtest.Count) })
		if err == nil || !strings.Contains(err.Error(), "days of virtual time") {
			t.Errorf("P=%d: %v, want the clock's bound", p, err)
		}
	}
}
