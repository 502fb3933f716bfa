package lb

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/treelb/treelb/mpi"
)

// Config says how a driver runs a balancer. The zero value uses the default
// budget.
type Config struct {
	// Budget is Δt, the nodes of one work slice between two polls; 0 means
	// DefaultBudget.
	Budget int64
	// Seed seeds the ranks' random sources.
	Seed uint64
}

// DefaultBudget is the default work slice in nodes. At 10–100 ns per node a
// slice lasts 0.1–1 ms, so an Iprobe of 0.1–0.25 µs costs well under 1% of
// the work (seed 002, §4.1: Δt > T_poll/ε).
const DefaultBudget = 10000

// Outcome is what a parallel run produced, the same on every rank.
type Outcome struct {
	Result  []byte  // the apps' results combined over all ranks
	Seconds float64 // wall time of the search, the slowest rank's
	Ranks   []Stats // per rank, indexed by rank
	Total   Stats   // sums over ranks
}

// Run runs the balancer called name for app on every rank of c and returns
// the combined outcome. It is collective: every rank calls it with the same
// arguments. Blocking collectives are used only before the search (a
// barrier) and after it (the result and statistics).
func Run(c *mpi.Comm, app App, name string, opt Options, cfg Config) (*Outcome, error) {
	b, err := New(name, Env{Rank: c.Rank(), Size: c.Size(), App: app, Rand: NewRand(cfg.Seed, c.Rank()), Seed: cfg.Seed, Options: opt})
	if err != nil {
		return nil, err
	}
	budget := cfg.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if err := c.Barrier(); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	d := driver{c: c, b: b}
	start := time.Now()
	if err := d.loop(app, budget); err != nil {
		return nil, fmt.Errorf("lb: rank %d: %w", c.Rank(), err)
	}
	seconds := time.Since(start).Seconds()
	st := b.Stats()
	st.WorkSeconds, st.IdleSeconds, st.Nodes, st.Slices = d.work.Seconds(), d.idle.Seconds(), d.nodes, d.slices
	return finish(c, app, st, seconds)
}

type driver struct {
	c       *mpi.Comm
	b       Balancer
	pending []*mpi.Request
	work    time.Duration
	idle    time.Duration
	nodes   int64
	slices  int64
}

func (d *driver) loop(app App, budget int64) error {
	d.b.Start(app.Root())
	if err := d.flush(); err != nil {
		return err
	}
	for !d.b.Done() {
		if t := d.b.Task(); t != nil {
			t0 := time.Now()
			d.nodes += t.Work(budget)
			d.slices++
			d.work += time.Since(t0)
			d.b.Tick()
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

func (d *driver) receive(st mpi.Status) error {
	buf := make([]byte, st.Count)
	if _, err := d.c.Recv(buf, st.Source, st.Tag); err != nil {
		return err
	}
	d.b.Deliver(Msg{From: st.Source, To: d.c.Rank(), Kind: Kind(st.Tag), Data: buf})
	return d.flush()
}

func (d *driver) flush() error {
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

// statsWords is the number of 8-byte words of an encoded Stats.
const statsWords = 13

func encodeStats(s *Stats) []byte {
	w := []uint64{uint64(s.Rank), math.Float64bits(s.WorkSeconds), math.Float64bits(s.IdleSeconds),
		uint64(s.Nodes), uint64(s.Slices), uint64(s.RequestsSent), uint64(s.RequestsRecv),
		uint64(s.RequestsReject), uint64(s.Splits), uint64(s.TasksSent), uint64(s.MessagesSent),
		uint64(s.BytesSent), uint64(s.MaxQueue)}
	b := make([]byte, 0, 8*statsWords)
	for _, x := range w {
		b = binary.LittleEndian.AppendUint64(b, x)
	}
	return b
}

func decodeStats(b []byte) Stats {
	w := make([]uint64, statsWords)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return Stats{Rank: int(w[0]), WorkSeconds: math.Float64frombits(w[1]), IdleSeconds: math.Float64frombits(w[2]),
		Nodes: int64(w[3]), Slices: int64(w[4]), RequestsSent: int64(w[5]), RequestsRecv: int64(w[6]),
		RequestsReject: int64(w[7]), Splits: int64(w[8]), TasksSent: int64(w[9]), MessagesSent: int64(w[10]),
		BytesSent: int64(w[11]), MaxQueue: int64(w[12])}
}

// finish combines the results and gathers the statistics on every rank.
func finish(c *mpi.Comm, app App, st *Stats, seconds float64) (*Outcome, error) {
	local := app.Result()
	res := make([]byte, len(local))
	if err := c.AllreduceFunc(local, res, app.Combine); err != nil {
		return nil, fmt.Errorf("lb: combining results: %w", err)
	}
	secs := make([]float64, 1)
	if err := mpi.Allreduce(c, []float64{seconds}, secs, mpi.Max); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	all := make([]byte, 8*statsWords*c.Size())
	if err := c.Gather(encodeStats(st), all, 0); err != nil {
		return nil, fmt.Errorf("lb: gathering statistics: %w", err)
	}
	if err := c.Bcast(all, 0); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	out := &Outcome{Result: res, Seconds: secs[0], Ranks: make([]Stats, c.Size())}
	for r := range out.Ranks {
		out.Ranks[r] = decodeStats(all[8*statsWords*r:])
		out.Total.Add(&out.Ranks[r])
	}
	return out, nil
}

// BcastBytes broadcasts a byte string of any length from root and returns it
// on every rank. Use it before a search to give every rank the problem.
func BcastBytes(c *mpi.Comm, b []byte, root int) ([]byte, error) {
	lenBuf := make([]byte, 8)
	if c.Rank() == root {
		binary.LittleEndian.PutUint64(lenBuf, uint64(len(b)))
	}
	if err := c.Bcast(lenBuf, root); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	buf := make([]byte, binary.LittleEndian.Uint64(lenBuf))
	if c.Rank() == root {
		copy(buf, b)
	}
	if err := c.Bcast(buf, root); err != nil {
		return nil, fmt.Errorf("lb: %w", err)
	}
	return buf, nil
}
