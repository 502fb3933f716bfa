//go:build !mpi

package driver

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

// The pool runs the search of an oversubscribed embedded world (more ranks
// than GOMAXPROCS): the ranks' engines (lb.Rank) are stepped by GOMAXPROCS
// worker goroutines from one run queue, with one heap of wake-up times,
// while the ranks' own goroutines wait for the end of the search (they run
// the collectives before and after it). An idle rank is then an entry in a
// table, and a message a queue operation, instead of a parked goroutine
// whose every wake-up misses the caches on its stack, its mailbox and its
// timer: with one goroutine per rank the time per rank of golomb 10 grew
// 2.3× from 1024 to 65536 ranks on two cores (issue 23, docs/reliability.md).
//
// A rank runs on one worker at a time (its slot is queued, running or
// waiting), so its lb.Rank and app see one goroutine at a time, handed
// over under the session's lock. A busy rank works one slice per turn and
// goes to the back of the queue, as a goroutine rank is preempted; its
// messages are taken at the start of its next turn, as the goroutine loop
// takes them (Iprobe) between slices. A worker takes the session's lock
// once a turn (twice when a busy rank's replies leave before its slice).
// The clock, throttling, progress and watchdog are those of the goroutine
// loop (pace).

// pooled reports whether c's rank runs its searches on the pool. Every rank
// of a world decides the same: PoolAuto compares the world's size with
// GOMAXPROCS as the first rank to ask read it, since GOMAXPROCS can change
// while the ranks leave the barrier (a runtime.GOMAXPROCS call, or the
// runtime's own update when the process's CPU limit changes), and ranks
// that decided apart would wait for each other's messages for ever.
func pooled(c *mpi.Comm, opt Options) bool {
	if opt.Pool != PoolAuto {
		return opt.Pool == PoolAlways
	}
	procs := c.Local(procsKey{}, func() any { return runtime.GOMAXPROCS(0) }).(int)
	return c.Size() > procs
}

// procsKey keys the GOMAXPROCS that a world's ranks decide PoolAuto by.
type procsKey struct{}

// pool is the meeting point of an embedded world's ranks (mpi.Comm.Local):
// the sessions, one per search, that ranks have joined and not all left.
type pool struct {
	mu       sync.Mutex
	joins    map[int]int // the searches each rank has joined
	sessions map[int]*session
}

type poolKey struct{}

// runPooled runs the search of p's rank on the world's pool and returns
// when the rank is done, with p's times set.
func runPooled(c *mpi.Comm, p *pace, share [][]byte) error {
	pl := c.Local(poolKey{}, func() any { return &pool{joins: map[int]int{}, sessions: map[int]*session{}} }).(*pool)
	s := pl.join(c)
	done := s.add(c.Rank(), p, share)
	// done comes after the rank's last turn, also when the search fails
	// (the world's abort ends the session: a worker's turn or wait sees
	// it), so that no worker runs the rank's app after its goroutine and
	// mpi.Run have returned.
	if err := <-done; !errors.Is(err, errPoolAborted) {
		return err
	}
	// Another rank failed: its error is the world's.
	<-c.Aborted()
	return &mpi.Error{Func: "MPI_Probe", Class: mpi.ClassAborted, Msg: "world aborted"}
}

// join returns the session of the search that c's rank starts: its k-th
// search is the world's k-th, made by the first rank to join it.
func (pl *pool) join(c *mpi.Comm) *session {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	k := pl.joins[c.Rank()]
	pl.joins[c.Rank()] = k + 1
	s := pl.sessions[k]
	if s == nil {
		s = newSession(c.Size(), runtime.GOMAXPROCS(0), c.Aborted())
		pl.sessions[k] = s
	}
	if s.joined++; s.joined == c.Size() {
		delete(pl.sessions, k)
	}
	return s
}

// errPoolAborted ends the ranks of a session that another rank's error
// ended; runPooled then waits for the world's abort.
var errPoolAborted = errors.New("lb: the search was ended by another rank")

// The states of a slot.
const (
	absent  = iota // the rank has not joined: its messages wait
	queued         // in the run queue
	running        // on a worker
	waiting        // idle, for a message or its wake-up time
	over           // done, or the session failed
)

