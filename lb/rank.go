package lb

import (
	"errors"
	"fmt"
	"math"
)

// Rank is the engine of one rank of a run, in the manner of etcd-io/raft's
// RawNode: a deterministic state machine that owns the rank's app and
// balancer, its statistics, the start from the root or from a resumed
// share, the counting of the splits a world charges, rank 0's checkpoint
// and progress requests, the throttling of requests, and the end of the run.
// It has no goroutines, no clock and no global random source (the
// balancer's randomness is seeded per rank): a world moves its messages and
// its clock and calls it. Every world (lb/driver's embedded and MPI worlds,
// the simulator of lb/sim) runs its ranks through it, so a rank does the
// same in all of them.
//
// A world drives a Rank so:
//
//	r, _ := lb.NewRank(job, lb.RankConfig{Rank: i, Size: p})
//	r.Start(share)                // the root, or the rank's share of a resumed search
//	send(r.Outbox())
//	for !r.Done() {
//		if nodes, ok := r.Work(); ok {  // one work slice of Config.Budget nodes
//			split.Busy(idle so far)
//			charge(nodes, r.Splits())
//		} else {
//			split.Idle(idle so far)
//			wait for a message, or r.NextTick() ticks of the world's clock
//			r.Tick(ticks elapsed)
//		}
//		send(r.Outbox())
//		for each message m that arrived { r.Step(m); send(r.Outbox()) }
//	}
//	f, _ := r.End(times)  // the world's times (Times, IdleSplit); then reduce the Finishes
//
// Ticks are the world's clock as the rank sees it: a logical idle tick of a
// length the world chooses (the driver 20 µs of wall time or more, the simulator
// Machine.PauseNS of virtual time). Request throttling and rank 0's polls of
// Config.CheckpointDue while it waits count them; nothing else does.
//
// A Rank belongs to one goroutine and is not safe for concurrent use.
type Rank struct {
	// What every event uses, in one cache line (a simulator of many ranks
	// keeps its engines side by side: TestRankSize); the rest is in x.
	b        Balancer
	x        *rankExtra
	due      func() bool // rank 0 (and RankConfig.Due): Config.CheckpointDue until it fired
	budget   int64       // the next slice's nodes: Config.Budget, or less while Δt adapts
	rank     int32
	size     int32
	maxPause int32 // throttling's longest pause in ticks, 0 for none
	pause    int32 // the current pause
	done     bool  // Done was seen by Outbox
	holding  bool  // a request is held back (throttling)
	released bool  // the held request left on a tick: send it first
	failed   bool  // Outbox saw a protocol violation (x.err)
	reports  bool  // rank 0 reports progress (x.prog)
	adapts   bool  // Δt adapts (Config.MinBudget)
	askedNow bool  // a request arrived since the last slice (adapts)
}

// rankExtra is the part of a Rank that few events use.
type rankExtra struct {
	job     Job
	app     App
	err     error      // the protocol violation Outbox saw
	tasks   taskFailer // the balancer, when it reports the app's encoding errors
	prog    Progresser // rank 0 with Config.Progress
	cuts    int64      // in-place splits of the balancer (Env.cuts)
	charged int64      // splits (Stats.Splits + cuts) reported by Splits so far

	// Throttling: a request that follows a rejection is held back for a
	// pause that doubles with every rejection in a row, from one tick to
	// maxPause ticks; work resets it.
	held      Msg
	releaseAt int64 // the tick when the held request leaves
	ticks     int64 // the ticks so far

	dueEvery int   // ticks between polls of due while idle
	dueTick  int64 // the tick of the last poll

	report func(Progress) // Config.Progress
	base   int64          // nodes of the world's earlier runs
	last   Progress       // the latest snapshot reported

	out []Msg // the outbox when throttling filters it

	asked int32 // 1 + the rank of the last request sent, 0 before any (State)
}

