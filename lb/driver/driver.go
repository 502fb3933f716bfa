// Package driver runs lb's balancers over an *mpi.Comm: the embedded world
// of goroutine ranks (the default build) or real MPI (-tags mpi). New wraps a
// rank's communicator as an lb.World, so that solvers written against
// lb.World run under mpirun and srun as they do in the other worlds.
//
// A rank's driver loop works one slice of Config.Budget nodes, sends what
// the balancer put in its outbox (non-blocking sends), and takes every
// message that arrived (Iprobe) before the next slice; an idle rank blocks
// in Probe until a message arrives (seed 002, Fig. 1: "blockingly"), so idle
// ranks do not steal the core from busy ones. Blocking collectives are used
// only before the search (a barrier) and after it: the ranks' results,
// statistics and times are reduced to rank 0 along a binomial tree and the
// combination is broadcast, so no rank ever holds O(P) data but rank 0's
// optional per-rank statistics (lb.Config.RankStats).
package driver

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

// tagFinish tags the reduction of the ranks' results, tagResume the
// shares of a resumed search's tasks; the balancers' tags are below
// lb.NumKinds.
const (
	tagFinish = lb.NumKinds
	tagResume = lb.NumKinds + 1
)

// duePoll is how often an idle rank 0 polls Config.CheckpointDue while it
// waits for messages.
const duePoll = 20 * time.Millisecond

// World is an lb.World over one rank's communicator. Make one with New; it
// belongs to the rank's goroutine and is not safe for concurrent use.
type World struct {
	c     *mpi.Comm
	nodes int64 // nodes of the finished runs, for progress reports
}

// New returns the lb.World of the rank that owns c.
func New(c *mpi.Comm) *World { return &World{c: c} }

// Name is mpi.WorldName: "embedded" or "mpi".
func (w *World) Name() string { return mpi.WorldName }

// Rank is the rank of the communicator.
func (w *World) Rank() int { return w.c.Rank() }

// Size is the size of the communicator.
func (w *World) Size() int { return w.c.Size() }

// Comm returns the communicator, for collectives between computations.
func (w *World) Comm() *mpi.Comm { return w.c }

// Run runs job on every rank of the communicator; see lb.World.
func (w *World) Run(job lb.Job) (*lb.Outcome, error) {
	c := w.c
	app := job.NewApp()
	cfg := job.Config
	var share [][]byte
	if cfg.Resume != nil {
		cfg.Resume.Prime(app)
		var err error
		if share, err = w.deal(app, cfg.Resume); err != nil {
			return nil, err
		}
	}
	b, err := lb.NewBalancer(cfg.Balancer, lb.Env{Rank: c.Rank(), Size: c.Size(), App: app,
		Rand: lb.NewRand(cfg.Seed, c.Rank()), Seed: cfg.Seed, Options: cfg.Options})
	if err != nil {
		return nil, err
	}
	budget := cfg.Budget
	if budget <= 0 {
		budget = lb.DefaultBudget
	}
	if err := c.Barrier(); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	d := loop{c: c, b: b, throttle: throttles(c), maxPause: maxPauseFor(c.Size(), runtime.GOMAXPROCS(0)),
		resume: cfg.Resume != nil, share: share}
	if c.Rank() == 0 {
		d.due = cfg.CheckpointDue
	}
	if p, ok := b.(lb.Progresser); ok && cfg.Progress != nil && c.Rank() == 0 {
		d.progress = &progress{p: p, report: cfg.Progress, every: lb.ProgressEvery(cfg), base: w.nodes}
	}
	start := time.Now()
	if err := d.run(app, budget); err != nil {
		return nil, fmt.Errorf("lb: rank %d: %w", c.Rank(), err)
	}
	seconds := time.Since(start).Seconds()
	st := *b.Stats()
	st.WorkSeconds, st.IdleSeconds = d.work.Seconds(), d.idle.Seconds()
	res, err := job.Result(app)
	if err != nil {
		return nil, err
	}
	f := &lb.Finish{Result: res, Stats: st, Seconds: seconds}
	if err := f.SetEnd(app, b); err != nil {
		return nil, err
	}
	out, err := w.finish(job, app, f)
	if err != nil {
		return nil, err
	}
	w.nodes += out.Total.Nodes
	if d.progress != nil {
		cfg.Progress(lb.Progress{Nodes: w.nodes, Ranks: c.Size(), Incumbent: d.progress.last.Incumbent, HasBound: d.progress.last.HasBound})
	}
	return out, nil
}

