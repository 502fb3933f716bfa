// Package lockstep is a world of synchronous steps, seed 003's step model
// (§2.2), as the simulator's unit machine models it: in every step each
// rank with work runs one work slice, then every message sent in the step
// is delivered before the next step starts, and so are the messages that
// carry work, loads, bounds, stops and suspensions (those termination
// counts) sent in reply; a control message in reply (a request, a
// rejection, termination's waves) waits for the next step, so that chains
// of requests and rejections advance a step at a time. One goroutine drives
// all ranks through lb.Rank.
//
// It is the smallest complete world, and shows what a world is: it makes a
// Rank per rank, deals a resumed search's tasks, moves the messages (here a
// queue, in order of sending, so each pair stays FIFO), keeps the clock
// (here steps), and ends the ranks and reduces their results; the Rank
// does everything else. Its virtual time counts steps: with a budget of
// one node, a step is a node, as in seed 003's analyses.
package lockstep

import (
	"errors"
	"fmt"

	"github.com/treelb/treelb/lb"
)

// World is a world of p ranks in lock step. Make one with New; it belongs
// to one goroutine.
type World struct {
	p     int
	cfg   Config
	nodes int64 // nodes of the runs so far, for the last progress report
}

// Config configures a World. The zero value is usable.
type Config struct {
	// StepSeconds is the virtual time of a step; 0 means a microsecond,
	// the unit machine's node (lb.Machines' "unit").
	StepSeconds float64
	// MaxSteps bounds a run; 0 means 10⁹.
	MaxSteps int64
}

// New returns a world of p ranks in lock step.
func New(p int, cfg Config) (*World, error) {
	if p < 1 {
		return nil, fmt.Errorf("lockstep: a world of %d ranks", p)
	}
	if cfg.StepSeconds <= 0 {
		cfg.StepSeconds = 1e-6
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = 1e9
	}
	return &World{p: p, cfg: cfg}, nil
}

// Name is "lockstep".
func (w *World) Name() string { return "lockstep" }

// Rank is 0: one program stands for all ranks.
func (w *World) Rank() int { return 0 }

// Size is the number of ranks.
func (w *World) Size() int { return w.p }

// Run runs job on every rank, step by step; see lb.World. It fails when a
// rank breaks the protocol (lb.Rank's errors), and when no rank has work
// or a message while some are not done (lost work or a deadlock).
// Config.Progress gets only the last snapshot.
func (w *World) Run(job lb.Job) (*lb.Outcome, error) {
	report := job.Config.Progress
	job.Config.Progress = nil
	ranks := make([]*lb.Rank, w.p)
	for r := range ranks {
		rk, err := lb.NewRank(job, lb.RankConfig{Rank: r, Size: w.p})
		if err != nil {
			return nil, err
		}
		ranks[r] = rk
	}
	resume := job.Config.Resume
	if resume != nil {
		if err := lb.CheckTasks(ranks[0].App(), resume); err != nil {
			return nil, err
		}
	}
	// queue holds the messages to deliver in this step, next those of the
	// next step; a pair with a message in next sends its later ones there
	// too, so that each pair stays FIFO.
	var queue, next []lb.Msg
	later := map[[2]int]bool{}
	send := func(rk *lb.Rank) error {
		out, err := rk.Outbox()
		queue = append(queue, out...)
		return err
	}
	reply := func(rk *lb.Rank) error {
		out, err := rk.Outbox()
		for _, m := range out {
			if pair := [2]int{m.From, m.To}; later[pair] || !m.Kind.Counted() {
				later[pair] = true
				next = append(next, m)
			} else {
				queue = append(queue, m)
			}
		}
		return err
	}
	for r, rk := range ranks {
		var share [][]byte
		if resume != nil {
			share = resume.Share(r, w.p)
		}
		if err := rk.Start(share); err != nil {
			return nil, err
		}
		if err := send(rk); err != nil {
			return nil, err
		}
	}
	// deliver hands every queued message over, and the counted replies,
	// until none is left: the end of a step. The deferred replies are the
	// first messages of the next step.
	deliver := func() error {
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			if err := ranks[m.To].Step(m); err != nil {
				return err
			}
			if err := reply(ranks[m.To]); err != nil {
				return err
			}
		}
		queue, next = next, queue[:0]
		clear(later)
		return nil
	}
	if err := deliver(); err != nil {
		return nil, err
	}
	slices := make([]int64, w.p)
	splits := make([]lb.IdleSplit, w.p)
	var steps int64
	for ; ; steps++ {
		if steps >= w.cfg.MaxSteps {
			return nil, fmt.Errorf("lockstep: more than %d steps", w.cfg.MaxSteps)
		}
		worked, done := false, true
		for r, rk := range ranks {
			if rk.Done() {
				continue
			}
			done = false
			if _, ok := rk.Work(); ok {
				worked = true
				splits[r].Busy(float64(steps - slices[r]))
				slices[r]++
			} else {
				splits[r].Idle(float64(steps - slices[r]))
			}
			if err := send(rk); err != nil {
				return nil, err
			}
		}
		if done {
			break
		}
		if !worked && len(queue) == 0 {
			return nil, fmt.Errorf("lockstep: step %d: no rank has work or a message, and not all are done (lost work or deadlock)", steps)
		}
		if err := deliver(); err != nil {
			return nil, err
		}
	}
	return w.finish(job, ranks, slices, splits, steps, report)
}

// finish ends every rank and combines their results and statistics.
func (w *World) finish(job lb.Job, ranks []*lb.Rank, slices []int64, splits []lb.IdleSplit, steps int64, report func(lb.Progress)) (*lb.Outcome, error) {
	step := w.cfg.StepSeconds
	var total lb.Finish
	var per []lb.Stats
	if job.Config.RankStats {
		per = make([]lb.Stats, w.p)
	}
	apps := make([]lb.App, w.p)
	for r, rk := range ranks {
		f, err := rk.End(splits[r].Times(float64(slices[r]), float64(steps-slices[r]), float64(steps), step))
		if err != nil {
			return nil, err
		}
		total.Stats.Add(&f.Stats)
		total.Suspended = total.Suspended || f.Suspended
		total.Tasks = append(total.Tasks, f.Tasks...)
		if r == 0 {
			total.Incumbent, total.HasIncumbent = f.Incumbent, f.HasIncumbent
		}
		if per != nil {
			per[r] = f.Stats
		}
		apps[r] = rk.App()
	}
	var err error
	switch {
	case job.CombineAll != nil:
		total.Result, err = job.CombineAll(apps)
	case job.Combine != nil:
		if total.Result, err = ranks[0].Result(); err == nil {
			for _, rk := range ranks[1:] {
				var b []byte
				if b, err = rk.Result(); err != nil {
					break
				}
				if total.Result, err = job.Combine(apps[0], total.Result, b); err != nil {
					break
				}
			}
		}
	default:
		err = errors.New("lockstep: a job without results")
	}
	if err != nil {
		return nil, err
	}
	total.Seconds = float64(steps) * step
	out := total.Outcome(per)
	w.nodes += out.Total.Nodes
	if report != nil {
		report(lb.Progress{Nodes: w.nodes, Ranks: w.p})
	}
	return out, nil
}

var _ lb.World = (*World)(nil)
