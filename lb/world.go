package lb

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"time"

	"github.com/treelb/treelb/internal/gobcheck"
)

// World runs tree-shaped computations on a set of ranks: the embedded world
// of goroutine ranks or real MPI (package lb/driver), or the discrete-event
// simulator (package lb/sim). Solvers take a World, so one solver runs in every
// world. A World belongs to one rank's goroutine (the simulator's to the
// one goroutine that drives all its ranks) and is not safe for concurrent
// use.
type World interface {
	// Name is the world's name: "embedded", "mpi" and "sim" for the
	// package's worlds, "lockstep" for lb/lockstep's, and whatever another
	// world calls itself.
	Name() string
	// Rank is this program's rank: 0..Size()-1 in the embedded and MPI
	// worlds, 0 in the simulator, whose one program stands for all ranks.
	Rank() int
	// Size is the number of ranks.
	Size() int
	// Run runs job on every rank and returns its outcome, the same on every
	// rank but for Outcome.Ranks (rank 0 only). It is collective: every
	// rank calls it with the same job.
	Run(job Job) (*Outcome, error)
}

// Job is one tree-shaped computation as a World runs it. Run makes one from a
// Reducer; worlds use its functions and need nothing else of the app.
type Job struct {
	Config Config
	// NewApp returns a new App for one rank; a world calls it once per
	// rank it runs.
	NewApp func() App
	// Result returns the encoded result of app, one of NewApp's.
	Result func(app App) ([]byte, error)
	// Combine returns the combination of two encoded results, using app
	// (one of NewApp's) for the combination.
	Combine func(app App, a, b []byte) ([]byte, error)
	// CombineAll, when not nil, returns the encoded combination of the
	// results of apps, all NewApp's, without encoding each: the simulator,
	// which holds every rank's app, uses it.
	CombineAll func(apps []App) ([]byte, error)
}

// Config says how to run a computation. The zero value runs random polling
// with default options and the default budget.
type Config struct {
	// Balancer makes each rank's balancer; nil means random polling.
	// Registered balancers come from Lookup; any Factory can be run.
	Balancer Factory
	// Options tune the balancer.
	Options Options
	// Budget is Δt, the nodes of one work slice between two polls; 0 means
	// DefaultBudget.
	Budget int64
	// MinBudget, when positive and below the budget, makes Δt adapt on
	// every rank: a rank that receives a request for work cuts its next
	// slice to MinBudget nodes (so that the requester waits a short slice,
	// not a whole Δt), and every slice that ends without a request since
	// the last grows the next by a quarter, back up to Budget (when no
	// rank asks, the polls cost what they cost at Budget). 0, the default,
	// keeps every slice at Budget, as seed 002's Δt is.
	MinBudget int64
	// Seed seeds the ranks' random sources and shared permutations.
	Seed uint64
	// RankStats asks for every rank's statistics on rank 0
	// (Outcome.Ranks); without it only the totals are reduced.
	RankStats bool
	// Progress, when set, receives on rank 0 a snapshot of the running
	// computation about every ProgressEvery, and one when it ends, from the
	// goroutine that called Run. Node counts include the earlier runs of
	// the same World, so a multi-step solver's progress adds up.
	Progress func(Progress)
	// ProgressEvery is the interval of progress snapshots; 0 means one
	// second.
	ProgressEvery time.Duration
	// CheckpointDue, when set, is polled on rank 0 between work slices
	// and while it waits (in the simulator, at every event): once it
	// returns true the search is suspended at a consistent cut, and Run
	// returns a *Suspended error with the open tasks and the result so far.
	// In lb/driver's worlds (embedded, MPI) every rank whose Config sets it
	// polls it too, and a suspension begun on any rank spreads to all: an
	// MPI rank that caught a signal sets it (RankConfig.Due). Set it on
	// rank 0 alone unless other ranks may start a suspension; a function
	// that goroutine ranks share must be safe for concurrent use. It may
	// be called from another goroutine than the one that called Run (the
	// function may read a flag that a signal handler sets).
	CheckpointDue func() bool
	// Resume, when not nil, continues the suspended search it describes
	// instead of starting from the root: rank 0 deals its Tasks to the
	// ranks round-robin (Suspended.Share), every rank's app learns the
	// incumbent, and the partial result is combined into the result. Every
	// rank passes the same Resume but for Tasks, which only rank 0 needs.
	Resume *Suspended
}

