package lb

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// SimConfig configures the simulated world (NewSim). The zero value is the
// seeded fake network of the tests.
type SimConfig struct {
	// Seed seeds the network's jitter.
	Seed uint64
	// Machine is the cost model; the zero value is TestNetwork.
	Machine Machine
	// MaxEvents bounds each run; 0 means 10⁹.
	MaxEvents int64
	// Trace records the busy ranks over virtual time (SimReport.Trace).
	Trace bool
}

// MaxSimRanks is the most ranks NewSim accepts. Memory grows by a few KiB
// per rank for the simulator, its balancer and the app (golomb's 13-mark
// count needs about 1 GiB at 16384 ranks and 4 GiB at 65536).
const MaxSimRanks = 1 << 16

// simWorld is the discrete-event simulator as a World: one program drives
// all ranks in virtual time.
type simWorld struct {
	p     int
	cfg   SimConfig
	m     simMachine
	nodes int64 // nodes of the runs so far, for progress reports
}

// simMachine is a Machine in picoseconds.
type simMachine struct {
	Machine
	node, overhead, latency, gap, byteT, hop, jitter, split int64
	width, height                                           int // mesh, 0 without
}

func ps(ns float64) int64 { return int64(math.Round(ns * 1000)) }

// NewSim returns a simulated world of p ranks, run by one goroutine: a
// discrete-event simulator that charges virtual time as cfg.Machine says
// (Machine describes the model). Its Run does the real work of every rank,
// so answers and node counts are real, with the same App values and
// balancers as the other worlds, and reports virtual time: Outcome.Seconds
// is the virtual time until the results are combined on rank 0 and
// broadcast (a reduction and a broadcast over the heap-ordered tree, timed
// by the machine), and Outcome.Sim the simulator's report.
//
// Run checks the protocol as it goes and fails when a rank sends or
// receives a message after it was done, when Done goes back to false, or
// when the simulation runs dry with ranks not done (lost work or a
// deadlock). It is deterministic for a given configuration and job. Time
// and memory are O(P) per run plus O(log n) per event; no structure is
// O(P²).
func NewSim(p int, cfg SimConfig) (World, error) {
	if p < 1 || p > MaxSimRanks {
		return nil, fmt.Errorf("lb: a simulated world of %d ranks: need 1 to %d", p, MaxSimRanks)
	}
	if cfg.MaxEvents < 0 {
		return nil, fmt.Errorf("lb: simulation bounded by %d events", cfg.MaxEvents)
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = 1e9
	}
	if cfg.Machine == (Machine{}) {
		cfg.Machine = TestNetwork()
	}
	mc := cfg.Machine
	if err := mc.Validate(); err != nil {
		return nil, err
	}
	m := simMachine{Machine: mc, node: ps(mc.NodeNS), overhead: ps(mc.OverheadNS), latency: ps(mc.LatencyNS),
		gap: ps(mc.GapNS), byteT: ps(mc.ByteNS), hop: ps(mc.HopNS), jitter: ps(mc.JitterNS), split: ps(mc.SplitNS)}
	if mc.MeshWidth > 0 {
		m.width = min(mc.MeshWidth, p)
		m.height = (p + m.width - 1) / m.width
	}
	return &simWorld{p: p, cfg: cfg, m: m}, nil
}

func (w *simWorld) Name() string { return "sim" }
func (w *simWorld) Rank() int    { return 0 }
func (w *simWorld) Size() int    { return w.p }

// simRank is the simulator's state of one rank.
type simRank struct {
	cpu         bool  // the CPU runs a slice or handles messages until an event of classCPU
	slice       int64 // nodes of the slice in progress, -1 while handling messages
	head, tail  int32 // the inbox: messages that arrived while the CPU was busy
	startQueued bool  // an event of classStart is pending
	done        bool  // Done was seen and its last messages sent
	doneAt      int64
	work        int64    // time spent on slices
	cuts        int64    // in-place splits (Env.cuts)
	charged     int64    // splits charged so far (Stats.Splits + cuts)
	nic         int64    // when the next message may leave (the gap)
	flights     []flight // messages on their way to others, for FIFO order per pair
}

// flight is the arrival time of the last message on its way to a rank.
type flight struct {
	to int32
	at int64
}

// simMsg is a message in the simulator's slab, linked into an inbox.
type simMsg struct {
	m    Msg
	next int32
}

