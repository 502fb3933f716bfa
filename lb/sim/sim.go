// Package sim is the discrete-event simulator of lb: a World of up to
// 65536 ranks run by one goroutine in virtual time. It runs every rank
// through the same engine as the real worlds (lb.Rank), so the balancers and
// apps do their real work and answers and node counts are real, and charges
// virtual time as an lb.Machine says: the nodes, the loop's polls and
// per-slice costs, splits and per-message and per-byte costs, LogP's
// overhead, latency and gap, bandwidth, a 2-D mesh with hops and link
// contention, and the pauses of request throttling.
package sim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/treelb/treelb/lb"
)

// Config configures a simulated world (New). The zero value is the seeded
// fake network of the tests.
type Config struct {
	// Seed seeds the network's jitter.
	Seed uint64
	// Machine is the cost model; the zero value is lb.TestNetwork. A
	// Machine of your own gives every cost it has (start from a catalogue
	// model, lb.Machines, or a calibration): New refuses one whose node
	// costs nothing, and one on which no message takes any time without
	// request throttling (lb.Machine.Validate).
	Machine lb.Machine
	// MaxEvents bounds each run; 0 means 10⁹.
	MaxEvents int64
	// Trace records the busy ranks and the tasks they hold (lb.Rank.Load)
	// over virtual time (lb.SimReport.Trace).
	Trace bool
}

// MaxRanks is the most ranks New accepts. Memory grows by a few KiB per
// rank for the simulator, its balancer and the app (golomb's 13-mark count
// needs about 1 GiB at 16384 ranks and 4 GiB at 65536).
const MaxRanks = 1 << 16

// world is the simulator as an lb.World: one program drives all ranks in
// virtual time.
type world struct {
	p     int
	cfg   Config
	m     machine
	nodes int64 // nodes of the runs so far, for progress reports
}

// machine is an lb.Machine in picoseconds.
type machine struct {
	lb.Machine
	node, overhead, latency, gap, byteT, hop, jitter, split int64
	poll, send, recv, sendByte, recvByte, pause             int64 // poll: PollNS + SliceNS, after every slice
	maxPause                                                int   // ticks of pause
	width, height                                           int   // mesh, 0 without
}

func ps(ns float64) int64 { return int64(math.Round(ns * 1000)) }

// New returns a simulated world of p ranks, run by one goroutine: a
// discrete-event simulator that charges virtual time as cfg.Machine says
// (lb.Machine describes the model). Its Run does the real work of every
// rank through lb.Rank, and reports virtual time: Outcome.Seconds is the
// virtual time until the results are combined on rank 0 and broadcast (a
// reduction and a broadcast over the heap-ordered tree, timed by the
// machine), and Outcome.Sim the simulator's report.
//
// Run checks the protocol as it goes and fails when a rank sends or
// receives a message after it was done, when Done goes back to false, or
// when the simulation runs dry with ranks not done (lost work or a
// deadlock). It is deterministic for a given configuration and job. Time
// and memory are O(P) per run plus O(log n) per event; no structure is
// O(P²).
func New(p int, cfg Config) (lb.World, error) {
	if p < 1 || p > MaxRanks {
		return nil, fmt.Errorf("lb: a simulated world of %d ranks: need 1 to %d", p, MaxRanks)
	}
	if cfg.MaxEvents < 0 {
		return nil, fmt.Errorf("lb: simulation bounded by %d events", cfg.MaxEvents)
	}
	if cfg.MaxEvents == 0 {
		cfg.MaxEvents = 1e9
	}
	if cfg.Machine == (lb.Machine{}) {
		cfg.Machine = lb.TestNetwork()
	}
	mc := cfg.Machine
	if err := mc.Validate(); err != nil {
		return nil, err
	}
	node := mc.NodeNS
	if p > 1 && mc.BusyNodeNS > 0 && !mc.Steps {
		node = mc.BusyNodeNS // every core busy (lb.Machine.BusyNodeNS)
	}
	if ps(node) == 0 {
		// As node-ns 0 (Validate): a node under the clock's picosecond
		// takes no time, the step model's clock never moves, and every
		// figure of the run (busy fraction, speedup) is 0/0.
		return nil, fmt.Errorf("lb: machine %s: a node of %g ns is under the simulator's picosecond: give a node cost of 0.001 ns or more", mc.Name, node)
	}
	m := machine{Machine: mc, node: ps(node), overhead: ps(mc.OverheadNS), latency: ps(mc.LatencyNS),
		gap: ps(mc.GapNS), byteT: ps(mc.ByteNS), hop: ps(mc.HopNS), jitter: ps(mc.JitterNS), split: ps(mc.SplitNS),
		poll: ps(mc.PollNS) + ps(mc.SliceNS), send: ps(mc.SendNS), recv: ps(mc.RecvNS), sendByte: ps(mc.SendByteNS),
		recvByte: ps(mc.RecvByteNS), pause: ps(mc.PauseNS)}
	if m.pause > 0 {
		m.maxPause = max(1, int(math.Ceil(mc.MaxPauseNS/mc.PauseNS)))
	}
	if mc.MeshWidth > 0 {
		m.width = min(mc.MeshWidth, p)
		m.height = (p + m.width - 1) / m.width
	}
	return &world{p: p, cfg: cfg, m: m}, nil
}