// progress is rank 0's side of progress reports: it asks the balancers for a
// snapshot every so often and passes complete ones on.
type progress struct {
	p      lb.Progresser
	report func(lb.Progress)
	every  time.Duration
	base   int64 // nodes of the earlier runs
	next   time.Time
	last   lb.Progress
}

// tick asks for a snapshot when one is due and reports a new complete one.
func (p *progress) tick(now time.Time) {
	if s, ok := p.p.Progress(); ok && s != p.last {
		p.last = s
		s.Nodes += p.base
		p.report(s)
	}
	if now.After(p.next) {
		p.next = now.Add(p.every)
		p.p.RequestProgress()
	}
}

// loop is one rank's driver loop.
type loop struct {
	c       *mpi.Comm
	b       lb.Balancer
	pending []*mpi.Request
	work    time.Duration
	idle    time.Duration

	// Request throttling when ranks outnumber cores (see throttles): a
	// request that follows a rejection is held back for a pause that
	// doubles with every rejection in a row, from minPause to maxPause,
	// and the pause ends when work arrives.
	throttle  bool
	maxPause  time.Duration
	pause     time.Duration
	held      *lb.Msg
	heldUntil time.Time

	progress *progress // rank 0 with Config.Progress, else nil

	resume bool        // start with share, a resumed search's tasks
	share  [][]byte    // (encoded), instead of the root
	due    func() bool // rank 0: Config.CheckpointDue until it fired
}

// The pauses of request throttling: from minPause, doubling up to
// pausePerRank for every rank beyond a core, at least 2 ms, so that the
// idle ranks' requests together stay well below what the cores can route
// while busy ranks work: at most cores/pausePerRank requests a second
// (40 000 on two cores) whatever the number of ranks. (An upper bound on
// the pause, 100 ms until issue 23, let that rate grow with the ranks past
// 2000 per core, and the idle ranks' requests then starved the busy ones:
// the embedded world's time per rank grew with P, golomb --np 16384 10 on
// two cores took 486 s instead of 88 s.)
const (
	minPause     = 20 * time.Microsecond
	pausePerRank = 50 * time.Microsecond
)

// maxPauseFor returns the longest pause for size ranks on cores cores.
func maxPauseFor(size, cores int) time.Duration {
	return max(time.Duration(size/max(cores, 1))*pausePerRank, 2*time.Millisecond)
}

// throttles reports whether the ranks of c outnumber the cores they run on:
// the embedded world's goroutine ranks beyond GOMAXPROCS, or MPI ranks
// that wait by yielding (mpi.IdleYield, which auto chooses on an
// oversubscribed node). Then an idle rank's requests are throttled: each
// rejection is answered by the next request immediately in random polling
// (seed 002, Fig. 1), and idle ranks that share a core with busy ones would
// otherwise spend it asking each other for work that none of them has. A
// held request is a message the network delays; the balancer does not see
// the difference.
func throttles(c *mpi.Comm) bool {
	if mpi.WorldName == "embedded" {
		return c.Size() > runtime.GOMAXPROCS(0)
	}
	return c.Idle() == mpi.IdleYield
}

// checkDue suspends the search once Config.CheckpointDue says so.
func (d *loop) checkDue() error {
	if d.due == nil || d.b.Done() || !d.due() {
		return nil
	}
	d.due = nil
	if s, ok := d.b.(lb.Suspender); ok {
		s.Suspend()
	}
	return d.flush()
}

