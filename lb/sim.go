package lb

import (
	"container/heap"
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// SimConfig configures the simulated world (NewSim). Times are virtual
// nanoseconds; the zero value gets defaults.
type SimConfig struct {
	Seed     uint64 // seeds the network's delays
	NodeCost int64  // virtual ns per node; 0 means 10
	Latency  int64  // one-way latency in ns; 0 means 2000
	Jitter   int64  // up to this much extra random delay per message, which reorders messages between different pairs; negative means none, 0 means 5·Latency
	// MaxEvents bounds each run; 0 means 1e9.
	MaxEvents int64
}

// simWorld is the discrete-event simulator as a World: one program drives
// all ranks in virtual time.
type simWorld struct {
	p   int
	cfg SimConfig
}

// NewSim returns a simulated world of p ranks, run by one goroutine with a
// seeded discrete-event network: every message gets a random delay, so
// messages between different pairs are reordered, while each pair stays
// FIFO as MPI guarantees. A busy rank handles the messages that arrived
// during a work slice after the slice, as the real driver does. Its Run
// does the real work of every rank (answers and node counts are real) and
// reports virtual time: Outcome.Seconds is the virtual time until the last
// rank was done, plus the reduction of the results.
//
// Run checks the protocol as it goes and fails when a rank sends or
// receives a message after it was done, when Done goes back to false, or
// when the simulation runs dry with ranks not done (lost work or a
// deadlock). It is deterministic for a given configuration and job.
func NewSim(p int, cfg SimConfig) (World, error) {
	if p < 1 {
		return nil, fmt.Errorf("lb: a simulated world of %d ranks", p)
	}
	if cfg.NodeCost < 0 || cfg.Latency < 0 || cfg.MaxEvents < 0 {
		return nil, fmt.Errorf("lb: negative simulation costs (node %d ns, latency %d ns)", cfg.NodeCost, cfg.Latency)
	}
	if cfg.NodeCost == 0 {
		cfg.NodeCost = 10
	}
	if cfg.Latency == 0 {
		cfg.Latency = 2000
	}
	if cfg.Jitter == 0 {
		cfg.Jitter = 5 * cfg.Latency
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = 1e9
	}
	return &simWorld{p: p, cfg: cfg}, nil
}

func (w *simWorld) Name() string { return "sim" }
func (w *simWorld) Rank() int    { return 0 }
func (w *simWorld) Size() int    { return w.p }

// Run simulates job on every rank; see NewSim.
func (w *simWorld) Run(job Job) (*Outcome, error) {
	p, cfg := w.p, w.cfg
	s := &sim{cfg: cfg, budget: job.Config.budget(), p: p, net: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)),
		bs: make([]Balancer, p), ranks: make([]simRank, p), last: make([]int64, p*p)}
	apps := make([]App, p)
	for r := range p {
		apps[r] = job.NewApp()
		b, err := NewBalancer(job.Config.Balancer, Env{Rank: r, Size: p, App: apps[r], Rand: NewRand(job.Config.Seed, r),
			Seed: job.Config.Seed, Options: job.Config.Options})
		if err != nil {
			return nil, err
		}
		s.bs[r] = b
	}
	for r := range p {
		s.bs[r].Start(apps[r].Root())
		if err := s.flush(r); err != nil {
			return nil, err
		}
		s.kick(r)
	}
	for s.q.Len() > 0 {
		if s.events++; s.events > cfg.MaxEvents {
			return nil, fmt.Errorf("lb: simulation exceeded %d events", cfg.MaxEvents)
		}
		e := heap.Pop(&s.q).(event)
		s.now = e.at
		var err error
		if e.slice {
			err = s.sliceEnd(e.rank)
		} else {
			err = s.arrive(e.msg)
		}
		if err != nil {
			return nil, err
		}
	}
	var ranks []Stats
	if job.Config.RankStats {
		ranks = make([]Stats, p)
	}
	var fin Finish
	for r := range p {
		if !s.bs[r].Done() {
			return nil, fmt.Errorf("lb: simulation ran dry at %d ns with rank %d not done (lost work or deadlock)", s.now, r)
		}
		sr := &s.ranks[r]
		st := *s.bs[r].Stats()
		st.WorkSeconds = float64(sr.work) / 1e9
		st.IdleSeconds = float64(sr.doneAt-sr.work) / 1e9
		res, err := job.Result(apps[r])
		if err != nil {
			return nil, err
		}
		f := Finish{Result: res, Stats: st, Seconds: float64(sr.doneAt) / 1e9}
		if r == 0 {
			fin = f
		} else if err := fin.Merge(job, apps[0], &f); err != nil {
			return nil, err
		}
		if ranks != nil {
			ranks[r] = st
		}
	}
	// The results' reduction and broadcast: two passes over a binary tree.
	fin.Seconds += float64(2*int64(bits.Len(uint(p-1)))*cfg.Latency) / 1e9
	return fin.Outcome(ranks), nil
}

