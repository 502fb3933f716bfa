package lb_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// These tests drive lb.Rank by hand, as etcd-io/raft's tests drive a
// RawNode: messages in, work slices and ticks, messages out.

// rangeJob returns the job of a range of n nodes under the registered
// balancer name with opt and the budget.
func rangeJob(t *testing.T, name string, opt lb.Options, budget int64, n uint64) lb.Job {
	t.Helper()
	info, err := lb.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return lb.Job{
		Config: lb.Config{Balancer: info.New, Options: opt, Budget: budget},
		NewApp: func() lb.App { return lbtest.NewRange(n) },
		Result: func(a lb.App) ([]byte, error) {
			return binary.AppendVarint(nil, a.(*lbtest.Range).Result()), nil
		},
	}
}

func newRank(t *testing.T, job lb.Job, rc lb.RankConfig) *lb.Rank {
	t.Helper()
	r, err := lb.NewRank(job, rc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// outbox takes the rank's outbox, failing t on a protocol error.
func outbox(t *testing.T, r *lb.Rank) []lb.Msg {
	t.Helper()
	out, err := r.Outbox()
	if err != nil {
		t.Fatal(err)
	}
	return slices.Clone(out)
}

// kinds returns "kind→to" of each message.
func kinds(ms []lb.Msg) string {
	var s []string
	for _, m := range ms {
		s = append(s, fmt.Sprintf("%v→%d", m.Kind, m.To))
	}
	return strings.Join(s, " ")
}

// TestRankAlone: one rank works its root in slices of the budget, sends
// nothing, and is done when the range is; End and Result give its
// statistics and result.
func TestRankAlone(t *testing.T) {
	r := newRank(t, rangeJob(t, "rp", nil, 100, 1000), lb.RankConfig{Size: 1})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	var slices int
	for !r.Done() {
		n, ok := r.Work()
		if !ok {
			t.Fatalf("idle after %d slices, not done", slices)
		}
		if n != 100 {
			t.Fatalf("slice %d: %d nodes, want the budget", slices, n)
		}
		if out := outbox(t, r); len(out) != 0 {
			t.Fatalf("one rank sent %s", kinds(out))
		}
		slices++
	}
	if slices != 10 {
		t.Fatalf("%d slices, want 10", slices)
	}
	if _, ok := r.Work(); ok {
		t.Fatal("worked after done")
	}
	f, err := r.End(lb.Times{Work: 1, Idle: 2, IdleStart: 0.5, IdleEnd: 0.25, Seconds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Stats; st.Nodes != 1000 || st.Slices != 10 || st.WorkSeconds != 1 || st.IdleSeconds != 2 ||
		st.IdleStartSeconds != 0.5 || st.IdleEndSeconds != 0.25 || f.Seconds != 3 || f.Suspended {
		t.Fatalf("end %+v", f)
	}
	res, err := r.Result()
	if v, _ := binary.Varint(res); err != nil || v != 1000 {
		t.Fatalf("result %d, %v", v, err)
	}
}

// TestRankAdaptiveBudget: with Config.MinBudget, a request cuts the next
// slices to MinBudget nodes until one ends without a request since the
// last; then each quiet slice is a quarter longer than the one before, up
// to the budget. Without it every slice is the budget, requests or not.
func TestRankAdaptiveBudget(t *testing.T) {
	slice := func(r *lb.Rank) int64 {
		t.Helper()
		n, ok := r.Work()
		if !ok {
			t.Fatal("rank 0 idle with its root")
		}
		outbox(t, r)
		return n
	}
	ask := func(r *lb.Rank) {
		t.Helper()
		if err := r.Step(lb.Msg{From: 1, To: 0, Kind: lb.KRequest}); err != nil {
			t.Fatal(err)
		}
		outbox(t, r)
	}
	for _, tc := range []struct {
		min  int64
		want []int64 // the slices: two at first, one after each of two requests, then two more
	}{
		{0, []int64{1000, 1000, 1000, 1000, 1000, 1000}},
		{1000, []int64{1000, 1000, 1000, 1000, 1000, 1000}}, // MinBudget = Budget: fixed
		{100, []int64{1000, 1000, 100, 100, 100, 126}},      // the first quiet slice grows the next
	} {
		job := rangeJob(t, "rp", nil, 1000, 1<<40)
		job.Config.MinBudget = tc.min
		r := newRank(t, job, lb.RankConfig{Rank: 0, Size: 2})
		if err := r.Start(nil); err != nil {
			t.Fatal(err)
		}
		outbox(t, r)
		var got []int64
		got = append(got, slice(r), slice(r))
		ask(r)
		got = append(got, slice(r)) // cut by the request
		ask(r)
		got = append(got, slice(r)) // a request since the last: still the least
		got = append(got, slice(r), slice(r))
		if !slices.Equal(got, tc.want) {
			t.Errorf("MinBudget %d: slices %v, want %v", tc.min, got, tc.want)
		}
		for range 30 {
			slice(r)
		}
		if n := slice(r); n != 1000 {
			t.Errorf("MinBudget %d: a slice of %d nodes after 30 quiet ones, want the budget", tc.min, n)
		}
	}
}

// TestRankRequestsAndRejections: an idle rank of random polling asks for
// work at once and again after every rejection (seed 002, Fig. 1); a piece
// arrives as work it then works on.
func TestRankRequestsAndRejections(t *testing.T) {
	job := rangeJob(t, "rp", nil, 10, 1000)
	r := newRank(t, job, lb.RankConfig{Rank: 1, Size: 2})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	if got := kinds(outbox(t, r)); got != "request→0" {
		t.Fatalf("start: %q, want a request to rank 0", got)
	}
	if _, ok := r.Work(); ok {
		t.Fatal("rank 1 worked without a task")
	}
	for i := range 3 {
		if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
			t.Fatal(err)
		}
		if got := kinds(outbox(t, r)); got != "request→0" {
			t.Fatalf("rejection %d: %q, want the next request", i, got)
		}
	}
	piece, _ := lbtest.NewRange(1000).Unmarshal(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 500), 1000))
	data, _ := piece.AppendBinary(nil)
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KWork, Data: data}); err != nil {
		t.Fatal(err)
	}
	if out := outbox(t, r); len(out) != 0 {
		t.Fatalf("after work: %s", kinds(out))
	}
	if n, ok := r.Work(); !ok || n != 10 {
		t.Fatalf("worked %d nodes (%v), want the budget", n, ok)
	}
}