// RankConfig says where a Rank stands in its world and how the world's
// clock reaches it. The zero value but for Size is a rank 0 of no
// throttling.
type RankConfig struct {
	Rank, Size int
	// MaxPause turns request throttling on: the longest pause of a
	// request after rejections, in ticks; 0 means no throttling. Worlds
	// throttle when ranks outnumber cores (lb/driver) or when the machine
	// model says so (Machine.PauseNS).
	MaxPause int
	// DueEvery makes rank 0 poll Config.CheckpointDue every this many
	// ticks while it waits, besides before every work slice and after
	// every message; 0 polls on ticks not at all.
	DueEvery int
	// Due makes this rank poll its Config.CheckpointDue, when set, as rank
	// 0 does: a world whose ranks have Configs of their own (lb/driver: in
	// MPI each rank is a process with its own signals) sets it, and a
	// suspension begun on any rank spreads to every rank (KSuspend). A
	// world whose ranks share one Config (the simulator) leaves it false:
	// rank 0 alone polls.
	Due bool
	// ProgressBase is the nodes of the world's earlier runs, added to the
	// progress snapshots that rank 0 reports (Config.Progress).
	ProgressBase int64
}

// NewRank returns the engine of one rank of job: it makes the rank's app
// (primed with a resumed search's incumbent) and its balancer. The world
// calls Start next.
func NewRank(job Job, rc RankConfig) (*Rank, error) {
	r := new(Rank)
	if err := r.Init(job, rc); err != nil {
		return nil, err
	}
	return r, nil
}

// Init makes r the engine of one rank of job, as NewRank does, for a world
// that keeps its ranks' engines in its own storage (the simulator, beside
// its state of each rank).
func (r *Rank) Init(job Job, rc RankConfig) error {
	cfg := job.Config
	if job.NewApp == nil {
		return errors.New("lb: a job without apps")
	}
	if err := cfg.check(); err != nil {
		return err
	}
	if rc.Size < 1 || rc.Size > math.MaxInt32 || rc.MaxPause > math.MaxInt32/2 {
		return fmt.Errorf("lb: rank %d of %d, pauses of up to %d ticks", rc.Rank, rc.Size, rc.MaxPause)
	}
	*r = Rank{rank: int32(rc.Rank), size: int32(rc.Size), budget: cfg.budget(), maxPause: int32(max(rc.MaxPause, 0)),
		x: &rankExtra{job: job, dueEvery: max(rc.DueEvery, 0), base: rc.ProgressBase}, adapts: cfg.minBudget() > 0}
	r.x.app = job.NewApp()
	if cfg.Resume != nil {
		cfg.Resume.Prime(r.x.app)
	}
	b, err := NewBalancer(cfg.Balancer, Env{Rank: rc.Rank, Size: rc.Size, App: r.x.app, Rand: NewRand(cfg.Seed, rc.Rank),
		Seed: cfg.Seed, Options: cfg.Options, cuts: &r.x.cuts})
	if err != nil {
		return err
	}
	r.b = b
	r.x.tasks, _ = b.(taskFailer)
	if rc.Rank == 0 || rc.Due {
		r.due = cfg.CheckpointDue
	}
	if rc.Rank == 0 {
		if p, ok := b.(Progresser); ok && cfg.Progress != nil {
			r.x.prog, r.x.report, r.reports = p, cfg.Progress, true
		}
	}
	return nil
}

// App returns the rank's app.
func (r *Rank) App() App { return r.x.app }

// Balancer returns the rank's balancer, for worlds and tests that inspect
// it; drive the rank through the Rank's methods only.
func (r *Rank) Balancer() Balancer { return r.b }

// Stats returns the balancer's counters, live.
func (r *Rank) Stats() *Stats { return r.b.Stats() }

// Load returns the tasks the rank holds: its balancer's Load when the
// balancer is a Loader (KOSO's queue), else 1 while it has a task to work
// on and 0 while it has none.
func (r *Rank) Load() int {
	if l, ok := r.b.(Loader); ok {
		return l.Load()
	}
	if r.b.Task() != nil {
		return 1
	}
	return 0
}

// Start begins the search: from the root, or, when the job resumes a
// suspended search (Config.Resume), from share, this rank's part of its
// open tasks (Suspended.Share, dealt by the world). It builds the root
// (App.Root) only when the balancer starts from it on this rank
// (RootOptional), and fails when App.Root returns nil. Its messages are in
// the outbox.
func (r *Rank) Start(share [][]byte) error {
	if r.x.job.Config.Resume != nil {
		if err := StartShare(r.b, r.x.app, share); err != nil {
			return err
		}
	} else {
		var root Task
		if o, ok := r.b.(RootOptional); !ok || o.NeedsRoot() {
			if root = r.x.app.Root(); root == nil {
				return r.fail(&RankError{Rank: int(r.rank), Err: nilRoot(r.x.app)})
			}
		}
		r.b.Start(root)
	}
	r.PollDue()
	return nil
}