// progressEvery returns the configured interval or the default.
func (c Config) progressEvery() time.Duration {
	if c.ProgressEvery <= 0 {
		return time.Second
	}
	return c.ProgressEvery
}

// ProgressEvery returns the interval of progress snapshots of cfg: its
// ProgressEvery, or a second.
func ProgressEvery(cfg Config) time.Duration { return cfg.progressEvery() }

// DefaultBudget is the default work slice in nodes. At 10–100 ns per node a
// slice lasts 0.1–1 ms, so an Iprobe of 0.1–0.25 µs costs well under 1% of
// the work (seed 002, §4.1: Δt > T_poll/ε).
const DefaultBudget = 10000

// minBudget returns the adaptive Δt's shortest slice, 0 when Δt is fixed.
func (c Config) minBudget() int64 {
	if c.MinBudget <= 0 || c.MinBudget >= c.budget() {
		return 0
	}
	return c.MinBudget
}

// check returns an error for a Config no world can run: a negative Budget
// or MinBudget (0 is the default; lb.Run and every rank's engine check).
func (c Config) check() error {
	switch {
	case c.Budget < 0:
		return fmt.Errorf("lb: Config.Budget %d: need 0 (DefaultBudget) or more", c.Budget)
	case c.MinBudget < 0:
		return fmt.Errorf("lb: Config.MinBudget %d: need 0 (a fixed Δt) or more", c.MinBudget)
	}
	return nil
}

// budget returns the configured budget or the default.
func (c Config) budget() int64 {
	if c.Budget <= 0 {
		return DefaultBudget
	}
	return c.Budget
}

// Outcome is what a run produced besides the result. The zero value is an
// empty outcome that Add can sum runs into.
type Outcome struct {
	// Seconds is the wall time of the search on the slowest rank; virtual
	// seconds in the simulator. Summed over runs by Add.
	Seconds float64
	// Total sums the ranks' statistics (MaxQueue is the maximum).
	Total Stats
	// Ranks holds every rank's statistics, indexed by rank, on rank 0 and
	// only when Config.RankStats asked for them.
	Ranks []Stats
	// Runs is the number of computations summed in: 1 for one Run.
	Runs int
	// Sim is the simulator's report of a run in the simulated world, nil
	// in the others.
	Sim *SimReport

	result    []byte   // the encoded combined result, for Run
	suspended bool     // the search ended suspended (Config.CheckpointDue)
	open      [][]byte // then the open tasks, on rank 0
	incumbent int64    // and the incumbent, if hasInc
	hasInc    bool
}

// SimReport is what the simulator measured of a run besides the balancer's
// statistics: the machine, the virtual times, the utilisation and its own
// speed. Reports of several runs add up (Outcome.Add).
type SimReport struct {
	Machine Machine
	Ranks   int
	// VirtualSeconds is the virtual time of the runs (Outcome.Seconds).
	VirtualSeconds float64
	// WorkVirtualSeconds is what one rank of the machine takes for the
	// nodes this run expanded: nodes × Machine.NodeNS. It is not the
	// sequential time: a branch-and-bound search expands other nodes on P
	// ranks than alone, and a split may make a rank redo nodes; Speedup
	// takes the sequential solver's nodes instead.
	WorkVirtualSeconds float64
	// BusySeconds sums, over the ranks, the virtual time spent working on
	// tasks.
	BusySeconds float64
	// LastWorkSeconds is when the last work slice ended (summed over
	// runs): the virtual time without the termination detection and the
	// final reduction (on the unit machine with a budget of one node, the
	// number of steps in µs).
	LastWorkSeconds float64
	// Events counts the simulator's events; RealSeconds is its wall time,
	// set-up and reduction included.
	Events      int64
	RealSeconds float64
	// Trace is the number of busy ranks and the tasks they hold over
	// virtual time (at most 1024 steps per run), when the simulator's
	// Config.Trace asked for it.
	Trace []TracePoint
}