// TestRankThrottling: with throttling (RankConfig.MaxPause), a request
// that follows a rejection waits a pause of idle ticks that doubles with
// every rejection in a row up to MaxPause; a message to the same rank
// releases it first, keeping the pair's order; work starts the pauses
// over.
func TestRankThrottling(t *testing.T) {
	r := newRank(t, rangeJob(t, "rp", nil, 10, 1000), lb.RankConfig{Rank: 1, Size: 2, MaxPause: 4})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	if got := kinds(outbox(t, r)); got != "request→0" {
		t.Fatalf("start: %q: the first request waits for no rejection", got)
	}
	if r.NextTick() != 0 {
		t.Fatalf("next tick %d with nothing held", r.NextTick())
	}
	for i, pause := range []int{1, 2, 4, 4} {
		if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
			t.Fatal(err)
		}
		if out := outbox(t, r); len(out) != 0 || !r.Holding() {
			t.Fatalf("rejection %d: sent %q at once", i, kinds(out))
		}
		if r.NextTick() != pause {
			t.Fatalf("rejection %d: next tick in %d, want the pause %d", i, r.NextTick(), pause)
		}
		for k := 1; k < pause; k++ {
			r.Tick(1)
			if out := outbox(t, r); len(out) != 0 {
				t.Fatalf("rejection %d: %q after %d of %d ticks", i, kinds(out), k, pause)
			}
		}
		r.Tick(1)
		if got := kinds(outbox(t, r)); got != "request→0" || r.Holding() {
			t.Fatalf("rejection %d: %q after the pause of %d ticks", i, got, pause)
		}
	}
	// A held request leaves before a later message to the same rank: a
	// termination wave from rank 0 makes idle rank 1 report to it.
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
		t.Fatal(err)
	}
	if out := outbox(t, r); len(out) != 0 {
		t.Fatalf("held: %q", kinds(out))
	}
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KWave}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(outbox(t, r)); got != "request→0 report→0" || r.Holding() {
		t.Fatalf("after a wave: %q, want the held request, then the report", got)
	}
	// Work ends the pauses: the next rejection's request waits one tick
	// again.
	data := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 0), 5)
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KWork, Data: data}); err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := r.Work(); !ok {
			break
		}
	}
	if got := kinds(outbox(t, r)); got != "request→0" {
		t.Fatalf("after work ran dry: %q", got)
	}
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
		t.Fatal(err)
	}
	if out := outbox(t, r); len(out) != 0 || r.NextTick() != 1 {
		t.Fatalf("the first rejection after work: %q, next tick %d", kinds(out), r.NextTick())
	}
}