// Work runs one work slice of Config.Budget nodes (fewer while Δt adapts:
// Config.MinBudget) on the balancer's task and tells the balancer, after
// polling Config.CheckpointDue on rank 0. It returns the nodes expanded,
// and false when the rank had no task (it is idle: the world waits for a
// message or a tick). The slice's messages are in the outbox. A slice
// that expanded nothing of a task that is not Empty, or a negative number
// of nodes, is the app's mistake, which Outbox reports.
func (r *Rank) Work() (nodes int64, ok bool) {
	if r.due != nil {
		r.PollDue()
	}
	t := r.b.Task()
	if t == nil {
		return 0, false
	}
	n := t.Work(r.budget)
	if err := workError(t, r.budget, n); err != nil {
		// The app's mistake: the world would work this task for ever, or
		// count nodes backwards. Outbox reports it, and the run ends.
		r.fail(&RankError{Rank: int(r.rank), Err: err})
		return 0, true
	}
	r.b.Tick(n)
	if r.adapts {
		r.adapt()
	}
	return n, true
}

// nilRoot is the app's mistake of an App.Root that returned nil.
func nilRoot(app App) error {
	return fmt.Errorf("%T.Root returned nil: the root of a search is a Task, Empty when there is nothing to search", app)
}

// workError returns the app's mistake in a slice of budget nodes that
// returned n on t: a negative count, or nothing expanded of a task that is
// not Empty (which a world would work for ever); nil for a good slice.
func workError(t Task, budget, n int64) error {
	switch {
	case n < 0:
		return fmt.Errorf("%T.Work(%d) returned %d nodes: a slice counts the nodes it expanded, 0 or more", t, budget, n)
	case n == 0 && !t.Empty():
		return fmt.Errorf("%T.Work(%d) expanded nothing and left the task not Empty: a task must expand at least one node a slice until it is Empty", t, budget)
	}
	return nil
}

// adapt sets the next slice after one: as it was when a request arrived
// since the last (Step cut it to the least), else a quarter longer, up to
// Config.Budget.
func (r *Rank) adapt() {
	if r.askedNow {
		r.askedNow = false
		return
	}
	if top := r.x.job.Config.budget(); r.budget < top {
		r.budget = min(r.budget+r.budget/4+1, top)
	}
}

// Step hands the rank one message that arrived for it; the replies are in
// the outbox. It fails for a message after the rank was done and for a
// kind that is not a balancer's.
func (r *Rank) Step(m Msg) error {
	if m.Kind <= 0 || m.Kind >= nKinds {
		return RankErrorf(int(r.rank), "a message of kind %d from rank %d during the search", int(m.Kind), m.From)
	}
	if r.done {
		return fmt.Errorf("lb: %v from %d reached rank %d after it was done", m.Kind, m.From, r.rank)
	}
	if m.Kind == KRequest && r.adapts {
		r.askedNow, r.budget = true, r.x.job.Config.minBudget()
	}
	if r.maxPause > 0 {
		switch m.Kind {
		case KReject:
			r.pause = min(max(2*r.pause, 1), r.maxPause)
		case KWork:
			r.pause = 0
		case KTerminate:
			// The search is over: a request held back leaves now, as the
			// drain of termination waits for its answer, which would
			// otherwise wait out the pause (up to MaxPause, which grows
			// with the ranks) at the end of every search.
			if r.holding {
				r.holding, r.released = false, true
			}
		}
	}
	r.b.Deliver(m)
	if r.due != nil {
		r.PollDue()
	}
	return nil
}

// Tick says that n ticks of the world's clock passed (n ≥ 0): a held
// request whose pause is over leaves, and rank 0 polls
// Config.CheckpointDue when RankConfig.DueEvery ticks passed since it last
// did on a tick.
func (r *Rank) Tick(n int) {
	if n <= 0 {
		return
	}
	r.x.ticks += int64(n)
	if r.holding && r.x.ticks >= r.x.releaseAt {
		r.holding, r.released = false, true
	}
	if r.due != nil && r.x.dueEvery > 0 && r.x.ticks-r.x.dueTick >= int64(r.x.dueEvery) {
		r.x.dueTick = r.x.ticks
		r.PollDue()
	}
}

