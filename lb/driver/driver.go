// Package driver runs lb's balancers over an *mpi.Comm: the embedded world
// of goroutine ranks (the default build) or real MPI (-tags mpi). New wraps a
// rank's communicator as an lb.World, so that solvers written against
// lb.World run under mpirun and srun as they do in the other worlds.
//
// A rank is an lb.Rank, and its driver loop the I/O around it: it works one
// slice of Config.Budget nodes, sends what the rank put in its outbox
// (non-blocking sends), and takes every message that arrived (Iprobe)
// before the next slice; an idle rank blocks in Probe until a message
// arrives (seed 002, Fig. 1: "blockingly"), so idle ranks do not steal the
// core from busy ones, or until its next tick (20 µs of wall time, longer
// for many throttled ranks: tickFor) is due. In an embedded world whose
// ranks outnumber GOMAXPROCS the ranks' searches run instead on a pool of
// GOMAXPROCS workers (pool.go, Options.Pool), with the same clock: an idle
// rank is then an entry in a table rather than a parked goroutine.
//
// Blocking collectives are used
// only before the search (a barrier) and after it: the ranks' results,
// statistics and times are reduced to rank 0 along a binomial tree and the
// combination is broadcast, so no rank ever holds O(P) data but rank 0's
// optional per-rank statistics (lb.Config.RankStats).
package driver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
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

// World is an lb.World over one rank's communicator. Make one with New; it
// belongs to the rank's goroutine and is not safe for concurrent use.
type World struct {
	c     *mpi.Comm
	opt   Options
	nodes int64 // nodes of the finished runs, for progress reports
}

// Options tune a World (NewWith). The zero value is New's.
type Options struct {
	// StallTimeout turns the stall watchdog on: a rank that for this long
	// has done no work and heard nothing that shows the search moving
	// (anything but another rank's request: an answer to its own
	// request, a task, a wave of termination detection, a bound, a
	// progress query) fails with a *StallError, which says its state
	// (lb.RankState). Under MPI the failing rank calls MPI_Abort with
	// ExitStall, which ends every rank of the job, a stopped one included;
	// in the embedded world the world is aborted. 0 turns it off.
	//
	// The clock is the driver loop's (lb.Rank has none). A rank that the
	// others wait for (stopped, swapped out, its node gone) stops its own
	// watchdog too; the others notice it: every idle rank of random
	// polling ends up waiting for the answer of a request to it, and no
	// wave of termination detection passes it. A rank that works one
	// slice longer than the timeout, or a static placement whose busiest
	// rank works longer than it, looks stalled to the idle ranks: the
	// timeout must exceed those.
	StallTimeout time.Duration

	// Pool says where the ranks of an embedded world run their searches:
	// on their own goroutines, or on a pool of GOMAXPROCS workers
	// (pool.go). The MPI world ignores it.
	Pool Pool
}

// Pool says where the ranks of an embedded world run their searches
// (Options.Pool).
type Pool int

const (
	// PoolAuto runs them on the pool when they outnumber GOMAXPROCS, each
	// on its own goroutine otherwise.
	PoolAuto Pool = iota
	// PoolNever runs each on its own goroutine, the loop of an MPI rank.
	PoolNever
	// PoolAlways runs them on the pool whatever their number.
	PoolAlways
)

// New returns the lb.World of the rank that owns c.
func New(c *mpi.Comm) *World { return &World{c: c} }

// NewWith returns the lb.World of the rank that owns c, with options.
func NewWith(c *mpi.Comm, opt Options) *World { return &World{c: c, opt: opt} }

// ExitStall is the exit status of a run that its stall watchdog ended
// (Options.StallTimeout): sysexits.h's EX_TEMPFAIL, a failure that a rerun
// (from a checkpoint) may not meet.
const ExitStall = 75

// StallError is the end of a rank whose stall watchdog fired
// (Options.StallTimeout): its exit status is ExitStall.
type StallError struct {
	State   lb.RankState  // the rank's state when the watchdog fired
	Quiet   time.Duration // how long it had done no work and heard nothing
	Timeout time.Duration // Options.StallTimeout
	Waiting string        // after the search or between searches: what it waited for
}

func (e *StallError) Error() string {
	what := e.State.String()
	if e.Waiting != "" {
		what = fmt.Sprintf("rank %d of %d: %s", e.State.Rank, e.State.Size, e.Waiting)
	}
	return fmt.Sprintf("stalled: no work and no news of the search for %v (--stall-timeout %v): %s; a rank it waits for may be stopped, hung or gone; ending the run",
		e.Quiet.Round(time.Millisecond), e.Timeout, what)
}

