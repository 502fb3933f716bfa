package lb

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
)

// SimConfig configures Simulate. Times are virtual nanoseconds; the zero
// value gets defaults.
type SimConfig struct {
	Budget   int64  // nodes per work slice; 0 means DefaultBudget
	Seed     uint64 // seeds the ranks' random sources and the network
	NodeCost int64  // virtual ns per node; 0 means 10
	Latency  int64  // one-way latency in ns; 0 means 2000
	Jitter   int64  // up to this much extra random delay per message, which reorders messages between different pairs; negative means none, 0 means 5·Latency
	// MaxEvents bounds the simulation; 0 means 1e9.
	MaxEvents int64
}

// SimOutcome is what a simulated run produced.
type SimOutcome struct {
	Result   []byte
	Time     int64   // virtual ns until the last rank was done
	Ranks    []Stats // per rank; WorkSeconds and IdleSeconds are virtual
	Total    Stats
	Messages int64 // messages delivered
}

// Simulate runs the balancer called name on len(apps) simulated ranks in one
// goroutine, with a seeded discrete-event network: every message gets a
// random delay, so messages between different pairs are reordered, while
// each pair stays FIFO as MPI guarantees. A busy rank handles the messages
// that arrived during a work slice after the slice, as the real driver does.
//
// It checks the protocol as it goes and returns an error when a rank sends or
// receives a message after it was done, when Done goes back to false, or when
// the simulation runs dry with ranks not done (lost work or a deadlock).
// Deterministic for a given seed.
func Simulate(apps []App, name string, opt Options, cfg SimConfig) (*SimOutcome, error) {
	p := len(apps)
	if cfg.Budget <= 0 {
		cfg.Budget = DefaultBudget
	}
	if cfg.NodeCost <= 0 {
		cfg.NodeCost = 10
	}
	if cfg.Latency <= 0 {
		cfg.Latency = 2000
	}
	if cfg.Jitter == 0 {
		cfg.Jitter = 5 * cfg.Latency
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = 1e9
	}
	s := &sim{cfg: cfg, p: p, net: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)),
		bs: make([]Balancer, p), ranks: make([]simRank, p), last: make([]int64, p*p)}
	for r := range p {
		b, err := New(name, Env{Rank: r, Size: p, App: apps[r], Rand: NewRand(cfg.Seed, r), Seed: cfg.Seed, Options: opt})
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
	out := &SimOutcome{Ranks: make([]Stats, p), Messages: s.delivered}
	for r := range p {
		if !s.bs[r].Done() {
			return nil, fmt.Errorf("lb: simulation ran dry at %d ns with rank %d not done (lost work or deadlock)", s.now, r)
		}
		st := *s.bs[r].Stats()
		sr := &s.ranks[r]
		st.Nodes, st.Slices = sr.nodes, sr.slices
		st.WorkSeconds = float64(sr.work) / 1e9
		st.IdleSeconds = float64(sr.doneAt-sr.work) / 1e9
		out.Ranks[r] = st
		out.Total.Add(&st)
		out.Time = max(out.Time, sr.doneAt)
	}
	out.Result = append([]byte(nil), apps[0].Result()...)
	for r := 1; r < p; r++ {
		apps[0].Combine(out.Result, apps[r].Result())
	}
	return out, nil
}

type simRank struct {
	busy      bool
	inbox     []Msg
	doneFlush bool // Done was seen and its last messages sent
	doneAt    int64
	nodes     int64
	slices    int64
	work      int64
}

type sim struct {
	cfg       SimConfig
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
	s.bs[r].Tick()
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
	n := t.Work(s.cfg.Budget)
	sr.nodes += n
	sr.slices++
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