func (w *world) Name() string { return "sim" }
func (w *world) Rank() int    { return 0 }
func (w *world) Size() int    { return w.p }

// rank is the simulator's state of one rank, beside its engine: two cache
// lines, in one array, so that an event touches few (TestRankSize); what
// few events use is in times.
type rank struct {
	cpu         bool     // the CPU runs a slice or handles messages until an event of classCPU
	startQueued bool     // an event of classStart is pending
	done        bool     // Done was seen and its last messages sent
	busy        bool     // its last kick worked a slice (sim.splits knows the changes)
	head, tail  int32    // the inbox: messages that arrived while the CPU was busy
	slice       int64    // nodes of the slice in progress, -1 while handling messages
	work        int64    // time spent on slices
	nic         int64    // when the next message may leave (the gap)
	flights     []flight // messages on their way to others, for FIFO order per pair
	lb.Rank
}

// times is the simulator's state of one rank that few events use.
type times struct {
	doneAt int64 // when the rank was done
	ticked int64 // throttling: the virtual time up to which ticks were told
	tickAt int64 // the time of the pending tick event, 0 for none
}

// flight is the arrival time of the last message on its way to a rank.
type flight struct {
	to int32
	at int64
}

// message is a message in the simulator's slab, linked into an inbox.
type message struct {
	m    lb.Msg
	next int32
}

type sim struct {
	m        *machine
	p        int
	jitter   *rand.Rand
	ranks    []rank
	times    []times
	splits   []lb.IdleSplit // each rank's idle time at start and end, told as it starts and stops working
	q        eventHeap
	msgs     []message
	free     []int32
	links    []int64 // a mesh's directed links (4 per rank): free from this time
	trace    *trace
	loads    []int32 // with a trace: each rank's load as last recorded
	seq      uint64
	now      int64
	lastWork int64 // when the last work slice ended
	events   int64
	limit    int64
	instant  bool // a message can arrive when it is sent: starts wait for arrivals

	// Progress reports (Config.Progress): every so often of wall time, a
	// snapshot summed over all ranks at once.
	progress func(lb.Progress)
	every    time.Duration
	next     time.Time
	base     int64 // nodes of the world's earlier runs

	due    bool // rank 0 polls Config.CheckpointDue at every event, until it fired
	dueSet bool // the job has a Config.CheckpointDue
}