// SeqVirtualSeconds is the sequential time of a search that the
// sequential solver does in seqNodes nodes, on one rank of the machine:
// seqNodes × Machine.NodeNS.
func (r *SimReport) SeqVirtualSeconds(seqNodes int64) float64 {
	return float64(seqNodes) * r.Machine.NodeNS / 1e9
}

// Speedup is the speedup against the sequential solver, which searches the
// same tree in seqNodes nodes: SeqVirtualSeconds(seqNodes) /
// VirtualSeconds. The run's own nodes are no baseline (WorkVirtualSeconds).
func (r *SimReport) Speedup(seqNodes int64) float64 {
	return ratio(r.SeqVirtualSeconds(seqNodes), r.VirtualSeconds)
}

// Efficiency is Speedup(seqNodes) / Ranks.
func (r *SimReport) Efficiency(seqNodes int64) float64 {
	return ratio(r.Speedup(seqNodes), float64(r.Ranks))
}

// BusyFraction is the fraction of the ranks' virtual time spent working on
// tasks: BusySeconds / (Ranks × VirtualSeconds).
func (r *SimReport) BusyFraction() float64 {
	return ratio(r.BusySeconds, float64(r.Ranks)*r.VirtualSeconds)
}

// EventsPerSecond is the simulator's speed: Events / RealSeconds.
func (r *SimReport) EventsPerSecond() float64 { return ratio(float64(r.Events), r.RealSeconds) }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// TracePoint is one step of the trace of a simulated run, between Start and
// End (virtual seconds from the start of the run, or of the first run when
// outcomes are added): the average number of ranks working on tasks, and
// the average number of tasks the ranks hold (Rank.Load: KOSO's queues),
// in all and, for runs of at most TraceRanks ranks, rank by rank.
type TracePoint struct {
	Start  float64   `json:"start"`
	End    float64   `json:"end"`
	Busy   float64   `json:"busy"`
	Queued float64   `json:"queued"`
	Queues []float64 `json:"queues,omitempty"`
}

// TraceRanks is the most ranks whose queues a trace records one by one
// (TracePoint.Queues); beyond, only their sum.
const TraceRanks = 64

// add sums the report of a later run into r, appending its trace shifted
// by r's virtual time.
func (r *SimReport) add(p *SimReport) {
	for _, tp := range p.Trace {
		tp.Start += r.VirtualSeconds
		tp.End += r.VirtualSeconds
		r.Trace = append(r.Trace, tp)
	}
	r.Ranks = max(r.Ranks, p.Ranks)
	r.VirtualSeconds += p.VirtualSeconds
	r.WorkVirtualSeconds += p.WorkVirtualSeconds
	r.BusySeconds += p.BusySeconds
	r.LastWorkSeconds += p.LastWorkSeconds
	r.Events += p.Events
	r.RealSeconds += p.RealSeconds
}

// Add sums the outcome of another run into o: seconds, totals and per-rank
// statistics (kept only while every run has them).
func (o *Outcome) Add(p *Outcome) {
	if p == nil {
		return
	}
	if o.Runs == 0 {
		o.Ranks = append([]Stats(nil), p.Ranks...)
	} else if len(o.Ranks) == len(p.Ranks) {
		for r := range o.Ranks {
			o.Ranks[r].Add(&p.Ranks[r])
		}
	} else {
		o.Ranks = nil
	}
	if p.Sim != nil {
		if o.Sim == nil {
			o.Sim = &SimReport{Machine: p.Sim.Machine}
		}
		o.Sim.add(p.Sim)
	}
	o.Seconds += p.Seconds
	o.Total.Add(&p.Total)
	o.Runs += p.Runs
}