// ExitCode is ExitStall.
func (e *StallError) ExitCode() int { return ExitStall }

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
	if w == nil || w.c == nil {
		return nil, errors.New("lb/driver: a World without a communicator (driver.New(nil), or a nil *World): make it with New(c) of the rank's *mpi.Comm")
	}
	// Three steps, each in a function of its own, so that their frames
	// do not add up on the rank's goroutine stack: in the embedded world
	// every rank is a goroutine, and its stack (16 KB when the deepest call
	// needs more than 8) is most of a rank's memory at 65536 ranks.
	p, share, err := w.begin(job)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := w.search(p, share); err != nil {
		return nil, err
	}
	return w.end(job, p, time.Since(start))
}

// begin makes the rank's clock with its engine (pace.r), deals its share
// of a resumed search and waits for every rank (the barrier that starts a
// search).
//
//go:noinline
func (w *World) begin(job lb.Job) (*pace, [][]byte, error) {
	c := w.c
	cfg := job.Config
	throttle, tick := 0, minTick
	if throttles(c) {
		cores := throttleCores()
		tick = tickFor(c.Size(), cores)
		throttle = int(maxPauseFor(c.Size(), cores) / tick)
	}
	r, err := lb.NewRank(job, lb.RankConfig{Rank: c.Rank(), Size: c.Size(), MaxPause: throttle,
		DueEvery: max(int(duePoll/tick), 1), Due: true, ProgressBase: w.nodes})
	// The agreement is the barrier that starts a search, unless a resumed
	// search's tasks are dealt after it (then a barrier follows the deal).
	if err := w.agree(cfg, r, err); err != nil {
		return nil, nil, err
	}
	p := &pace{r: r, tick: tick, stall: w.opt.StallTimeout}
	var share [][]byte
	if cfg.Resume != nil {
		if share, err = w.deal(r.App(), cfg.Resume); err != nil {
			return nil, nil, err
		}
		if err := w.watched("in the barrier that starts a search", c.Barrier); err != nil {
			return nil, nil, fmt.Errorf("lb: %w", err)
		}
	}
	if cfg.Progress != nil && c.Rank() == 0 {
		p.every = lb.ProgressEvery(cfg)
	}
	return p, share, nil
}

// agree checks, collectively, that every rank could make its engine
// (startErr is this rank's error from lb.NewRank) and that the ranks run
// the same search: the same balancer, options, seed, rank statistics and
// resumption, which lb.Run requires of its callers (the Budget may
// differ). A rank that could not start, or ranks given different
// configurations, would otherwise leave the others waiting in a collective
// for ever, or count nodes twice (a rank with fast initialisation beside
// ranks without). Every rank returns an error, or none does.
func (w *World) agree(cfg lb.Config, r *lb.Rank, startErr error) error {
	ok, fp := int64(1), int64(0)
	if startErr != nil {
		ok = 0
	} else {
		fp = fingerprint(cfg, r.Balancer())
	}
	send, recv := []int64{ok, fp, -fp}, make([]int64, 3)
	if err := w.watched("in the barrier that starts a search", func() error { return mpi.Allreduce(w.c, send, recv, mpi.Min) }); err != nil {
		return fmt.Errorf("lb: %w", err)
	}
	switch {
	case startErr != nil:
		return startErr
	case recv[0] == 0:
		return lb.RankErrorf(w.c.Rank(), "another rank could not start the search (its error is its own)")
	case recv[1] != -recv[2]:
		return lb.RankErrorf(w.c.Rank(), "the ranks were given different searches (balancer, options, seed, rank statistics or resumption): lb.Run needs the same Config on every rank")
	}
	return nil
}