func (d *loop) run(app lb.App, budget int64) error {
	if d.resume {
		if err := lb.StartShare(d.b, app, d.share); err != nil {
			return err
		}
		d.share = nil
	} else {
		d.b.Start(app.Root())
	}
	if err := d.flush(); err != nil {
		return err
	}
	for !d.b.Done() {
		if err := d.checkDue(); err != nil {
			return err
		}
		if d.progress != nil {
			d.progress.tick(time.Now())
			if err := d.flush(); err != nil {
				return err
			}
		}
		if t := d.b.Task(); t != nil {
			t0 := time.Now()
			n := t.Work(budget)
			d.work += time.Since(t0)
			d.b.Tick(n)
			if err := d.flush(); err != nil {
				return err
			}
			for !d.b.Done() {
				st, ok, err := d.c.Iprobe(mpi.AnySource, mpi.AnyTag)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				if err := d.receive(st); err != nil {
					return err
				}
			}
			continue
		}
		// Idle: block until a message arrives (seed 002 Fig. 1: "blockingly"),
		// or the held request is due.
		t0 := time.Now()
		st, ok, err := d.wait()
		d.idle += time.Since(t0)
		if err != nil {
			return err
		}
		if !ok {
			if d.held != nil && !time.Now().Before(d.heldUntil) {
				if err := d.release(); err != nil {
					return err
				}
			}
			continue
		}
		if err := d.receive(st); err != nil {
			return err
		}
	}
	if d.held != nil {
		return fmt.Errorf("done with a request to rank %d held back", d.held.To)
	}
	for _, r := range d.pending {
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// wait blocks until a message arrives, or until the held request or a
// progress snapshot is due (ok false).
func (d *loop) wait() (mpi.Status, bool, error) {
	var until time.Time
	if d.held != nil {
		until = d.heldUntil
	}
	if d.progress != nil && (until.IsZero() || d.progress.next.Before(until)) {
		until = d.progress.next
	}
	if d.due != nil {
		if poll := time.Now().Add(duePoll); until.IsZero() || poll.Before(until) {
			until = poll
		}
	}
	if until.IsZero() {
		st, err := d.c.Probe(mpi.AnySource, mpi.AnyTag)
		return st, err == nil, err
	}
	return d.c.ProbeWithin(mpi.AnySource, mpi.AnyTag, time.Until(until))
}

func (d *loop) receive(st mpi.Status) error {
	if st.Tag <= 0 || st.Tag >= lb.NumKinds {
		return fmt.Errorf("a message with tag %d from rank %d during the search", st.Tag, st.Source)
	}
	buf := make([]byte, st.Count)
	if _, err := d.c.Recv(buf, st.Source, st.Tag); err != nil {
		return err
	}
	if d.throttle {
		switch lb.Kind(st.Tag) {
		case lb.KReject:
			d.pause = min(max(2*d.pause, minPause), d.maxPause)
		case lb.KWork:
			d.pause = 0
		}
	}
	d.b.Deliver(lb.Msg{From: st.Source, To: d.c.Rank(), Kind: lb.Kind(st.Tag), Data: buf})
	return d.flush()
}

// send starts sending m.
func (d *loop) send(m lb.Msg) error {
	r, err := d.c.Isend(m.Data, m.To, int(m.Kind))
	if err != nil {
		return err
	}
	d.pending = append(d.pending, r)
	return nil
}

// release sends the held request.
func (d *loop) release() error {
	m := d.held
	d.held = nil
	return d.send(*m)
}

func (d *loop) flush() error {
	for _, m := range d.b.Outbox() {
		if d.held != nil && (m.To == d.held.To || time.Now().After(d.heldUntil)) {
			// Keep the order of the pair (and never hold past the due time).
			if err := d.release(); err != nil {
				return err
			}
		}
		if d.throttle && d.pause > 0 && m.Kind == lb.KRequest && d.held == nil {
			d.held, d.heldUntil = &m, time.Now().Add(d.pause)
			continue
		}
		if err := d.send(m); err != nil {
			return err
		}
	}
	// Drop completed sends, keeping order.
	k := 0
	for _, r := range d.pending {
		if _, done, err := r.Test(); err != nil {
			return err
		} else if !done {
			d.pending[k] = r
			k++
		}
	}
	clear(d.pending[k:])
	d.pending = d.pending[:k]
	return nil
}

// finish reduces the ranks' contributions to rank 0 along the heap-ordered
// tree of termination detection (children 2r+1 and 2r+2), broadcasts the
// combination, and gathers the per-rank statistics on rank 0 when the job
// asks for them. A rank's parent is done before the rank (the exit message
// comes down that tree), so no contribution reaches a rank still in its
// search. The combination order depends only on the number of ranks.
// O(log P) rounds and O(1) data per rank but rank 0's statistics.
func (w *World) finish(job lb.Job, app lb.App, f *lb.Finish) (*lb.Outcome, error) {
	own := f.Stats
	c, rank, size := w.c, w.c.Rank(), w.c.Size()
	for child := 2*rank + 1; child <= 2*rank+2 && child < size; child++ {
		st, err := c.Probe(child, tagFinish)
		if err != nil {
			return nil, fmt.Errorf("lb: reducing the results: %w", err)
		}
		buf := make([]byte, st.Count)
		if _, err := c.Recv(buf, child, tagFinish); err != nil {
			return nil, fmt.Errorf("lb: reducing the results: %w", err)
		}
		var g lb.Finish
		if err := g.UnmarshalBinary(buf); err != nil {
			return nil, err
		}
		if err := f.Merge(job, app, &g); err != nil {
			return nil, err
		}
	}
	if rank != 0 {
		data, err := f.AppendBinary(nil)
		if err != nil {
			return nil, err
		}
		if err := c.Send(data, (rank-1)/2, tagFinish); err != nil {
			return nil, fmt.Errorf("lb: reducing the results: %w", err)
		}
	}
	var all []byte
	if rank == 0 {
		g := *f
		g.Tasks = nil // the open tasks stay on rank 0
		var err error
		if all, err = g.AppendBinary(nil); err != nil {
			return nil, err
		}
	}
	all, err := Bcast(c, all, 0)
	if err != nil {
		return nil, err
	}
	var total lb.Finish
	if err := total.UnmarshalBinary(all); err != nil {
		return nil, err
	}
	if rank == 0 {
		total.Tasks = f.Tasks
	}
	var ranks []lb.Stats
	if job.Config.RankStats {
		if ranks, err = gatherStats(c, own); err != nil {
			return nil, err
		}
	}
	return total.Outcome(ranks), nil
}

// gatherStats gathers every rank's own statistics on rank 0, indexed by
// rank; nil elsewhere.
func gatherStats(c *mpi.Comm, own lb.Stats) ([]lb.Stats, error) {
	local, err := own.AppendBinary(nil)
	if err != nil {
		return nil, err
	}
	var all []byte
	if c.Rank() == 0 {
		all = make([]byte, lb.StatsSize*c.Size())
	}
	if err := c.Gather(local, all, 0); err != nil {
		return nil, fmt.Errorf("lb: gathering statistics: %w", err)
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	ranks := make([]lb.Stats, c.Size())
	for r := range ranks {
		if err := ranks[r].UnmarshalBinary(all[lb.StatsSize*r : lb.StatsSize*(r+1)]); err != nil {
			return nil, err
		}
	}
	return ranks, nil
}

// Bcast broadcasts b, a byte string of any length, from root and returns it
// on every rank (b is used on root only). It is collective: two broadcasts,
// the length and the bytes.
func Bcast(c *mpi.Comm, b []byte, root int) ([]byte, error) {
	n := make([]byte, 8)
	binary.LittleEndian.PutUint64(n, uint64(len(b)))
	if err := c.Bcast(n, root); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	if c.Rank() != root {
		b = make([]byte, binary.LittleEndian.Uint64(n))
	}
	if err := c.Bcast(b, root); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	return b, nil
}

// deal hands out the open tasks of a suspended search: rank 0 checks that
// every task decodes and sends each rank its share (lb.Suspended.Share), or
// the verdict that they do not; it returns this rank's share. It is
// collective.
func (w *World) deal(app lb.App, r *lb.Suspended) ([][]byte, error) {
	c, rank, size := w.c, w.c.Rank(), w.c.Size()
	if rank == 0 {
		bad := lb.CheckTasks(app, r)
		for to := 1; to < size; to++ {
			msg := []byte{0}
			if bad != nil {
				msg = append([]byte{1}, bad.Error()...)
			} else {
				msg = lb.AppendTasks(msg, r.Share(to, size))
			}
			if err := c.Send(msg, to, tagResume); err != nil {
				return nil, fmt.Errorf("lb: dealing the tasks: %w", err)
			}
		}
		if bad != nil {
			return nil, bad
		}
		return r.Share(0, size), nil
	}
	st, err := c.Probe(0, tagResume)
	if err != nil {
		return nil, fmt.Errorf("lb: receiving the tasks: %w", err)
	}
	buf := make([]byte, st.Count)
	if _, err := c.Recv(buf, 0, tagResume); err != nil {
		return nil, fmt.Errorf("lb: receiving the tasks: %w", err)
	}
	if len(buf) == 0 {
		return nil, fmt.Errorf("lb: rank %d: an empty share of tasks", rank)
	}
	if buf[0] != 0 {
		return nil, fmt.Errorf("%w (rank 0: %s)", lb.ErrBadTasks, buf[1:])
	}
	tasks, rest, err := lb.ParseTasks(buf[1:])
	if err != nil || len(rest) != 0 {
		return nil, fmt.Errorf("lb: rank %d: a malformed share of tasks", rank)
	}
	return tasks, nil
}
