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
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

// tagFinish tags the reduction of the ranks' results; the balancers' tags
// are below lb.NumKinds.
const tagFinish = lb.NumKinds

// World is an lb.World over one rank's communicator. Make one with New; it
// belongs to the rank's goroutine and is not safe for concurrent use.
type World struct {
	c *mpi.Comm
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
	d := loop{c: c, b: b}
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
	return w.finish(job, app, &lb.Finish{Result: res, Stats: st, Seconds: seconds})
}

// loop is one rank's driver loop.
type loop struct {
	c       *mpi.Comm
	b       lb.Balancer
	pending []*mpi.Request
	work    time.Duration
	idle    time.Duration
}

func (d *loop) run(app lb.App, budget int64) error {
	d.b.Start(app.Root())
	if err := d.flush(); err != nil {
		return err
	}
	for !d.b.Done() {
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
		// Idle: block until a message arrives (seed 002 Fig. 1: "blockingly").
		t0 := time.Now()
		st, err := d.c.Probe(mpi.AnySource, mpi.AnyTag)
		d.idle += time.Since(t0)
		if err != nil {
			return err
		}
		if err := d.receive(st); err != nil {
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

func (d *loop) receive(st mpi.Status) error {
	if st.Tag <= 0 || st.Tag >= lb.NumKinds {
		return fmt.Errorf("a message with tag %d from rank %d during the search", st.Tag, st.Source)
	}
	buf := make([]byte, st.Count)
	if _, err := d.c.Recv(buf, st.Source, st.Tag); err != nil {
		return err
	}
	d.b.Deliver(lb.Msg{From: st.Source, To: d.c.Rank(), Kind: lb.Kind(st.Tag), Data: buf})
	return d.flush()
}

func (d *loop) flush() error {
	for _, m := range d.b.Outbox() {
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
		var err error
		if all, err = f.AppendBinary(nil); err != nil {
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