// CheckResult returns an error when the results of type R cannot travel
// between ranks whole: R encodes itself in binary (encoding.BinaryMarshaler
// and BinaryUnmarshaler), or goes by encoding/gob, which drops unexported
// fields without a word, so every field must be exported. Run checks it on
// every rank before anything runs; lbtest.SameResult too.
func CheckResult[R any]() error {
	if _, _, ok := binaryCodec(new(R)); !ok {
		if err := gobcheck.Exported(reflect.TypeFor[R](), "the result type"); err != nil {
			return fmt.Errorf("lb: %w", err)
		}
	}
	return nil
}

// Run runs the tree-shaped computation whose per-rank apps newApp makes on
// every rank of w, balanced as cfg says, and returns the combined result and
// the outcome, the same on every rank (Outcome.Ranks on rank 0 only). It is
// collective: every rank calls it with the same arguments.
//
// An error (but a *Suspended, which every rank gets alike) may reach one
// rank only, the others waiting for it, as an MPI error does: the world is
// then unusable, and the rank must end it by returning the error from its
// rank function (mpi.Run aborts the embedded world on it, and mpirun the
// job), not log it and go on.
//
// A result type R without a binary encoding of its own travels with
// encoding/gob, which drops unexported struct fields without a word: Run
// refuses such an R on every rank alike, before the search, naming the
// field.
func Run[R any](w World, cfg Config, newApp func() Reducer[R]) (R, *Outcome, error) {
	var zero R
	switch {
	case w == nil:
		return zero, nil, errors.New("lb: Run: the world is nil")
	case newApp == nil:
		return zero, nil, errors.New("lb: Run: newApp is nil")
	}
	if err := cfg.check(); err != nil {
		return zero, nil, err
	}
	if err := CheckResult[R](); err != nil {
		return zero, nil, err
	}
	job := Job{
		Config: cfg,
		NewApp: func() App { return newApp() },
		Result: func(app App) ([]byte, error) { return encodeResult(app.(Reducer[R]).Result()) },
		Combine: func(app App, a, b []byte) ([]byte, error) {
			x, err := decodeResult[R](a)
			if err != nil {
				return nil, err
			}
			y, err := decodeResult[R](b)
			if err != nil {
				return nil, err
			}
			return encodeResult(app.(Reducer[R]).Combine(x, y))
		},
		CombineAll: func(apps []App) ([]byte, error) {
			first := apps[0].(Reducer[R])
			acc := first.Result()
			for _, a := range apps[1:] {
				acc = first.Combine(acc, a.(Reducer[R]).Result())
			}
			return encodeResult(acc)
		},
	}
	out, err := w.Run(job)
	if err != nil {
		return zero, nil, err
	}
	res, err := decodeResult[R](out.result)
	if err != nil {
		return zero, nil, err
	}
	out.result = nil
	var before int64
	if r := cfg.Resume; r != nil {
		before = r.Nodes
		if len(r.Partial) > 0 {
			p, err := decodeResult[R](r.Partial)
			if err != nil {
				return zero, nil, fmt.Errorf("%w: its partial result: %w", ErrBadState, err)
			}
			res = newApp().Combine(p, res)
		}
	}
	if !out.suspended {
		return res, out, nil
	}
	partial, err := encodeResult(res)
	if err != nil {
		return zero, nil, err
	}
	s := &Suspended{Partial: partial, Tasks: out.open, Nodes: before + out.Total.Nodes,
		Incumbent: out.incumbent, HasIncumbent: out.hasInc}
	out.open = nil
	return res, out, s
}

// encodeResult encodes a result for the reduction: with R's own
// MarshalBinary when it has a binary encoding (binaryCodec), with
// encoding/gob otherwise. A gob encoding carries R's type description and
// its decoding compiles a decoder, for every message.
func encodeResult[R any](v R) ([]byte, error) {
	var b []byte
	var err error
	if m, _, ok := binaryCodec(&v); ok {
		b, err = m.MarshalBinary()
	} else {
		var buf bytes.Buffer
		err = gob.NewEncoder(&buf).Encode(&v)
		b = buf.Bytes()
	}
	if err != nil {
		return nil, fmt.Errorf("lb: encoding a result: %w", err)
	}
	return b, nil
}