// fingerprint hashes what the ranks of a search must agree on: the
// balancer's type, the options' type and fields (flat structs of numbers,
// booleans and strings; none for nil or zero options, the defaults), the
// seed, rank statistics and resumption. It reads the fields by reflect
// rather than fmt, whose printing of a struct takes the rank's goroutine
// past its 8-KB stack (TestRankStack in apps/golomb). The result is
// non-negative, so that its negation fits.
func fingerprint(cfg lb.Config, b lb.Balancer) int64 {
	h := fnv.New64a()
	var w [8]byte
	word := func(x uint64) {
		binary.LittleEndian.PutUint64(w[:], x)
		h.Write(w[:])
	}
	text := func(s string) {
		word(uint64(len(s)))
		h.Write([]byte(s))
	}
	bit := func(b bool) {
		if b {
			word(1)
		} else {
			word(0)
		}
	}
	text(reflect.TypeOf(b).String())
	// Nil options, a nil pointer and the zero value all mean the
	// balancer's defaults: none of them is hashed.
	v := reflect.ValueOf(cfg.Options)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.IsValid() && !v.IsZero() {
		text(v.Type().String())
		if v.Kind() == reflect.Struct {
			for i := range v.NumField() {
				switch f := v.Field(i); f.Kind() {
				case reflect.Bool:
					bit(f.Bool())
				case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
					word(uint64(f.Int()))
				case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
					word(f.Uint())
				case reflect.Float32, reflect.Float64:
					word(math.Float64bits(f.Float()))
				case reflect.String:
					text(f.String())
				}
			}
		}
	}
	word(cfg.Seed)
	bit(cfg.RankStats)
	bit(cfg.Resume != nil)
	return int64(h.Sum64() >> 2)
}

// search runs the rank's search, from its share of a resumed search when
// it has one, on the pool or in its own loop.
//
//go:noinline
func (w *World) search(p *pace, share [][]byte) error {
	c := w.c
	var err error
	if pooled(c, w.opt) {
		err = runPooled(c, p, share)
	} else {
		d := loop{c: c, pace: *p}
		err = d.run(share)
		*p = d.pace
	}
	if err != nil {
		var se *StallError
		if errors.As(err, &se) {
			return err // it names the rank
		}
		// The world names the rank (mpi.Run: "rank 1: lb: …"); the
		// engine's errors start with "lb: " already.
		if strings.HasPrefix(err.Error(), "lb: ") {
			return err
		}
		return fmt.Errorf("lb: %w", err)
	}
	return nil
}

// end ends the rank's search after seconds: its contribution, the
// reduction of the ranks' and the last progress snapshot.
//
//go:noinline
func (w *World) end(job lb.Job, p *pace, seconds time.Duration) (*lb.Outcome, error) {
	r := p.r
	f, err := w.contribution(p, seconds)
	if err != nil {
		return nil, err
	}
	out, err := w.finish(job, r.App(), f)
	if err != nil {
		return nil, err
	}
	w.nodes += out.Total.Nodes
	if p.every > 0 {
		last := r.LastProgress()
		job.Config.Progress(lb.Progress{Nodes: w.nodes, Ranks: w.c.Size(), Incumbent: last.Incumbent, HasBound: last.HasBound})
	}
	return out, nil
}

// contribution returns the rank's part of the search's outcome.
//
//go:noinline
func (w *World) contribution(p *pace, seconds time.Duration) (*lb.Finish, error) {
	r := p.r
	f, err := r.End(p.split.Times(float64(p.work), float64(p.idle), float64(seconds), 1e-9))
	if err != nil {
		return nil, err
	}
	if f.Result, err = r.Result(); err != nil {
		return nil, err
	}
	return f, nil
}

// loop is one rank's driver loop: the I/O around its lb.Rank.
type loop struct {
	pace
	c       *mpi.Comm
	pending []*mpi.Request
}

// pace is the clock of one rank's driver loop, shared by the loop of its
// own goroutine (loop) and the pool of an oversubscribed embedded world
// (runPooled): the rank's work and idle time, its ticks, rank 0's
// progress snapshots and the stall watchdog.
type pace struct {
	r      *lb.Rank
	work   time.Duration
	idle   time.Duration
	tick   time.Duration // the length of the rank's tick (tickFor)
	ticked time.Duration // the time (now) up to which the rank was told its ticks
	every  time.Duration // rank 0 with Config.Progress: the interval of snapshots
	next   time.Duration // and when the next is due
	stall  time.Duration // Options.StallTimeout, 0 for no watchdog
	heard  time.Duration // the last work slice or news of the search
	split  lb.IdleSplit  // idle before the first slice and after the last
	base   time.Time     // the clock's origin (begin)
}

// now returns the time on the rank's clock: the monotonic clock's reading
// since its origin (time.Since), which costs less than time.Now (a clock
// read is 40–60 ns on the development VM) and needs no time.Time
// arithmetic after it.
func (p *pace) now() time.Duration { return time.Since(p.base) }