type simRank struct {
	busy      bool
	inbox     []Msg
	doneFlush bool // Done was seen and its last messages sent
	doneAt    int64
	lastSlice int64 // nodes of the slice in progress
	work      int64
}

type sim struct {
	cfg       SimConfig
	budget    int64
	p         int
	net       *rand.Rand
	bs        []Balancer
	ranks     []simRank
	last      []int64 // last arrival time per (from, to), for FIFO order
	q         eventQueue
	seq       int64
	now       int64
	events    int64
	delivered int64
}

func (s *sim) push(e event) {
	s.seq++
	e.seq = s.seq
	heap.Push(&s.q, e)
}

func (s *sim) flush(r int) error {
	sr := &s.ranks[r]
	out := s.bs[r].Outbox()
	if sr.doneFlush && len(out) > 0 {
		return fmt.Errorf("lb: rank %d sent %v to %d after it was done", r, out[0].Kind, out[0].To)
	}
	for _, m := range out {
		if m.To < 0 || m.To >= s.p || m.From != r {
			return fmt.Errorf("lb: rank %d sent a message from %d to %d", r, m.From, m.To)
		}
		at := s.now + s.cfg.Latency
		if s.cfg.Jitter > 0 {
			at += s.net.Int64N(s.cfg.Jitter + 1)
		}
		k := m.From*s.p + m.To
		at = max(at, s.last[k]+1)
		s.last[k] = at
		s.push(event{at: at, rank: m.To, msg: m})
	}
	if s.bs[r].Done() && !sr.doneFlush {
		sr.doneFlush, sr.doneAt = true, s.now
	} else if sr.doneFlush && !s.bs[r].Done() {
		return fmt.Errorf("lb: rank %d was done and is not any more", r)
	}
	return nil
}

func (s *sim) arrive(m Msg) error {
	r := m.To
	sr := &s.ranks[r]
	if sr.doneFlush {
		return fmt.Errorf("lb: %v from %d reached rank %d after it was done", m.Kind, m.From, r)
	}
	s.delivered++
	if sr.busy {
		sr.inbox = append(sr.inbox, m)
		return nil
	}
	s.bs[r].Deliver(m)
	if err := s.flush(r); err != nil {
		return err
	}
	s.kick(r)
	return nil
}

func (s *sim) sliceEnd(r int) error {
	sr := &s.ranks[r]
	sr.busy = false
	s.bs[r].Tick(sr.lastSlice)
	if err := s.flush(r); err != nil {
		return err
	}
	for len(sr.inbox) > 0 {
		m := sr.inbox[0]
		sr.inbox = sr.inbox[1:]
		if sr.doneFlush {
			return fmt.Errorf("lb: %v from %d reached rank %d after it was done", m.Kind, m.From, r)
		}
		s.bs[r].Deliver(m)
		if err := s.flush(r); err != nil {
			return err
		}
	}
	s.kick(r)
	return nil
}

// kick starts a work slice on an idle rank that has a task.
func (s *sim) kick(r int) {
	sr := &s.ranks[r]
	if sr.busy || s.bs[r].Done() {
		return
	}
	t := s.bs[r].Task()
	if t == nil {
		return
	}
	n := t.Work(s.budget)
	sr.lastSlice = n
	d := max(1, n*s.cfg.NodeCost)
	sr.work += d
	sr.busy = true
	s.push(event{at: s.now + d, rank: r, slice: true})
}

type event struct {
	at    int64
	seq   int64
	rank  int
	slice bool
	msg   Msg
}

type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].seq < q[j].seq)
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}