// NextTick returns the ticks until the rank needs Tick again (a held
// request leaves, or rank 0 polls Config.CheckpointDue), at least 1; 0
// means never: an idle world may block until a message arrives.
func (r *Rank) NextTick() int {
	next := int64(0)
	if r.holding {
		next = max(r.x.releaseAt-r.x.ticks, 1)
	}
	if r.due != nil && r.x.dueEvery > 0 {
		d := max(r.x.dueTick+int64(r.x.dueEvery)-r.x.ticks, 1)
		if next == 0 || d < next {
			next = d
		}
	}
	return int(next)
}

// Holding reports whether a request is held back by throttling.
func (r *Rank) Holding() bool { return r.holding }

// PollDue polls Config.CheckpointDue on rank 0 (on every rank with
// RankConfig.Due) and suspends the search
// once it says so (its messages are then in the outbox); it reports
// whether it did now. The Rank polls by itself before every work slice,
// after every message and on ticks (RankConfig.DueEvery); a world may poll
// more often, as a signal may come between any two of its events (the
// simulator polls at every event).
func (r *Rank) PollDue() bool {
	if r.due == nil || r.b.Done() || !r.due() {
		return false
	}
	r.due = nil
	if s, ok := r.b.(Suspender); ok {
		s.Suspend()
	}
	return true
}

// Outbox returns the messages to send now, in order, and empties the
// outbox; the slice is valid until the next call of a method of the Rank
// (the messages' Data stay valid). With throttling on, a request that
// follows a rejection is held back (Tick releases it; a later message to
// the same rank releases it first, keeping the pair's order). It reports
// a protocol violation: a message after the rank was done, a Done that went
// back to false, a message from another rank or to no rank; and the app's
// error when a task did not encode (Task.AppendBinary) or a task that
// arrived did not decode (App.Unmarshal): the run ends with it. On rank 0 it
// also reports a new progress snapshot (Config.Progress).
func (r *Rank) Outbox() ([]Msg, error) {
	out := r.b.Outbox()
	if r.failed {
		return nil, r.x.err
	}
	if r.x.tasks != nil {
		if err := r.x.tasks.taskError(); err != nil {
			return nil, r.fail(err)
		}
	}
	if r.done && len(out) > 0 {
		return nil, r.fail(fmt.Errorf("lb: rank %d sent %v to %d after it was done", r.rank, out[0].Kind, out[0].To))
	}
	for _, m := range out {
		if m.To < 0 || m.To >= int(r.size) || m.From != int(r.rank) {
			return nil, r.fail(fmt.Errorf("lb: rank %d sent a message from %d to %d", r.rank, m.From, m.To))
		}
		if m.Kind == KRequest {
			r.x.asked = int32(m.To) + 1
		}
	}
	if r.b.Done() {
		r.done = true
	} else if r.done {
		return nil, r.fail(fmt.Errorf("lb: rank %d was done and is not any more", r.rank))
	}
	if r.reports {
		if s, ok := r.x.prog.Progress(); ok && s != r.x.last {
			r.x.last = s
			s.Nodes += r.x.base
			r.x.report(s)
		}
	}
	if r.maxPause == 0 {
		return out, nil
	}
	r.x.out = r.x.out[:0]
	if r.released {
		r.released = false
		r.x.out = append(r.x.out, r.x.held)
	}
	for _, m := range out {
		if r.holding && m.To == r.x.held.To {
			r.holding = false
			r.x.out = append(r.x.out, r.x.held)
		}
		if m.Kind == KRequest && r.pause > 0 && !r.holding {
			r.x.held, r.holding, r.x.releaseAt = m, true, r.x.ticks+int64(r.pause)
			continue
		}
		r.x.out = append(r.x.out, m)
	}
	return r.x.out, nil
}

// fail records a protocol violation, which Outbox reports from now on.
func (r *Rank) fail(err error) error {
	r.failed, r.x.err = true, err
	return err
}

// Done reports that the search ended on every rank and no message is in
// flight; the world then ends the rank with End.
func (r *Rank) Done() bool { return r.b.Done() }