// worked notes a work slice that ran from t0 to now.
func (p *pace) worked(t0, now time.Duration) {
	p.split.Busy(float64(p.idle))
	p.work += now - t0
	p.heard = now
	p.advance(now) // so that a request held after this slice waits its whole pause
}

// begin starts the clock: its origin is base, and it reads now (the
// embedded pool's ranks share the session's origin, so that their wake-up
// times compare).
func (p *pace) begin(base time.Time, now time.Duration) {
	p.base, p.ticked, p.heard = base, now, now
	p.next = now + p.every
}

// progress asks rank 0 for a progress snapshot when one is due.
func (p *pace) progress(now time.Duration) {
	if p.every > 0 && now >= p.next {
		p.next = now + p.every
		p.r.RequestProgress()
	}
}

// advance tells the rank the ticks that passed by now.
func (p *pace) advance(now time.Duration) {
	if k := (now - p.ticked) / p.tick; k > 0 {
		p.ticked += k * p.tick
		p.r.Tick(int(min(k, 1<<30)))
	}
}

// hear notes a message of kind k that arrived at now: news of the search
// for the watchdog but another rank's request, which shows only that the
// other rank waits too.
func (p *pace) hear(k lb.Kind, now time.Duration) {
	if k != lb.KRequest {
		p.heard = now
	}
}

// stalled returns the watchdog's *StallError when the rank has done no
// work and heard no news for Options.StallTimeout by now, else nil. It
// reads the clock only when the watchdog is on.
func (p *pace) stalled() error {
	if p.stall > 0 {
		if quiet := p.now() - p.heard; quiet >= p.stall {
			return &StallError{State: p.r.State(), Quiet: quiet, Timeout: p.stall}
		}
	}
	return nil
}

// until returns when, on the rank's clock, an idle rank must wake without
// a message: its next tick, rank 0's next progress snapshot or the
// watchdog's deadline; false for never.
func (p *pace) until() (time.Duration, bool) {
	until, ok := time.Duration(0), false
	if n := p.r.NextTick(); n > 0 {
		until, ok = p.ticked+time.Duration(n)*p.tick, true
	}
	if p.every > 0 && (!ok || p.next < until) {
		until, ok = p.next, true
	}
	if p.stall > 0 {
		if deadline := p.heard + p.stall; !ok || deadline < until {
			until, ok = deadline, true
		}
	}
	return until, ok
}

// minTick is the shortest length of the rank's logical idle tick
// (lb.Rank.Tick), the tick of ranks that do not throttle: tickFor gives
// throttled ranks longer ones.
const minTick = 20 * time.Microsecond

// pauseSteps is the longest pause of request throttling in ticks, at most:
// an idle rank's pause doubles from one tick to the longest pause in about
// log₂ pauseSteps rejections, whatever the number of ranks.
const pauseSteps = 1024

// tickFor returns the tick of size throttled ranks on cores cores: the
// longest pause (maxPauseFor) over pauseSteps, at least minTick. The
// first pause after a rejection is one tick, so the requests an idle rank
// sends while its pause doubles up to the longest do not grow with the
// ranks: with a tick of 20 µs they were log₂(longest/20 µs), 10 at 1024
// ranks on two cores and 16 at 65536, and since every search of a run
// starts the doubling afresh, the requests per rank grew with log P
// (issue 23).
func tickFor(size, cores int) time.Duration {
	return max(maxPauseFor(size, cores)/pauseSteps, minTick)
}

// duePoll is how often an idle rank 0 polls Config.CheckpointDue while it
// waits for messages.
const duePoll = 20 * time.Millisecond

// pausePerRank makes the longest pause of request throttling grow with the
// ranks beyond a core, at least 2 ms, so that the idle ranks' requests
// together stay well below what the cores can route while busy ranks work:
// at most cores/pausePerRank requests a second (10 000 on two cores)
// whatever the number of ranks. A request and its rejection cost the
// process 10 to 20 µs of CPU (two goroutine wake-ups, more as the ranks'
// state outgrows the caches), so at 50 µs, the value until the issue-23
// rework, the idle ranks took a fifth to two fifths of the cores, the
// more the more ranks, and the runs' time per rank grew with P; at 200 µs
// they take a twentieth to a tenth. (An upper bound on the pause, 100 ms until
// issue 23, let that rate grow with the ranks past 2000 per core, and the
// idle ranks' requests then starved the busy ones: the embedded world's
// time per rank grew with P, golomb --np 16384 10 on two cores took 486 s
// instead of 88 s.)
const pausePerRank = 200 * time.Microsecond