// slot is one rank in a session.
type slot struct {
	// What deliveries and the run queue touch, in the first cache line.
	state   uint8
	started bool
	inbox   []lb.Msg      // guarded by the session's lock
	wakeAt  time.Duration // its wake-up time since the session's start, in the heap; -1 for none
	// pushedAt is the time of the rank's latest entry in the heap that has
	// not come due, -1 for none (schedule).
	pushedAt time.Duration
	// The turn's.
	pace
	spare  []lb.Msg      // the inbox taken last turn, emptied
	idleAt time.Duration // when the rank went idle (its clock), -1 while it works
	share  [][]byte
	p      *pace      // the rank's goroutine's, set back at the end
	done   chan error // the end of the rank's search, to its goroutine
}

// session is one search on the pool.
type session struct {
	mu       sync.Mutex
	slots    []slot
	queue    []int32 // ring buffer of queued ranks, head at qh
	qh, qn   int
	wakes    wakeHeap
	joined   int // ranks that joined (pool's lock)
	live     int // ranks not done
	failed   bool
	sleeping int
	kick     chan struct{}
	t0       time.Time
	aborted  <-chan struct{}
}

func newSession(size, workers int, aborted <-chan struct{}) *session {
	s := &session{slots: make([]slot, size), queue: make([]int32, size), live: size,
		kick: make(chan struct{}, workers), t0: time.Now(), aborted: aborted}
	for range workers {
		go s.work()
	}
	return s
}