// decodeResult decodes a result that encodeResult encoded.
func decodeResult[R any](b []byte) (R, error) {
	var v R
	var err error
	if _, u, ok := binaryCodec(&v); ok {
		err = u.UnmarshalBinary(b)
	} else {
		err = gob.NewDecoder(bytes.NewReader(b)).Decode(&v)
	}
	if err != nil {
		var zero R
		return zero, fmt.Errorf("lb: decoding a result: %w", err)
	}
	return v, nil
}

// binaryCodec returns *p's binary encoder and decoder, and whether it has
// both: *R implements encoding.BinaryUnmarshaler, and R or *R
// encoding.BinaryMarshaler.
func binaryCodec[R any](p *R) (encoding.BinaryMarshaler, encoding.BinaryUnmarshaler, bool) {
	u, ok := any(p).(encoding.BinaryUnmarshaler)
	if !ok {
		return nil, nil, false
	}
	if m, ok := any(*p).(encoding.BinaryMarshaler); ok {
		return m, u, true
	}
	m, ok := any(p).(encoding.BinaryMarshaler)
	return m, u, ok
}

// Finish is what a world's rank contributes to the reduction after a
// search: its encoded result, its statistics and its wall time. Worlds
// combine them with Merge and hand the combination to Outcome.
type Finish struct {
	Result  []byte
	Stats   Stats
	Seconds float64
	// Suspended says that the search ended suspended for a checkpoint
	// (Suspender.Suspended, the same on every rank); Tasks are then the
	// open tasks of the rank, and after Merge those of its subtree.
	Suspended bool
	Tasks     [][]byte
	// Incumbent is the rank's incumbent at the end, when HasIncumbent; at a
	// consistent cut every rank knows the same.
	Incumbent    int64
	HasIncumbent bool
}

// SetEnd fills in what app and its balancer b know at the end of a search:
// whether it ended suspended, the open tasks, and the incumbent.
func (f *Finish) SetEnd(app App, b Balancer) error {
	if s, ok := b.(Suspender); ok && s.Suspended() {
		tasks, err := OpenTasks(b)
		if err != nil {
			return err
		}
		f.Suspended, f.Tasks = true, tasks
	}
	if bd, ok := app.(Bounded); ok {
		f.Incumbent, f.HasIncumbent = bd.Incumbent()
	}
	return nil
}

// Merge combines f with g, another rank's (or subtree's) contribution, with
// the job's Combine: results combined, statistics summed, seconds the
// maximum.
func (f *Finish) Merge(job Job, app App, g *Finish) error {
	r, err := job.Combine(app, f.Result, g.Result)
	if err != nil {
		return err
	}
	f.Result = r
	f.Stats.Add(&g.Stats)
	f.Seconds = max(f.Seconds, g.Seconds)
	f.Suspended = f.Suspended || g.Suspended
	f.Tasks = append(f.Tasks, g.Tasks...)
	if !f.HasIncumbent {
		f.Incumbent, f.HasIncumbent = g.Incumbent, g.HasIncumbent
	}
	return nil
}

// Outcome returns the outcome of a run whose ranks' contributions combine to
// f, with the given per-rank statistics (nil for none).
func (f *Finish) Outcome(ranks []Stats) *Outcome {
	f.Stats.Rank = 0
	return &Outcome{Seconds: f.Seconds, Total: f.Stats, Ranks: ranks, Runs: 1, result: f.Result,
		suspended: f.Suspended, open: f.Tasks, incumbent: f.Incumbent, hasInc: f.HasIncumbent}
}

// statsWords is the number of 8-byte words of an encoded Stats: 15
// counters and the messages by kind.
const statsWords = 15 + NumKinds - 1

// StatsSize is the length of an encoded Stats (Stats.AppendBinary).
const StatsSize = 8 * statsWords