// TestRankTerminateReleases: the termination's drain waits for the answer
// of every request, so a request held back by throttling leaves as soon
// as the rank hears that the search is over (KTerminate), not after its
// pause, which grows with the ranks (MaxPause).
func TestRankTerminateReleases(t *testing.T) {
	r := newRank(t, rangeJob(t, "rp", nil, 10, 1000), lb.RankConfig{Rank: 1, Size: 2, MaxPause: 1 << 20})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	outbox(t, r)
	for range 5 {
		if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
			t.Fatal(err)
		}
		if out := outbox(t, r); len(out) != 0 || !r.Holding() {
			t.Fatalf("rejection: sent %q at once", kinds(out))
		}
		r.Tick(r.NextTick())
		outbox(t, r)
	}
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
		t.Fatal(err)
	}
	if out := outbox(t, r); len(out) != 0 || r.NextTick() != 32 {
		t.Fatalf("held: %q, next tick %d, want 32", kinds(out), r.NextTick())
	}
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KTerminate}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(outbox(t, r)); got != "request→0" || r.Holding() || r.NextTick() != 0 {
		t.Fatalf("after terminate: %q, holding %v, next tick %d; want the held request at once", got, r.Holding(), r.NextTick())
	}
	if err := r.Step(lb.Msg{From: 0, To: 1, Kind: lb.KReject}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(outbox(t, r)); got != "drained→0" {
		t.Fatalf("after its answer: %q, want the drain", got)
	}
}