// Run simulates job on every rank; see New.
func (w *world) Run(job lb.Job) (*lb.Outcome, error) {
	t0 := time.Now()
	p := w.p
	s := &sim{m: &w.m, p: p, jitter: rand.New(rand.NewPCG(w.cfg.Seed, 0x5eed)),
		ranks: make([]rank, p), times: make([]times, p), splits: make([]lb.IdleSplit, p), limit: w.cfg.MaxEvents,
		instant: w.m.overhead == 0 && w.m.latency == 0 && w.m.send == 0 && w.m.recv == 0}
	if w.m.width > 0 && w.m.Contention {
		s.links = make([]int64, 4*w.m.width*w.m.height)
	}
	if w.cfg.Trace {
		n := seriesRank0
		if p <= lb.TraceRanks {
			n += p
		}
		w0 := w.m.node
		if w0 <= 0 {
			w0 = 1024
		}
		s.trace, s.loads = newTrace(n, w0), make([]int32, p)
	}
	if job.Config.Progress != nil {
		// The simulator reports progress itself, from all ranks at once:
		// snapshots by balancer messages would change the virtual times.
		s.progress, s.every, s.base = job.Config.Progress, lb.ProgressEvery(job.Config), w.nodes
		s.next = time.Now().Add(s.every)
		job.Config.Progress = nil
	}
	resume := job.Config.Resume
	s.due = job.Config.CheckpointDue != nil
	s.dueSet = s.due
	for r := range p {
		sr := &s.ranks[r]
		if err := sr.Init(job, lb.RankConfig{Rank: r, Size: p, MaxPause: w.m.maxPause}); err != nil {
			return nil, err
		}
		if r == 0 && resume != nil {
			if err := lb.CheckTasks(sr.App(), resume); err != nil {
				return nil, err
			}
		}
		sr.slice, sr.head, sr.tail = -1, -1, -1
	}
	for r := range p {
		var share [][]byte
		if resume != nil {
			share = resume.Share(r, p)
		}
		if err := s.ranks[r].Start(share); err != nil {
			return nil, err
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
	out, err := s.finish(job, t0)
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
func (s *sim) snapshot() lb.Progress {
	pr := lb.Progress{Nodes: s.base, Ranks: s.p}
	for r := range s.ranks {
		sr := &s.ranks[r]
		pr.Nodes += sr.Stats().Nodes
		if sr.cpu && sr.slice >= 0 {
			pr.Busy++
		}
		if a, ok := sr.App().(lb.Bounded); ok {
			if v, ok := a.Incumbent(); ok && (!pr.HasBound || a.Sense().Better(v, pr.Incumbent)) {
				pr.Incumbent, pr.HasBound = v, true
			}
		}
	}
	return pr
}

// maxVirtual bounds the simulated clock, in picoseconds (26.7 days): every
// event is pushed at most math.MaxInt64/2 ahead of the clock (a slice's
// time is bounded so, and each machine cost far less), so no time the
// simulator computes before the clock passes it overflows. A machine that
// Validate accepts (up to an hour a node) gets there on 640 nodes.
const maxVirtual = math.MaxInt64 / 4

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
		if s.now > maxVirtual {
			return fmt.Errorf("lb: the simulated run passed %.0f days of virtual time, as far as its clock (picoseconds in an int64) goes: a machine this slow needs a smaller instance", float64(maxVirtual)/864e14)
		}
		if s.due {
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
		case classTick:
			err = s.tick(r)
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

// suspend polls Config.CheckpointDue on rank 0 as a signal handler would,
// between two events, and suspends the search when it says so; rank 0
// sends the suspension at once when its CPU is free, else when it is.
func (s *sim) suspend() error {
	if !s.ranks[0].PollDue() {
		return nil
	}
	s.due = false
	if s.ranks[0].cpu || s.ranks[0].done {
		return nil
	}
	c := s.now
	if err := s.flush(0, &c, true); err != nil {
		return err
	}
	return s.drain(0, c)
}

func (s *sim) push(at int64, class int, rank int, msg int32) {
	s.seq++
	s.q.push(event{at: at, key: uint64(class)<<classShift | s.seq, rank: int32(rank), msg: msg})
}

// cpuFree ends a slice or a stretch of message handling: the slice's
// messages leave, the loop polls once for messages and pays the rest of
// the slice's cost (Machine.PollNS + SliceNS, the field poll), and
// the messages that arrived meanwhile are handled.
func (s *sim) cpuFree(r int) error {
	sr := &s.ranks[r]
	c := s.now
	if sr.slice >= 0 {
		sr.slice = -1
		s.lastWork = max(s.lastWork, c)
		// As the loop does after a slice: so that a request held after it
		// waits its whole pause, from the ticks of now.
		s.advance(r, c)
		if err := s.flush(r, &c, false); err != nil {
			return err
		}
		c += s.m.poll
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

// deliver hands m to rank r at local time *c, charging the receive costs.
func (s *sim) deliver(r int, m lb.Msg, c *int64) error {
	s.advance(r, *c) // as the loop tells a rank the ticks when a message arrives
	*c += s.m.overhead + s.m.recv + int64(len(m.Data))*s.m.recvByte
	if err := s.ranks[r].Step(m); err != nil {
		return err
	}
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

// kick starts a work slice on an idle rank that has a task; a rank without
// one waits for messages, and for its next tick when it holds a request
// back.
func (s *sim) kick(r int) error {
	sr := &s.ranks[r]
	if sr.done {
		return nil
	}
	rk := &s.ranks[r].Rank
	n, ok := rk.Work()
	if !ok {
		if sr.busy {
			sr.busy = false
			s.splits[r].Idle(float64(s.now - sr.work))
		}
		if r != 0 || !s.dueSet {
			s.waitTick(r)
			return nil
		}
		// Idle rank 0, whose poll of the checkpoint may have suspended the
		// search.
		c := s.now
		if err := s.flush(r, &c, true); err != nil {
			return err
		}
		if c > s.now {
			sr.cpu, sr.slice = true, -1
			s.push(c, classCPU, r, -1)
			return nil
		}
		s.waitTick(r)
		return nil
	}
	if s.m.node > 0 && n > maxVirtual/s.m.node {
		return lb.RankErrorf(r, "a work slice of %d nodes at %.3g ns a node takes longer than the simulated clock goes (%.0f days, picoseconds in an int64): a machine this slow needs a smaller --budget or instance", n, float64(s.m.node)/1000, float64(maxVirtual)/864e14)
	}
	d := n * s.m.node
	if !sr.busy {
		sr.busy = true
		s.splits[r].Busy(float64(s.now - sr.work))
	}
	sr.work += d
	if s.m.split > 0 {
		d += rk.Splits() * s.m.split // static placement halves in Task and Work
	}
	if s.trace != nil {
		s.trace.busy(s.now, s.now+d)
	}
	sr.cpu, sr.slice = true, n
	s.push(s.now+d, classCPU, r, -1)
	return nil
}

// waitTick schedules the next tick of an idle rank that needs one: with
// throttling (Machine.PauseNS), ticks are pauses of virtual time.
func (s *sim) waitTick(r int) {
	if s.m.pause == 0 {
		return
	}
	n := s.ranks[r].NextTick()
	if n == 0 {
		return
	}
	st := &s.times[r]
	at := max(st.ticked+int64(n)*s.m.pause, s.now)
	if st.tickAt != 0 && st.tickAt <= at {
		return // an earlier tick is pending
	}
	st.tickAt = at
	s.push(at, classTick, r, -1)
}

// advance tells rank r the ticks of throttling that passed by local time
// at (Machine.PauseNS each), as the driver's loop does after every slice
// and when a message arrives (lb/driver's pace.advance): a request held
// back then waits its whole pause from there. Told only on the tick's
// wake-up, a rank released its request early, the ticks of the time
// before it was held counted in its pause.
func (s *sim) advance(r int, at int64) {
	if s.m.pause == 0 {
		return
	}
	st := &s.times[r]
	if k := (at - st.ticked) / s.m.pause; k > 0 {
		s.ranks[r].Tick(int(min(k, 1<<30)))
		st.ticked += k * s.m.pause
	}
}

// tick tells an idle rank the ticks that passed, which may release its
// held request.
func (s *sim) tick(r int) error {
	sr, st := &s.ranks[r], &s.times[r]
	if s.now != st.tickAt || sr.done {
		return nil // superseded
	}
	st.tickAt = 0
	if sr.cpu {
		return nil // kick asks for the tick again when the rank is idle
	}
	s.advance(r, s.now)
	c := s.now
	if err := s.flush(r, &c, true); err != nil {
		return err
	}
	return s.drain(r, c)
}

// flush sends rank r's outbox from local time *c on, charging the send
// costs and the gap to the rank, and notes when the rank becomes done.
// reply says that the messages answer messages (or start the run) rather
// than end a work slice: the step model delays control messages in reply by
// a step.
func (s *sim) flush(r int, c *int64, reply bool) error {
	sr := &s.ranks[r]
	rk := &s.ranks[r].Rank
	if s.m.split > 0 {
		*c += rk.Splits() * s.m.split // the splits of the handling or the slice just ended
	}
	out, err := rk.Outbox()
	if err != nil {
		return err
	}
	for _, m := range out {
		*c = max(*c+s.m.overhead+s.m.send+int64(len(m.Data))*s.m.sendByte, sr.nic)
		sr.nic = *c + s.m.gap
		d := s.delay(r, m.To, len(m.Data), *c)
		if reply && s.m.Steps && !m.Kind.Counted() {
			d += s.m.node // a control message in reply: one step
		}
		at := s.fifo(sr, m.To, *c+d)
		s.push(at, classArrive, m.To, s.alloc(m))
	}
	if rk.Done() && !sr.done {
		sr.done, s.times[r].doneAt = true, *c
	}
	if s.trace != nil {
		s.noteLoad(r, *c)
	}
	return nil
}

// noteLoad records in the trace a change of rank r's load (lb.Rank.Load)
// at virtual time at. Every call of the rank's engine that may change its
// load is followed by a flush, which calls it: after a work slice at the
// slice's end, after a message when it is handled.
func (s *sim) noteLoad(r int, at int64) {
	l := int32(s.ranks[r].Load())
	d := int64(l - s.loads[r])
	if d == 0 {
		return
	}
	s.loads[r] = l
	s.trace.change(seriesQueued, at, d)
	if k := seriesRank0 + r; k < len(s.trace.cnt) {
		s.trace.change(k, at, d)
	}
}

// fifo returns the arrival time of a message from sr to rank to that would
// arrive at `at`, delayed so that it does not overtake an earlier message
// of the same pair (MPI's order); equal times keep the order of sending.
// Messages that arrived by now are forgotten, so the list holds only the
// pair's messages in flight.
func (s *sim) fifo(sr *rank, to int, at int64) int64 {
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

func (s *sim) alloc(m lb.Msg) int32 {
	if k := len(s.free); k > 0 {
		i := s.free[k-1]
		s.free = s.free[:k-1]
		s.msgs[i] = message{m: m, next: -1}
		return i
	}
	s.msgs = append(s.msgs, message{m: m, next: -1})
	return int32(len(s.msgs) - 1)
}

func (s *sim) release(i int32) {
	s.msgs[i] = message{}
	s.free = append(s.free, i)
}

// finish checks that every rank is done, ends each (lb.Rank.End), combines
// the results and the statistics, and times the reduction to rank 0 and
// the broadcast back over the heap-ordered tree (children 2r+1, 2r+2), as
// the driver does.
func (s *sim) finish(job lb.Job, t0 time.Time) (*lb.Outcome, error) {
	p := s.p
	var ranks []lb.Stats
	if job.Config.RankStats {
		ranks = make([]lb.Stats, p)
	}
	var total lb.Stats
	var busy int64
	var end lb.Finish // the suspension, open tasks and incumbent of all ranks
	for r := range p {
		sr := &s.ranks[r]
		if !sr.done {
			return nil, fmt.Errorf("lb: simulation ran dry at %.9f s with rank %d not done (lost work or deadlock)", float64(s.now)/1e12, r)
		}
		doneAt := s.times[r].doneAt
		f, err := sr.End(s.splits[r].Times(float64(sr.work), float64(doneAt-sr.work), float64(doneAt), 1e-12))
		if err != nil {
			return nil, err
		}
		end.Suspended = end.Suspended || f.Suspended
		end.Tasks = append(end.Tasks, f.Tasks...)
		if r == 0 {
			end.Incumbent, end.HasIncumbent = f.Incumbent, f.HasIncumbent
		}
		total.Add(&f.Stats)
		busy += sr.work
		if ranks != nil {
			ranks[r] = f.Stats
		}
	}
	res, err := s.combine(job)
	if err != nil {
		return nil, err
	}
	// f[r]: when rank r's subtree has combined its results and r sends
	// them up; then the broadcast down to the deepest rank.
	bytes := lb.StatsSize + len(res)
	f := make([]int64, p)
	for r := p - 1; r >= 0; r-- {
		t := s.times[r].doneAt
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
	fin := lb.Finish{Result: res, Stats: total, Seconds: float64(at) / 1e12, Suspended: end.Suspended, Tasks: end.Tasks,
		Incumbent: end.Incumbent, HasIncumbent: end.HasIncumbent}
	out := fin.Outcome(ranks)
	rep := &lb.SimReport{Machine: s.m.Machine, Ranks: p, VirtualSeconds: out.Seconds,
		WorkVirtualSeconds: float64(total.Nodes) * s.m.NodeNS / 1e9, BusySeconds: float64(busy) / 1e12,
		LastWorkSeconds: float64(s.lastWork) / 1e12, Events: s.events}
	if s.trace != nil {
		rep.Trace = s.trace.points(at)
	}
	rep.RealSeconds = time.Since(t0).Seconds()
	out.Sim = rep
	return out, nil
}

// combine combines the results of all ranks: with job.CombineAll when the
// job has it, without encoding each, else pairwise with job.Combine.
func (s *sim) combine(job lb.Job) ([]byte, error) {
	if job.CombineAll != nil {
		apps := make([]lb.App, len(s.ranks))
		for r := range s.ranks {
			apps[r] = s.ranks[r].App()
		}
		return job.CombineAll(apps)
	}
	if job.Combine == nil {
		return nil, errors.New("lb: a job without results")
	}
	acc, err := s.ranks[0].Result()
	if err != nil {
		return nil, err
	}
	for r := 1; r < len(s.ranks); r++ {
		b, err := s.ranks[r].Result()
		if err != nil {
			return nil, err
		}
		if acc, err = job.Combine(s.ranks[0].App(), acc, b); err != nil {
			return nil, err
		}
	}
	return acc, nil
}