type sim struct {
	m        *simMachine
	budget   int64
	p        int
	jitter   *rand.Rand
	bs       []Balancer
	ranks    []simRank
	q        eventHeap
	msgs     []simMsg
	free     []int32
	links    []int64 // a mesh's directed links (4 per rank): free from this time
	trace    *busyTrace
	seq      uint64
	now      int64
	lastWork int64 // when the last work slice ended
	events   int64
	limit    int64
	instant  bool // a message can arrive when it is sent: starts wait for arrivals

	// Progress reports (Config.Progress): every so often of wall time, a
	// snapshot summed over all ranks at once.
	progress func(Progress)
	every    time.Duration
	next     time.Time
	base     int64 // nodes of the world's earlier runs
	apps     []App

	due func() bool // Config.CheckpointDue until it fired
}

// Run simulates job on every rank; see NewSim.
func (w *simWorld) Run(job Job) (*Outcome, error) {
	t0 := time.Now()
	p := w.p
	s := &sim{m: &w.m, budget: job.Config.budget(), p: p, jitter: rand.New(rand.NewPCG(w.cfg.Seed, 0x5eed)),
		bs: make([]Balancer, p), ranks: make([]simRank, p), limit: w.cfg.MaxEvents,
		instant: w.m.overhead == 0 && w.m.latency == 0}
	if w.m.width > 0 && w.m.Contention {
		s.links = make([]int64, 4*w.m.width*w.m.height)
	}
	if w.cfg.Trace {
		s.trace = newBusyTrace()
	}
	apps := make([]App, p)
	s.apps = apps
	if job.Config.Progress != nil {
		s.progress, s.every, s.base = job.Config.Progress, ProgressEvery(job.Config), w.nodes
		s.next = time.Now().Add(s.every)
	}
	resume := job.Config.Resume
	s.due = job.Config.CheckpointDue
	for r := range p {
		apps[r] = job.NewApp()
		if resume != nil {
			if r == 0 {
				if err := CheckTasks(apps[0], resume); err != nil {
					return nil, err
				}
			}
			resume.Prime(apps[r])
		}
		s.ranks[r] = simRank{slice: -1, head: -1, tail: -1}
		b, err := NewBalancer(job.Config.Balancer, Env{Rank: r, Size: p, App: apps[r], Rand: NewRand(job.Config.Seed, r),
			Seed: job.Config.Seed, Options: job.Config.Options, cuts: &s.ranks[r].cuts})
		if err != nil {
			return nil, err
		}
		s.bs[r] = b
	}
	for r := range p {
		if resume != nil {
			if err := StartShare(s.bs[r], apps[r], resume.Share(r, p)); err != nil {
				return nil, err
			}
		} else {
			s.bs[r].Start(apps[r].Root())
		}
		c := int64(0)
		if err := s.flush(r, &c, true); err != nil {
			return nil, err
		}
		if err := s.drain(r, c); err != nil {
			return nil, err
		}
	}
	if err := s.loop(); err != nil {
		return nil, err
	}
	out, err := s.finish(job, apps, t0)
	if err != nil {
		return nil, err
	}
	w.nodes += out.Total.Nodes
	if s.progress != nil {
		last := s.snapshot()
		last.Nodes, last.Busy = w.nodes, 0
		s.progress(last)
	}
	return out, nil
}

// snapshot returns the progress of the run: the nodes of every rank (and
// of the earlier runs), the ranks working on a slice, and the best
// incumbent of the ranks' apps.
func (s *sim) snapshot() Progress {
	pr := Progress{Nodes: s.base, Ranks: s.p}
	for r, b := range s.bs {
		pr.Nodes += b.Stats().Nodes
		if sr := &s.ranks[r]; sr.cpu && sr.slice >= 0 {
			pr.Busy++
		}
		if a, ok := s.apps[r].(Bounded); ok {
			if v, ok := a.Incumbent(); ok && (!pr.HasBound || a.Sense().Better(v, pr.Incumbent)) {
				pr.Incumbent, pr.HasBound = v, true
			}
		}
	}
	return pr
}