// add joins rank i with its clock and share of a resumed search; the
// returned channel says the end of its search, when p has the rank's
// times.
func (s *session) add(i int, p *pace, share [][]byte) <-chan error {
	done := make(chan error, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed {
		done <- errPoolAborted
		return done
	}
	sl := &s.slots[i]
	sl.pace, sl.p, sl.share, sl.done, sl.wakeAt, sl.idleAt, sl.pushedAt = *p, p, share, done, -1, -1, -1
	s.enqueue(i)
	return done
}

// enqueue puts rank i at the back of the run queue and wakes a worker;
// called with the lock held.
func (s *session) enqueue(i int) {
	s.slots[i].state = queued
	s.queue[(s.qh+s.qn)%len(s.queue)] = int32(i)
	s.qn++
	if s.sleeping > 0 {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// What a turn left the rank doing.
const (
	turnBusy = iota // it worked a slice: queue it again
	turnIdle        // wait for a message or its wake-up
	turnDone        // its search is over
)

// work is a worker: it runs the turns of queued ranks, and the wake-ups
// that fall due, until every rank is done or the session failed. It takes
// the session's lock once a turn: to settle the last turn (deliver its
// messages, queue or park its rank) and take the next rank with its inbox.
func (s *session) work() {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var out []lb.Msg
	s.mu.Lock()
	for !s.failed && s.live > 0 {
		now := time.Since(s.t0)
		s.due(now)
		if s.qn > 0 {
			i := int(s.queue[s.qh])
			s.qh, s.qn = (s.qh+1)%len(s.queue), s.qn-1
			sl := &s.slots[i]
			sl.state = running
			in := sl.inbox
			sl.inbox, sl.spare = sl.spare, nil
			s.mu.Unlock()
			what, err := s.turn(i, in, &out)
			s.mu.Lock()
			s.settle(i, what, out, err)
			clear(out)
			out = out[:0]
			continue
		}
		if len(s.wakes) > 0 {
			timer.Reset(s.wakes[0].at - now)
		}
		s.sleeping++
		s.mu.Unlock()
		select {
		case <-s.kick:
		case <-timer.C:
		case <-s.aborted:
			s.fail(-1, errPoolAborted)
		}
		timer.Stop()
		s.mu.Lock()
		s.sleeping--
	}
	s.mu.Unlock()
}

// turn runs one turn of rank i on the calling worker: it starts the rank
// or tells it the ticks that passed, hands it the messages in (its inbox
// when the turn began) and works one slice. The messages the rank sends
// are appended to out; replies go out before the slice, when it has one.
// It reports what the rank does next, or the error that ends the session.
func (s *session) turn(i int, in []lb.Msg, out *[]lb.Msg) (what int, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &mpi.PanicError{Rank: i, Value: p, Stack: debug.Stack()}
		}
	}()
	select {
	case <-s.aborted:
		return turnDone, errPoolAborted
	default:
	}
	sl := &s.slots[i]
	r := sl.r
	// The rank's clock is the session's: its wake-up times are on it.
	var now time.Duration
	stale := len(in) > 0 // the slice does not start at now: set when the turn does more before it
	if !sl.started {
		stale = true
		now = time.Since(s.t0)
		sl.started = true
		sl.begin(s.t0, now)
		if err := r.Start(sl.share); err != nil {
			return turnDone, err
		}
		sl.share = nil
	} else {
		now = sl.now()
		if sl.idleAt >= 0 {
			sl.idle += now - sl.idleAt
			sl.idleAt = -1
		}
		sl.advance(now)
	}
	if err := outbox(r, out); err != nil {
		return turnDone, err
	}
	for k, m := range in {
		if r.Done() {
			return turnDone, fmt.Errorf("%v from %d reached rank %d after it was done", m.Kind, m.From, i)
		}
		sl.hear(m.Kind, now)
		if err := r.Step(m); err != nil {
			return turnDone, err
		}
		if err := outbox(r, out); err != nil {
			return turnDone, err
		}
		in[k] = lb.Msg{}
	}
	sl.spare = in[:0]
	if r.Done() {
		return turnDone, nil
	}
	if len(*out) > 0 && r.Balancer().Task() != nil {
		// The replies leave before the slice, as the goroutine loop's do.
		s.mu.Lock()
		err := s.deliver(i, *out)
		s.mu.Unlock()
		if err != nil {
			return turnDone, err
		}
		clear(*out)
		*out = (*out)[:0]
		stale = true
	}
	sl.progress(now)
	t0 := now
	if stale && r.Balancer().Task() != nil { // a rank without a task works no slice
		t0 = sl.now()
	}
	_, worked := r.Work()
	if worked {
		sl.worked(t0, sl.now())
	} else {
		sl.split.Idle(float64(sl.idle))
	}
	if err := outbox(r, out); err != nil { // the slice's messages, or the poll of the checkpoint's
		return turnDone, err
	}
	switch {
	case r.Done():
		return turnDone, nil
	case worked:
		return turnBusy, nil
	}
	if err := sl.stalled(); err != nil {
		return turnDone, err
	}
	sl.idleAt = now
	sl.wakeAt = -1
	if until, ok := sl.until(); ok {
		sl.wakeAt = until
	}
	return turnIdle, nil
}

// outbox appends the messages in r's outbox to out.
func outbox(r *lb.Rank, out *[]lb.Msg) error {
	m, err := r.Outbox()
	*out = append(*out, m...)
	return err
}

// settle ends rank i's turn, with the lock held: it delivers out and
// queues the rank again, parks it, or ends its search.
func (s *session) settle(i int, what int, out []lb.Msg, err error) {
	if err == nil {
		err = s.deliver(i, out)
	}
	if err != nil && !s.failed {
		s.failLocked(i, err)
		return
	}
	sl := &s.slots[i]
	if s.failed {
		if sl.state == running { // failLocked left it to its turn's end
			sl.done <- errPoolAborted
			sl.state = over
		}
		return
	}
	switch {
	case what == turnDone:
		sl.state = over
		*sl.p = sl.pace
		sl.done <- nil
		if s.live--; s.live == 0 {
			s.wakeAll()
		}
	case what == turnBusy || len(sl.inbox) > 0:
		s.enqueue(i)
	default:
		sl.state = waiting
		s.schedule(i)
	}
}

// schedule puts waiting rank i's wake-up time in the heap, with the lock
// held. An entry a message made stale stays in the heap until its time
// (due skips it), so a rank whose turns keep the same wake-up time (the
// stall watchdog's deadline, while only requests arrive) pushes it once,
// and the heap is compacted to its live entries when it holds twice as
// many as there are ranks: with --stall-timeout 10m it grew without bound,
// an entry for every idle turn of the last ten minutes.
func (s *session) schedule(i int) {
	sl := &s.slots[i]
	if sl.wakeAt < 0 || sl.wakeAt == sl.pushedAt {
		return
	}
	s.wakes.push(wake{at: sl.wakeAt, rank: int32(i)})
	sl.pushedAt = sl.wakeAt
	if s.sleeping > 0 && s.wakes[0].at == sl.wakeAt {
		// The earliest now: a sleeping worker's timer is set for a later
		// one, and this worker may be in a slice when the time comes.
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	if len(s.wakes) > 2*len(s.slots)+64 {
		live := s.wakes[:0]
		for _, w := range s.wakes {
			if s.slots[w.rank].pushedAt == w.at {
				live = append(live, w)
			}
		}
		clear(s.wakes[len(live):])
		s.wakes = live
		s.wakes.init()
	}
}

// due queues the waiting ranks whose wake-up time has come by now, with
// the lock held.
func (s *session) due(now time.Duration) {
	for len(s.wakes) > 0 && s.wakes[0].at <= now {
		w := s.wakes.pop()
		sl := &s.slots[w.rank]
		if sl.pushedAt == w.at {
			sl.pushedAt = -1
		}
		if sl.state == waiting && sl.wakeAt == w.at {
			s.enqueue(int(w.rank))
		}
	}
}

// deliver puts rank i's messages out into their ranks' inboxes and queues
// the waiting ones; called with the lock held.
func (s *session) deliver(i int, out []lb.Msg) error {
	for _, m := range out {
		to := &s.slots[m.To]
		if to.state == over {
			if s.failed {
				return nil
			}
			return fmt.Errorf("rank %d sent %v to rank %d after that rank was done", i, m.Kind, m.To)
		}
		to.inbox = append(to.inbox, m)
		if to.state == waiting {
			s.enqueue(m.To)
		}
	}
	return nil
}

// fail ends the session with rank i's error (i < 0: the world's abort):
// rank i's goroutine gets err, every other joined rank errPoolAborted,
// those on a worker when their turn ends (settle).
func (s *session) fail(i int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failLocked(i, err)
}

func (s *session) failLocked(i int, err error) {
	if s.failed {
		return
	}
	s.failed = true
	for k := range s.slots {
		sl := &s.slots[k]
		if sl.done == nil || sl.state == over || sl.state == running && k != i {
			continue
		}
		if k == i {
			sl.done <- err
		} else {
			sl.done <- errPoolAborted
		}
		sl.state = over
	}
	s.wakeAll()
}

// wakeAll wakes every sleeping worker, to see the session over.
func (s *session) wakeAll() {
	for range cap(s.kick) {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// wake is a rank's wake-up time in the session's heap; an entry is stale
// when the rank was woken by a message since (slot.wakeAt differs).
type wake struct {
	at   time.Duration
	rank int32
}

// wakeHeap is a min-heap of wake-ups by time. It is typed rather than a
// container/heap.Interface, whose Push and Pop box every wake-up in an
// interface: an allocation each, 48 MB a run of golomb 10 on 16384 ranks
// (issue 23).
type wakeHeap []wake

// push adds w.
func (h *wakeHeap) push(w wake) {
	*h = append(*h, w)
	a := *h
	for i := len(a) - 1; i > 0; {
		up := (i - 1) / 2
		if a[up].at <= a[i].at {
			break
		}
		a[up], a[i] = a[i], a[up]
		i = up
	}
}

// init orders h as a heap.
func (h wakeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// pop removes and returns the earliest wake-up; h must not be empty.
func (h *wakeHeap) pop() wake {
	a := *h
	w, n := a[0], len(a)-1
	a[0] = a[n]
	a = a[:n]
	a.down(0)
	*h = a
	return w
}

// down moves the entry at i down to its place.
func (h wakeHeap) down(i int) {
	n := len(h)
	for {
		least, l, r := i, 2*i+1, 2*i+2
		if l < n && h[l].at < h[least].at {
			least = l
		}
		if r < n && h[r].at < h[least].at {
			least = r
		}
		if least == i {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}