// Throttling returns the request throttling of size ranks on cores cores
// in the embedded world: the pause of a tick (the first pause after a
// rejection) and the longest pause, and false when the ranks do not
// outnumber the cores (no throttling). The simulator's machine models it
// with lb.Machine.PauseNS and MaxPauseNS.
func Throttling(size, cores int) (first, longest time.Duration, ok bool) {
	if size <= cores {
		return 0, 0, false
	}
	return tickFor(size, cores), maxPauseFor(size, cores), true
}

// throttleCores returns the cores that throttling divides the ranks by:
// the embedded world's GOMAXPROCS, and for an MPI process the CPUs it may
// run on (runtime.NumCPU, its affinity at start). Main gives an unbound
// MPI process its share of them as GOMAXPROCS (runner's setMPIProcs), one
// search thread, which says nothing of the ranks per core.
func throttleCores() int {
	if mpi.WorldName == "embedded" {
		return runtime.GOMAXPROCS(0)
	}
	return runtime.NumCPU()
}

// maxPauseFor returns the longest pause for size ranks on cores cores.
func maxPauseFor(size, cores int) time.Duration {
	return max(time.Duration(size/max(cores, 1))*pausePerRank, 2*time.Millisecond)
}

// throttles reports whether the ranks of c outnumber the cores they run on:
// the embedded world's goroutine ranks beyond GOMAXPROCS, or MPI ranks
// that wait by yielding (mpi.IdleYield, which auto chooses on an
// oversubscribed node). Then an idle rank's requests are throttled
// (lb.RankConfig.MaxPause): each rejection is answered by the next request
// immediately in random polling (seed 002, Fig. 1), and idle ranks that
// share a core with busy ones would otherwise spend it asking each other
// for work that none of them has.
func throttles(c *mpi.Comm) bool {
	if mpi.WorldName == "embedded" {
		return c.Size() > runtime.GOMAXPROCS(0)
	}
	return c.Idle() == mpi.IdleYield
}