// AppendBinary appends the fixed-size encoding of s (StatsSize bytes).
func (s *Stats) AppendBinary(b []byte) ([]byte, error) {
	for _, x := range []uint64{uint64(s.Rank), math.Float64bits(s.WorkSeconds), math.Float64bits(s.IdleSeconds),
		uint64(s.Nodes), uint64(s.Slices), uint64(s.RequestsSent), uint64(s.RequestsRecv),
		uint64(s.RequestsReject), uint64(s.Splits), uint64(s.TasksSent), uint64(s.MessagesSent),
		uint64(s.BytesSent), uint64(s.MaxQueue), math.Float64bits(s.IdleStartSeconds), math.Float64bits(s.IdleEndSeconds)} {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	for _, n := range s.Messages[1:] {
		b = binary.LittleEndian.AppendUint64(b, uint64(n))
	}
	return b, nil
}

// UnmarshalBinary decodes an encoding made by AppendBinary.
func (s *Stats) UnmarshalBinary(b []byte) error {
	if len(b) != StatsSize {
		return fmt.Errorf("lb: statistics of %d bytes, want %d", len(b), StatsSize)
	}
	w := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	*s = Stats{Rank: int(w(0)), WorkSeconds: math.Float64frombits(w(1)), IdleSeconds: math.Float64frombits(w(2)),
		Nodes: int64(w(3)), Slices: int64(w(4)), RequestsSent: int64(w(5)), RequestsRecv: int64(w(6)),
		RequestsReject: int64(w(7)), Splits: int64(w(8)), TasksSent: int64(w(9)), MessagesSent: int64(w(10)),
		BytesSent: int64(w(11)), MaxQueue: int64(w(12)), IdleStartSeconds: math.Float64frombits(w(13)),
		IdleEndSeconds: math.Float64frombits(w(14))}
	for k := 1; k < NumKinds; k++ {
		s.Messages[k] = int64(w(14 + k))
	}
	return nil
}

// AppendBinary appends the encoding of f: the result's length and bytes, the
// statistics, the seconds, then the suspension, the incumbent and the open
// tasks (AppendTasks).
func (f *Finish) AppendBinary(b []byte) ([]byte, error) {
	b = slices.Grow(b, 2*binary.MaxVarintLen64+len(f.Result)+StatsSize+9) // one allocation, not one a doubling
	b = binary.AppendUvarint(b, uint64(len(f.Result)))
	b = append(b, f.Result...)
	b, _ = f.Stats.AppendBinary(b)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f.Seconds))
	var flags byte
	if f.Suspended {
		flags |= 1
	}
	if f.HasIncumbent {
		flags |= 2
	}
	b = binary.AppendVarint(append(b, flags), f.Incumbent)
	return AppendTasks(b, f.Tasks), nil
}

// UnmarshalBinary decodes an encoding made by AppendBinary.
func (f *Finish) UnmarshalBinary(b []byte) error {
	bad := errors.New("lb: malformed result of a rank")
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) || uint64(len(b)-k) < n+uint64(StatsSize)+8+1 {
		return bad
	}
	b = b[k:]
	f.Result = append([]byte(nil), b[:n]...)
	if err := f.Stats.UnmarshalBinary(b[n : n+uint64(StatsSize)]); err != nil {
		return err
	}
	b = b[n+uint64(StatsSize):]
	f.Seconds = math.Float64frombits(binary.LittleEndian.Uint64(b))
	flags := b[8]
	f.Suspended, f.HasIncumbent = flags&1 != 0, flags&2 != 0
	v, k := binary.Varint(b[9:])
	if k <= 0 {
		return bad
	}
	f.Incumbent = v
	tasks, rest, err := ParseTasks(b[9+k:])
	if err != nil || len(rest) != 0 {
		return bad
	}
	f.Tasks = nil
	for _, t := range tasks {
		f.Tasks = append(f.Tasks, append([]byte(nil), t...))
	}
	return nil
}