// TestRankCheckpoint: rank 0 polls Config.CheckpointDue before every work
// slice and after every message; once it fires, the search is suspended:
// one rank stops working and ends suspended with its open task.
func TestRankCheckpoint(t *testing.T) {
	job := rangeJob(t, "rp", nil, 100, 1000)
	job.Config.CheckpointDue = lbtest.DueAfter(4)
	r := newRank(t, job, lb.RankConfig{Size: 1})
	if err := r.Start(nil); err != nil { // poll 1
		t.Fatal(err)
	}
	var nodes int64
	for {
		n, ok := r.Work() // polls 2, 3, 4
		if !ok {
			break
		}
		nodes += n
	}
	outbox(t, r)
	if nodes != 200 || !r.Done() {
		t.Fatalf("worked %d nodes, done %v; want 2 slices, then the suspension", nodes, r.Done())
	}
	f, err := r.End(lb.Times{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Suspended || len(f.Tasks) != 1 {
		t.Fatalf("end: suspended %v, %d open tasks", f.Suspended, len(f.Tasks))
	}
	open, err := lbtest.NewRange(1000).Unmarshal(f.Tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	var left int64
	for !open.Empty() {
		left += open.Work(1 << 20)
	}
	if left != 800 {
		t.Fatalf("the open task holds %d nodes, want 800", left)
	}
}

// TestRankDueOnTicks: an idle rank 0 polls Config.CheckpointDue every
// RankConfig.DueEvery ticks, and asks for them with NextTick.
func TestRankDueOnTicks(t *testing.T) {
	job := rangeJob(t, "rp", nil, 100, 1000)
	polls := 0
	job.Config.CheckpointDue = func() bool { polls++; return false }
	r := newRank(t, job, lb.RankConfig{Size: 2, DueEvery: 5})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	if r.NextTick() != 5 {
		t.Fatalf("next tick %d, want 5", r.NextTick())
	}
	before := polls
	r.Tick(4)
	if polls != before || r.NextTick() != 1 {
		t.Fatalf("after 4 ticks: %d polls, next tick %d", polls-before, r.NextTick())
	}
	r.Tick(1)
	if polls != before+1 || r.NextTick() != 5 {
		t.Fatalf("after 5 ticks: %d polls, next tick %d", polls-before, r.NextTick())
	}
	rank1 := newRank(t, job, lb.RankConfig{Rank: 1, Size: 2, DueEvery: 5})
	if rank1.NextTick() != 0 {
		t.Fatal("rank 1 asks for ticks to poll a checkpoint it does not own")
	}
}

// TestRankSplits: Splits counts the in-place halvings of static placement
// and fast initialisation, which the balancer's statistics do not, and
// every split only once.
func TestRankSplits(t *testing.T) {
	const k = 5
	r := newRank(t, rangeJob(t, "static", lb.StaticOptions{Levels: k}, 1<<20, 1<<20), lb.RankConfig{Size: 1})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	var splits int64
	for {
		_, ok := r.Work()
		splits += r.Splits()
		if !ok {
			break
		}
	}
	if splits != k<<k {
		t.Fatalf("%d splits, want %d leaves of %d halvings", splits, 1<<k, k)
	}
	if r.Splits() != 0 {
		t.Fatal("splits counted twice")
	}
	r = newRank(t, rangeJob(t, "rp", lb.RPOptions{FastInit: true}, 10, 1000), lb.RankConfig{Rank: 5, Size: 8})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	if n := r.Splits(); n != 3 {
		t.Fatalf("fast initialisation on 8 ranks: %d splits, want 3", n)
	}
}

// TestRankProgress: rank 0 reports a snapshot once the one it asked for is
// complete, with the nodes of the world's earlier runs.
func TestRankProgress(t *testing.T) {
	job := rangeJob(t, "rp", nil, 100, 1000)
	var got []lb.Progress
	job.Config.Progress = func(p lb.Progress) { got = append(got, p) }
	r := newRank(t, job, lb.RankConfig{Size: 2, ProgressBase: 5000})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	outbox(t, r)
	r.Work()
	outbox(t, r)
	r.RequestProgress()
	if got := kinds(outbox(t, r)); got != "status→1" {
		t.Fatalf("a snapshot asks %q, want rank 1", got)
	}
	if len(got) != 0 {
		t.Fatalf("%d snapshots before rank 1 answered", len(got))
	}
	reply := binary.AppendUvarint(binary.AppendUvarint(nil, 7), 0)
	if err := r.Step(lb.Msg{From: 1, To: 0, Kind: lb.KStatusReply, Data: reply}); err != nil {
		t.Fatal(err)
	}
	outbox(t, r)
	if len(got) != 1 || got[0].Nodes != 5000+100+7 || got[0].Busy != 1 || got[0].Ranks != 2 {
		t.Fatalf("snapshots %+v, want one of 5107 nodes and one busy rank", got)
	}
}

// TestRankProtocolErrors: a message of no balancer's kind, and a message
// after the rank was done, are errors; so is ending a rank not done.
func TestRankProtocolErrors(t *testing.T) {
	r := newRank(t, rangeJob(t, "rp", nil, 1000, 10), lb.RankConfig{Size: 1})
	if err := r.Start(nil); err != nil {
		t.Fatal(err)
	}
	if err := r.Step(lb.Msg{Kind: lb.Kind(lb.NumKinds)}); err == nil {
		t.Error("a message of kind NumKinds accepted")
	}
	if _, err := r.End(lb.Times{}); err == nil {
		t.Error("a rank ended before it was done")
	}
	r.Work()
	outbox(t, r)
	if !r.Done() {
		t.Fatal("not done")
	}
	if err := r.Step(lb.Msg{Kind: lb.KRequest}); err == nil || !strings.Contains(err.Error(), "after it was done") {
		t.Errorf("a message after done: %v", err)
	}
	if _, err := lb.NewRank(lb.Job{}, lb.RankConfig{Size: 1}); err == nil {
		t.Error("a job without apps")
	}
	bad := rangeJob(t, "static", lb.RPOptions{}, 10, 10)
	if _, err := lb.NewRank(bad, lb.RankConfig{Size: 1}); err == nil || !strings.Contains(err.Error(), "options") {
		t.Errorf("another balancer's options: %v", err)
	}
}

// rootCounter is lbtest's range that counts the calls of Root.
type rootCounter struct {
	*lbtest.Range
	roots *int
}

func (a rootCounter) Root() lb.Task { *a.roots++; return a.Range.Root() }

// TestRankRootOnlyWhereNeeded: Start builds the app's root only on the
// ranks whose balancer starts from it (lb.RootOptional): with random
// polling, poll-and-shuffle and the ring schedulers, rank 0 alone, unless
// fast initialisation gives every rank a piece of it. static and hybrid
// build their shares themselves (their own calls of Root are theirs).
func TestRankRootOnlyWhereNeeded(t *testing.T) {
	const size = 4
	own := [size]int{-1, -1, -1, -1} // the balancer's own: it needs no root from Start
	variants := []struct {
		name string
		opt  lb.Options
		want [size]int // Root calls in each rank's Start
	}{
		{"rp", nil, [size]int{1, 0, 0, 0}},
		{"rp", lb.RPOptions{FastInit: true}, [size]int{1, 1, 1, 1}},
		{"rp-local", nil, [size]int{1, 1, 1, 1}},
		{"ps", nil, [size]int{1, 0, 0, 0}},
		{"ps", lb.PSOptions{FastInit: true}, [size]int{1, 1, 1, 1}},
		{"koso", nil, [size]int{1, 0, 0, 0}},
		{"koso-star", nil, [size]int{1, 0, 0, 0}},
		{"static", nil, own},
		{"hybrid", nil, own},
	}
	seen := map[string]bool{"seq": true}
	for _, v := range variants {
		seen[v.name] = true
		t.Run(fmt.Sprintf("%s%+v", v.name, v.opt), func(t *testing.T) {
			roots := 0
			job := rangeJob(t, v.name, v.opt, 100, 1000)
			job.NewApp = func() lb.App { return rootCounter{lbtest.NewRange(1000), &roots} }
			for rank := range size {
				r := newRank(t, job, lb.RankConfig{Rank: rank, Size: size})
				o, optional := r.Balancer().(lb.RootOptional)
				if needs := !optional || o.NeedsRoot(); needs != (v.want[rank] > 0) {
					t.Errorf("rank %d of %d: NeedsRoot %v, want %v", rank, size, needs, v.want[rank] > 0)
				}
				before := roots
				if err := r.Start(nil); err != nil {
					t.Fatal(err)
				}
				if got := roots - before; v.want[rank] >= 0 && got != v.want[rank] {
					t.Errorf("rank %d of %d: Start built the root %d times, want %d", rank, size, got, v.want[rank])
				}
			}
		})
	}
	for _, info := range lb.Balancers() {
		if !seen[info.Name] {
			t.Errorf("balancer %s: not in the table: which of its ranks need the root?", info.Name)
		}
	}
}

// TestIdleSplit: the idle time before the first slice and after the last,
// from the idle time so far as the rank starts and stops working; a rank
// that never worked was idle at the start all along, and one that ended
// working was not idle at the end.
func TestIdleSplit(t *testing.T) {
	var s lb.IdleSplit
	s.Idle(1)
	if got, want := s.Times(0, 7, 7, 2), (lb.Times{Idle: 14, IdleStart: 14, Seconds: 14}); got != want {
		t.Errorf("never worked: %+v, want %+v", got, want)
	}
	// Idle 3 units, work, idle 2, work twice, find nothing three times
	// after 5, 6 and 8 units of idle time: 3 before the first slice, 5 after
	// the last (since the rank found no work at 5), 2 between.
	s.Idle(2)
	s.Busy(3)
	s.Idle(3)
	s.Busy(5)
	s.Busy(5)
	s.Idle(5)
	s.Idle(6)
	s.Idle(8)
	if got, want := s.Times(8, 10, 18, 0.5), (lb.Times{Work: 4, Idle: 5, IdleStart: 1.5, IdleEnd: 2.5, Seconds: 9}); got != want {
		t.Errorf("worked: %+v, want %+v", got, want)
	}
	s.Busy(10)
	if got, want := s.Times(9, 10, 19, 1), (lb.Times{Work: 9, Idle: 10, IdleStart: 3, Seconds: 19}); got != want {
		t.Errorf("ended working: %+v, want %+v", got, want)
	}
}