// loop processes events in order until none is left.
func (s *sim) loop() error {
	for len(s.q) > 0 {
		if s.events++; s.events > s.limit {
			return fmt.Errorf("lb: simulation exceeded %d events", s.limit)
		}
		if s.progress != nil && s.events&4095 == 0 {
			if now := time.Now(); now.After(s.next) {
				s.next = now.Add(s.every)
				s.progress(s.snapshot())
			}
		}
		e := s.q.pop()
		s.now = e.at
		if s.due != nil && s.due() {
			if err := s.suspend(); err != nil {
				return err
			}
		}
		r := int(e.rank)
		var err error
		switch e.class() {
		case classCPU:
			err = s.cpuFree(r)
		case classArrive:
			err = s.arrive(r, e.msg)
		default:
			sr := &s.ranks[r]
			sr.startQueued = false
			if !sr.cpu {
				err = s.kick(r)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// suspend starts suspending the search on rank 0 at the current time, as
// a signal handler would between two of its events.
func (s *sim) suspend() error {
	s.due = nil
	b, ok := s.bs[0].(Suspender)
	if !ok || s.ranks[0].done {
		return nil
	}
	b.Suspend()
	c := s.now
	if err := s.flush(0, &c, true); err != nil {
		return err
	}
	if sr := &s.ranks[0]; !sr.cpu && c > s.now {
		sr.cpu, sr.slice = true, -1
		s.push(c, classCPU, 0, -1)
	}
	return nil
}

func (s *sim) push(at int64, class int, rank int, msg int32) {
	s.seq++
	s.q.push(simEvent{at: at, key: uint64(class)<<classShift | s.seq, rank: int32(rank), msg: msg})
}

// cpuFree ends a slice (Tick) or a stretch of message handling, then
// handles the messages that arrived meanwhile.
func (s *sim) cpuFree(r int) error {
	sr := &s.ranks[r]
	c := s.now
	if sr.slice >= 0 {
		n := sr.slice
		sr.slice = -1
		s.bs[r].Tick(n)
		s.lastWork = max(s.lastWork, c)
		if err := s.flush(r, &c, false); err != nil {
			return err
		}
	}
	return s.drain(r, c)
}

// drain delivers the inbox from local time c on; then the CPU stays busy
// until the handling is done, or the rank starts its next slice.
func (s *sim) drain(r int, c int64) error {
	sr := &s.ranks[r]
	for sr.head >= 0 {
		i := sr.head
		sr.head = s.msgs[i].next
		if sr.head < 0 {
			sr.tail = -1
		}
		m := s.msgs[i].m
		s.release(i)
		if err := s.deliver(r, m, &c); err != nil {
			return err
		}
	}
	if c > s.now {
		sr.cpu, sr.slice = true, -1
		s.push(c, classCPU, r, -1)
		return nil
	}
	sr.cpu = false
	if s.instant {
		if !sr.startQueued {
			sr.startQueued = true
			s.push(s.now, classStart, r, -1)
		}
		return nil
	}
	return s.kick(r)
}

// deliver hands m to rank r at local time *c, charging the overhead.
func (s *sim) deliver(r int, m Msg, c *int64) error {
	if s.ranks[r].done {
		return fmt.Errorf("lb: %v from %d reached rank %d after it was done", m.Kind, m.From, r)
	}
	*c += s.m.overhead
	s.bs[r].Deliver(m)
	return s.flush(r, c, true)
}

// arrive handles the arrival of message i at rank r.
func (s *sim) arrive(r int, i int32) error {
	sr := &s.ranks[r]
	if sr.done {
		m := s.msgs[i].m
		return fmt.Errorf("lb: %v from %d reached rank %d after it was done", m.Kind, m.From, r)
	}
	if sr.cpu {
		s.msgs[i].next = -1
		if sr.tail >= 0 {
			s.msgs[sr.tail].next = i
		} else {
			sr.head = i
		}
		sr.tail = i
		return nil
	}
	m := s.msgs[i].m
	s.release(i)
	c := s.now
	if err := s.deliver(r, m, &c); err != nil {
		return err
	}
	return s.drain(r, c)
}

// kick starts a work slice on an idle rank that has a task.
func (s *sim) kick(r int) error {
	sr := &s.ranks[r]
	if sr.done {
		return nil
	}
	t := s.bs[r].Task()
	if t == nil {
		return nil
	}
	n := t.Work(s.budget)
	if n < 0 || s.m.node > 0 && n > math.MaxInt64/2/s.m.node {
		return fmt.Errorf("lb: rank %d: a work slice of %d nodes", r, n)
	}
	d := n * s.m.node
	sr.work += d
	d += s.splitCost(r) // static placement halves in Task and Work
	if s.trace != nil {
		s.trace.add(s.now, s.now+d)
	}
	sr.cpu, sr.slice = true, n
	s.push(s.now+d, classCPU, r, -1)
	return nil
}

// splitCost returns the CPU time of the splits rank r made since the last
// call (SplitNS each): the pieces its balancer gave away and the in-place
// splits of static placement and fast initialisation.
func (s *sim) splitCost(r int) int64 {
	if s.m.split == 0 {
		return 0
	}
	sr := &s.ranks[r]
	n := s.bs[r].Stats().Splits + sr.cuts
	d := (n - sr.charged) * s.m.split
	sr.charged = n
	return d
}

// flush sends rank r's outbox from local time *c on, charging the overhead
// and the gap to the rank, and notes when the rank becomes done. reply says
// that the messages answer messages (or start the run) rather than end a
// work slice: the step model delays control messages in reply by a step.
func (s *sim) flush(r int, c *int64, reply bool) error {
	sr := &s.ranks[r]
	b := s.bs[r]
	*c += s.splitCost(r) // the splits of the handling or the slice just ended
	out := b.Outbox()
	if sr.done && len(out) > 0 {
		return fmt.Errorf("lb: rank %d sent %v to %d after it was done", r, out[0].Kind, out[0].To)
	}
	for _, m := range out {
		if m.To < 0 || m.To >= s.p || m.From != r {
			return fmt.Errorf("lb: rank %d sent a message from %d to %d", r, m.From, m.To)
		}
		*c = max(*c+s.m.overhead, sr.nic)
		sr.nic = *c + s.m.gap
		d := s.delay(r, m.To, len(m.Data), *c)
		if reply && s.m.Steps && !counted(m.Kind) {
			d += s.m.node // a control message in reply: one step
		}
		at := s.fifo(sr, m.To, *c+d)
		s.push(at, classArrive, m.To, s.alloc(m))
	}
	if b.Done() && !sr.done {
		sr.done, sr.doneAt = true, *c
	} else if sr.done && !b.Done() {
		return fmt.Errorf("lb: rank %d was done and is not any more", r)
	}
	return nil
}

// fifo returns the arrival time of a message from sr to rank to that would
// arrive at `at`, delayed so that it does not overtake an earlier message
// of the same pair (MPI's order); equal times keep the order of sending.
// Messages that arrived by now are forgotten, so the list holds only the
// pair's messages in flight.
func (s *sim) fifo(sr *simRank, to int, at int64) int64 {
	k := 0
	found := -1
	for _, f := range sr.flights {
		if f.at <= s.now {
			continue
		}
		if int(f.to) == to {
			found = k
		}
		sr.flights[k] = f
		k++
	}
	sr.flights = sr.flights[:k]
	if found >= 0 {
		at = max(at, sr.flights[found].at)
		sr.flights[found].at = at
		return at
	}
	sr.flights = append(sr.flights, flight{to: int32(to), at: at})
	return at
}

// delay returns the time a message of n data bytes from rank `from` to rank
// to, leaving at dep, takes to arrive; with contention it reserves the
// links of its path.
func (s *sim) delay(from, to, n int, dep int64) int64 {
	m := s.m
	xfer := int64(n+MessageEnvelope) * m.byteT
	d := m.latency + xfer
	if m.width > 0 {
		hops := s.hops(from, to)
		if s.links != nil && hops > 0 {
			d = s.route(from, to, dep+m.latency, xfer) - dep
		} else {
			d += int64(hops) * m.hop
			if m.StoreForward && hops > 1 {
				d += int64(hops-1) * xfer
			}
		}
	}
	if m.jitter > 0 {
		d += s.jitter.Int64N(m.jitter + 1)
	}
	return d
}

// hops returns the length of the dimension-order path between two ranks on
// the mesh.
func (s *sim) hops(a, b int) int {
	w := s.m.width
	dx, dy := a%w-b%w, a/w-b/w
	return abs(dx) + abs(dy)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Directions of a mesh link leaving a node.
const (
	dirEast = iota
	dirWest
	dirSouth
	dirNorth
)

// route sends a message whose head enters the mesh at t along the
// dimension-order path from `from` to to, each link busy for xfer and each
// hop costing HopNS (plus xfer when storing and forwarding), and returns
// its arrival time. A link already reserved delays the message until it is
// free.
func (s *sim) route(from, to int, t, xfer int64) int64 {
	m := s.m
	w := m.width
	x, y := from%w, from/w
	tx, ty := to%w, to/w
	step := func(dir int) {
		l := 4*(y*w+x) + dir
		start := max(t, s.links[l])
		s.links[l] = start + xfer
		t = start + m.hop
		if m.StoreForward {
			t += xfer
		}
	}
	for x != tx {
		if x < tx {
			step(dirEast)
			x++
		} else {
			step(dirWest)
			x--
		}
	}
	for y != ty {
		if y < ty {
			step(dirSouth)
			y++
		} else {
			step(dirNorth)
			y--
		}
	}
	if !m.StoreForward {
		t += xfer // the tail follows the head
	}
	return t
}

// pathDelay is the delay of a message of n bytes between two ranks with no
// jitter and no contention, overheads of both ends included: the cost of
// one step of the final reduction and broadcast.
func (s *sim) pathDelay(from, to, n int) int64 {
	m := s.m
	xfer := int64(n+MessageEnvelope) * m.byteT
	d := 2*m.overhead + m.latency + xfer
	if m.width > 0 {
		hops := s.hops(from, to)
		d += int64(hops) * m.hop
		if m.StoreForward && hops > 1 {
			d += int64(hops-1) * xfer
		}
	}
	return d
}

func (s *sim) alloc(m Msg) int32 {
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		s.msgs[i] = simMsg{m: m, next: -1}
		return i
	}
	s.msgs = append(s.msgs, simMsg{m: m, next: -1})
	return int32(len(s.msgs) - 1)
}

func (s *sim) release(i int32) {
	s.msgs[i] = simMsg{}
	s.free = append(s.free, i)
}

// finish checks that every rank is done, combines the results and the
// statistics, and times the reduction to rank 0 and the broadcast back over
// the heap-ordered tree (children 2r+1, 2r+2), as the driver does.
func (s *sim) finish(job Job, apps []App, t0 time.Time) (*Outcome, error) {
	p := s.p
	var ranks []Stats
	if job.Config.RankStats {
		ranks = make([]Stats, p)
	}
	var total Stats
	var busy int64
	var end Finish // the suspension, open tasks and incumbent of all ranks
	for r := range p {
		sr := &s.ranks[r]
		if !sr.done {
			return nil, fmt.Errorf("lb: simulation ran dry at %.9f s with rank %d not done (lost work or deadlock)", float64(s.now)/1e12, r)
		}
		var f Finish
		if err := f.SetEnd(apps[r], s.bs[r]); err != nil {
			return nil, err
		}
		end.Suspended = end.Suspended || f.Suspended
		end.Tasks = append(end.Tasks, f.Tasks...)
		if r == 0 {
			end.Incumbent, end.HasIncumbent = f.Incumbent, f.HasIncumbent
		}
		st := *s.bs[r].Stats()
		st.WorkSeconds = float64(sr.work) / 1e12
		st.IdleSeconds = float64(sr.doneAt-sr.work) / 1e12
		total.Add(&st)
		busy += sr.work
		if ranks != nil {
			ranks[r] = st
		}
	}
	var res []byte
	var err error
	if job.CombineAll != nil {
		res, err = job.CombineAll(apps)
	} else {
		res, err = s.combinePairwise(job, apps)
	}
	if err != nil {
		return nil, err
	}
	// f[r]: when rank r's subtree has combined its results and r sends
	// them up; then the broadcast down to the deepest rank.
	bytes := StatsSize + len(res)
	f := make([]int64, p)
	for r := p - 1; r >= 0; r-- {
		t := s.ranks[r].doneAt
		for c := 2*r + 1; c <= 2*r+2 && c < p; c++ {
			t = max(t, f[c]+s.pathDelay(c, r, bytes))
		}
		f[r] = t
	}
	at := f[0]
	clear(f)
	var down int64
	for r := 1; r < p; r++ {
		f[r] = f[(r-1)/2] + s.pathDelay((r-1)/2, r, len(res))
		down = max(down, f[r])
	}
	at += down
	fin := Finish{Result: res, Stats: total, Seconds: float64(at) / 1e12, Suspended: end.Suspended, Tasks: end.Tasks,
		Incumbent: end.Incumbent, HasIncumbent: end.HasIncumbent}
	out := fin.Outcome(ranks)
	rep := &SimReport{Machine: s.m.Machine, Ranks: p, VirtualSeconds: out.Seconds,
		WorkVirtualSeconds: float64(total.Nodes) * s.m.NodeNS / 1e9, BusySeconds: float64(busy) / 1e12,
		LastWorkSeconds: float64(s.lastWork) / 1e12, Events: s.events}
	if s.trace != nil {
		rep.Trace = s.trace.points(at)
	}
	rep.RealSeconds = time.Since(t0).Seconds()
	out.Sim = rep
	return out, nil
}

// combinePairwise combines the encoded results of all ranks with
// job.Combine, for jobs without CombineAll.
func (s *sim) combinePairwise(job Job, apps []App) ([]byte, error) {
	if job.Result == nil || job.Combine == nil {
		return nil, errors.New("lb: a job without results")
	}
	acc, err := job.Result(apps[0])
	if err != nil {
		return nil, err
	}
	for _, a := range apps[1:] {
		b, err := job.Result(a)
		if err != nil {
			return nil, err
		}
		if acc, err = job.Combine(apps[0], acc, b); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