// Splits returns the splits the rank made since the last call: the pieces
// its balancer gave away (Stats.Splits) and the in-place halvings of static
// placement and fast initialisation. The simulator charges them
// (Machine.SplitNS); the real worlds pay them in their wall time.
func (r *Rank) Splits() int64 {
	n := r.b.Stats().Splits + r.x.cuts
	d := n - r.x.charged
	r.x.charged = n
	return d
}

// RequestProgress starts a progress snapshot on rank 0 (Config.Progress);
// the world calls it by its clock, about every Config.ProgressEvery. The
// snapshot travels as balancer messages; Outbox reports it once complete.
func (r *Rank) RequestProgress() {
	if r.x.prog != nil {
		r.x.prog.RequestProgress()
	}
}

// LastProgress returns the latest snapshot rank 0 reported.
func (r *Rank) LastProgress() Progress { return r.x.last }

// End returns what the rank contributes to the run's reduction, but for
// its result (Result): its statistics with the world's times, whether the
// search ended suspended with the rank's open tasks, and its incumbent. It
// fails when the rank is not done.
func (r *Rank) End(t Times) (*Finish, error) {
	if !r.b.Done() {
		return nil, fmt.Errorf("lb: rank %d ended before it was done", r.rank)
	}
	if r.holding {
		return nil, fmt.Errorf("lb: rank %d done with a request to rank %d held back", r.rank, r.x.held.To)
	}
	f := &Finish{Stats: *r.b.Stats(), Seconds: t.Seconds}
	f.Stats.WorkSeconds, f.Stats.IdleSeconds = t.Work, t.Idle
	f.Stats.IdleStartSeconds, f.Stats.IdleEndSeconds = t.IdleStart, t.IdleEnd
	if err := f.SetEnd(r.x.app, r.b); err != nil {
		return nil, err
	}
	return f, nil
}

// Times is what a world measured of one rank's search, in seconds of its
// clock (wall time, or the simulator's virtual time), for Rank.End.
type Times struct {
	Work float64 // in work slices
	Idle float64 // waiting for work or messages (the simulator: all but the nodes' cost)
	// IdleStart is the part of Idle before the rank's first work slice
	// (all of it when the rank never worked): the search's start, until
	// work reached the rank. IdleEnd is the part after the rank last found
	// no work following its last slice: the search's end, until
	// termination was detected. The rest of Idle fell between two slices:
	// waiting for work stolen mid-search.
	IdleStart, IdleEnd float64
	Seconds            float64 // the search's length on the rank
}

// IdleSplit splits a rank's idle time into the part before its first work
// slice, the part after its last and the rest (Times). A world tells it
// the rank's idle time so far, in any unit, when the rank works a slice
// (Busy) and when it finds no work (Idle); repeated calls are cheap, and
// only the changes between working and not count, so a world may make them
// on every slice and every empty poll, or only when the rank's state
// changes. The zero value is a rank that has not worked.
type IdleSplit struct {
	worked, busy bool
	first, last  float64 // the idle time so far at the first slice, and when the rank last stopped working
}

// Busy records that the rank works a slice after idle units of idle time.
func (s *IdleSplit) Busy(idle float64) {
	if !s.worked {
		s.worked, s.first = true, idle
	}
	s.busy = true
}

// Idle records that the rank found no work after idle units of idle time.
func (s *IdleSplit) Idle(idle float64) {
	if s.busy {
		s.busy, s.last = false, idle
	}
}

// Times returns the rank's Times: work, idle and seconds in the unit given
// to Busy and Idle, each multiplied by scale to make seconds.
func (s *IdleSplit) Times(work, idle, seconds, scale float64) Times {
	t := Times{Work: work * scale, Idle: idle * scale, IdleStart: idle * scale, Seconds: seconds * scale}
	if s.worked {
		t.IdleStart = s.first * scale
		if !s.busy {
			t.IdleEnd = (idle - s.last) * scale
		}
	}
	return t
}

// Result returns the rank's encoded result (Job.Result of its app).
func (r *Rank) Result() ([]byte, error) {
	if r.x.job.Result == nil {
		return nil, errors.New("lb: a job without results")
	}
	return r.x.job.Result(r.x.app)
}