// run is the loop: work a slice, send, take every message that arrived
// (Iprobe); when idle, block until a message arrives (seed 002 Fig. 1:
// "blockingly") or the rank's next tick is due.
func (d *loop) run(share [][]byte) error {
	d.begin(time.Now(), 0)
	if err := d.r.Start(share); err != nil {
		return err
	}
	if err := d.flush(); err != nil {
		return err
	}
	// t0 is the start of the next work slice when it is known: the end of
	// the last one, when its poll found no message (so the poll counts as
	// work, and a busy rank reads the clock once a slice).
	t0, known := time.Duration(0), false
	for !d.r.Done() {
		if !known {
			t0 = d.now()
		}
		known = false
		d.progress(t0)
		if _, ok := d.r.Work(); ok {
			t1 := d.now()
			d.worked(t0, t1)
			if err := d.flush(); err != nil {
				return err
			}
			t0, known = t1, true
			for !d.r.Done() {
				st, ok, err := d.c.Iprobe(mpi.AnySource, mpi.AnyTag)
				if err != nil {
					return err
				}
				if !ok {
					break
				}
				known = false
				if err := d.receive(st); err != nil {
					return err
				}
			}
			continue
		}
		d.split.Idle(float64(d.idle))
		if err := d.flush(); err != nil { // the poll of the checkpoint may have suspended
			return err
		}
		if d.r.Done() {
			break
		}
		if err := d.stalled(); err != nil {
			return err
		}
		st, ok, err := d.wait()
		t1 := d.now()
		d.idle += t1 - t0
		if err != nil {
			return err
		}
		d.advance(t1)
		if ok {
			if err := d.receive(st); err != nil {
				return err
			}
		} else if err := d.flush(); err != nil {
			return err
		}
	}
	for _, r := range d.pending {
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// wait blocks until a message arrives, or until the rank's next tick, a
// progress snapshot or the watchdog is due (ok false).
func (d *loop) wait() (mpi.Status, bool, error) {
	until, ok := d.until()
	if !ok {
		st, err := d.c.Probe(mpi.AnySource, mpi.AnyTag)
		return st, err == nil, err
	}
	return d.c.ProbeWithin(mpi.AnySource, mpi.AnyTag, until-d.now())
}

// receive takes the message st announces and steps the rank with it.
func (d *loop) receive(st mpi.Status) error {
	if st.Tag <= 0 || st.Tag >= lb.NumKinds {
		return fmt.Errorf("a message with tag %d from rank %d during the search", st.Tag, st.Source)
	}
	buf := make([]byte, st.Count)
	if _, err := d.c.Recv(buf, st.Source, st.Tag); err != nil {
		return err
	}
	d.hear(lb.Kind(st.Tag), d.now())
	if err := d.r.Step(lb.Msg{From: st.Source, To: d.c.Rank(), Kind: lb.Kind(st.Tag), Data: buf}); err != nil {
		return err
	}
	return d.flush()
}

// flush starts sending the rank's outbox and forgets the sends that
// completed.
func (d *loop) flush() error {
	out, err := d.r.Outbox()
	if err != nil {
		return err
	}
	for _, m := range out {
		r, err := d.c.Isend(m.Data, m.To, int(m.Kind))
		if err != nil {
			return err
		}
		d.pending = append(d.pending, r)
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
	var own *lb.Stats // the rank's own, before the merges
	if job.Config.RankStats {
		own = ownStats(f)
	}
	c, rank, size := w.c, w.c.Rank(), w.c.Size()
	for child := 2*rank + 1; child <= 2*rank+2 && child < size; child++ {
		if err := w.mergeChild(job, app, f, child); err != nil {
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
	total, err := w.broadcastTotal(f)
	if err != nil {
		return nil, err
	}
	var ranks []lb.Stats
	if job.Config.RankStats {
		if ranks, err = w.gather(own); err != nil {
			return nil, err
		}
	}
	return total.Outcome(ranks), nil
}

// gather gathers every rank's own statistics on rank 0.
//
//go:noinline
func (w *World) gather(own *lb.Stats) (ranks []lb.Stats, err error) {
	err = w.watched("the search is done, in the gathering of the ranks' statistics", func() (err error) {
		ranks, err = gatherStats(w.c, *own)
		return err
	})
	return ranks, err
}

// ownStats returns a copy of f's statistics, on the heap.
//
//go:noinline
func ownStats(f *lb.Finish) *lb.Stats {
	st := f.Stats
	return &st
}

// mergeChild merges into f the results of the subtree of rank child.
func (w *World) mergeChild(job lb.Job, app lb.App, f *lb.Finish, child int) error {
	g, err := w.childResults(child)
	if err != nil {
		return err
	}
	return f.Merge(job, app, g)
}

// childResults receives the results of the subtree of rank child.
//
//go:noinline
func (w *World) childResults(child int) (*lb.Finish, error) {
	st, err := w.probe(child, tagFinish, "waiting for the results of rank %d's subtree")
	if err != nil {
		return nil, err
	}
	buf := make([]byte, st.Count)
	if _, err := w.c.Recv(buf, child, tagFinish); err != nil {
		return nil, fmt.Errorf("lb: reducing the results: %w", err)
	}
	g := new(lb.Finish)
	if err := g.UnmarshalBinary(buf); err != nil {
		return nil, err
	}
	return g, nil
}

// broadcastTotal broadcasts rank 0's combination f of every rank's
// results, and returns it on every rank, the open tasks on rank 0 alone.
//
//go:noinline
func (w *World) broadcastTotal(f *lb.Finish) (*lb.Finish, error) {
	var all []byte
	if w.c.Rank() == 0 {
		g := *f
		g.Tasks = nil // the open tasks stay on rank 0
		var err error
		if all, err = g.AppendBinary(nil); err != nil {
			return nil, err
		}
	}
	err := w.watched("the search is done, in the broadcast of its result", func() (err error) {
		all, err = Bcast(w.c, all, 0)
		return err
	})
	if err != nil {
		return nil, err
	}
	total := new(lb.Finish)
	if err := total.UnmarshalBinary(all); err != nil {
		return nil, err
	}
	if w.c.Rank() == 0 {
		total.Tasks = f.Tasks
	}
	return total, nil
}

// probe waits for a message from rank src with tag, for at most
// Options.StallTimeout when it is set; what says what the rank waits for,
// with the rank's number as its argument.
func (w *World) probe(src, tag int, what string) (mpi.Status, error) {
	if w.opt.StallTimeout <= 0 {
		st, err := w.c.Probe(src, tag)
		if err != nil {
			return st, fmt.Errorf("lb: reducing the results: %w", err)
		}
		return st, nil
	}
	st, ok, err := w.c.ProbeWithin(src, tag, w.opt.StallTimeout)
	if err != nil {
		return st, fmt.Errorf("lb: reducing the results: %w", err)
	}
	if !ok {
		return st, &StallError{State: lb.RankState{Rank: w.c.Rank(), Size: w.c.Size()}, Quiet: w.opt.StallTimeout,
			Timeout: w.opt.StallTimeout, Waiting: "the search is done, " + fmt.Sprintf(what, src)}
	}
	return st, nil
}

// watched runs collective, one of the blocking collectives around a search
// (the barrier that starts it, the broadcast of its result, the gathering
// of statistics), under the stall watchdog (Options.StallTimeout) in the
// MPI world: a rank stopped, hung or gone outside the search would keep the
// others in it for ever, and MPI has no blocking collective with a
// deadline. If collective has not returned after the timeout, the rank
// prints a *StallError that says what it waits in and calls
// MPI_Abort(ExitStall), which ends every rank, the stopped one included.
// It calls it from the timer's goroutine, since MPI's thread is in the
// collective: MPI_THREAD_FUNNELED does not promise that this works, but
// Open MPI and MPICH end the job with the status (mpi's
// TestAbortUnderMpirun, mode stall), where an exit of the process alone
// left MPICH's mpiexec reporting another rank's SIGKILL. The embedded
// world's ranks share one process, which a signal stops as a whole, and
// its collectives return when the world is aborted: there collective runs
// unwatched, as it does with the watchdog off.
func (w *World) watched(what string, collective func() error) error {
	d := w.opt.StallTimeout
	if d <= 0 || mpi.WorldName != "mpi" {
		return collective()
	}
	var mu sync.Mutex
	done := false
	start := time.Now()
	t := time.AfterFunc(d, func() {
		mu.Lock() // held until the exit: a collective that returns now waits
		if done {
			mu.Unlock()
			return
		}
		err := &StallError{State: lb.RankState{Rank: w.c.Rank(), Size: w.c.Size()}, Quiet: time.Since(start), Timeout: d,
			Waiting: what + ", for a rank that does not come"}
		fmt.Fprintf(os.Stderr, "rank %d: %v\n", w.c.Rank(), err)
		time.Sleep(stallExitGrace)
		_ = w.c.Abort(ExitStall) // MPI_Abort, then the process's exit: it does not return
	})
	err := collective()
	mu.Lock()
	done = true
	mu.Unlock()
	t.Stop()
	return err
}

// stallExitGrace is how long a rank whose watched collective stalled waits
// between printing why and ending its process, so that the launcher
// forwards the message before it ends the other ranks.
const stallExitGrace = 200 * time.Millisecond

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
// on every rank (b is used on root only). It is collective: one broadcast of
// bcastHead bytes, the length and, when they fit, the bytes; else a second
// broadcast of the bytes.
func Bcast(c *mpi.Comm, b []byte, root int) ([]byte, error) {
	head := make([]byte, bcastHead)
	binary.LittleEndian.PutUint64(head, uint64(len(b)))
	if c.Rank() == root && len(b) <= bcastHead-8 {
		copy(head[8:], b)
	}
	if err := c.Bcast(head, root); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	n := binary.LittleEndian.Uint64(head)
	if n <= bcastHead-8 {
		if c.Rank() == root {
			return b, nil
		}
		return head[8 : 8+n : 8+n], nil
	}
	if c.Rank() != root {
		b = make([]byte, n)
	}
	if err := c.Bcast(b, root); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	return b, nil
}

// bcastHead is the size of Bcast's first broadcast: a search's result and
// statistics, and the instances of most runs, fit in it, so that one
// broadcast carries them (a broadcast wakes every rank: 65536 goroutines in
// the embedded world, issue 23).
const bcastHead = 512

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
		return nil, lb.RankErrorf(rank, "an empty share of tasks")
	}
	if buf[0] != 0 {
		return nil, fmt.Errorf("%w (rank 0: %s)", lb.ErrBadTasks, buf[1:])
	}
	tasks, rest, err := lb.ParseTasks(buf[1:])
	if err != nil || len(rest) != 0 {
		return nil, lb.RankErrorf(rank, "a malformed share of tasks")
	}
	return tasks, nil
}
