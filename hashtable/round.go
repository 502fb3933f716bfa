package hashtable

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/treelb/treelb/mpi"
)

// Phase is one of the four phases of a round (seed 004 §2.2). The zero
// value is Generate.
type Phase int

// The phases, in the order a round runs them.
const (
	// Generate: every rank makes new elements from its seeds; work G_i.
	Generate Phase = iota
	// Dispatch: one all-to-all sends each element to the owner of its
	// bucket. Its work, the number of elements received (Σ_j B_ij), is
	// reported but, as in the seed, not part of the essential work W.
	Dispatch
	// Search: each owner looks its elements up in the old table; work
	// Σ_j (A_ij+1)·B_ij.
	Search
	// Insert: each owner inserts the elements not found into the new table;
	// work Σ_j B_ij(B_ij+1)/2 over the elements inserted.
	Insert
	// NumPhases is the number of phases.
	NumPhases = 4
)

// String returns the phase's lower-case name.
func (ph Phase) String() string {
	switch ph {
	case Generate:
		return "generate"
	case Dispatch:
		return "dispatch"
	case Search:
		return "search"
	case Insert:
		return "insert"
	}
	return fmt.Sprintf("Phase(%d)", int(ph))
}

// RoundParams are the parameters of a round. The zero value is invalid
// (Q = 0).
type RoundParams struct {
	Q     int     // buckets per rank; m = p·Q
	Alpha float64 // load factor of the old table: about α·m old elements
	Beta  float64 // load factor of the new elements: about β·m per round
	Alloc Alloc
	Seed  uint64
	// Revisit is the probability that a new element is a copy of an old
	// element of the generating rank, so that some searches succeed. The
	// seed's model has Revisit = 0: every search fails.
	Revisit float64
}

// MaxLoadFactor bounds the load factors α and β of a run and of the
// simulation (dht's --alpha and --beta): a bucket's chain holds about α
// elements, and searching and inserting into it take time in proportion,
// so the table's setup grows with α² (α = 1000 with 100 buckets a rank: 3
// s; 3000: over a minute).
const MaxLoadFactor = 1000

// Validate reports the first invalid parameter, named by the flag of the
// dht command that sets it.
func (rp RoundParams) Validate() error {
	switch {
	case rp.Q < 1:
		return fmt.Errorf("-Q (--buckets-per-rank) %d: need at least 1 bucket per rank", rp.Q)
	case !(rp.Alpha >= 0 && rp.Alpha <= MaxLoadFactor):
		return fmt.Errorf("--alpha %g: need a load factor from 0 to %d (the setup of the old table grows with its square)", rp.Alpha, MaxLoadFactor)
	case !(rp.Beta > 0):
		return fmt.Errorf("--beta %g: need a load factor above 0, at most %d (with beta = 0 no element is new, no phase has work and every η is 0/0)", rp.Beta, MaxLoadFactor)
	case rp.Beta > MaxLoadFactor:
		return fmt.Errorf("--beta %g: need a load factor above 0, at most %d (a bucket's chain holds about alpha + beta elements, and each insertion searches it)", rp.Beta, MaxLoadFactor)
	case !(rp.Revisit >= 0 && rp.Revisit <= 1):
		return fmt.Errorf("--revisit %g: need a probability from 0 to 1", rp.Revisit)
	case rp.Alloc < Block || rp.Alloc > Balanced:
		return fmt.Errorf("unknown allocation %d", int(rp.Alloc))
	}
	return nil
}

// RankRound is one rank's record of one round: per phase, the essential
// work of seed 004 §4.2, the number of elements handled and the time.
type RankRound struct {
	Work [NumPhases]int64   `json:"work"` // G_i, Σ_j B_ij, Σ_j (A_ij+1)B_ij, Σ_j B_ij(B_ij+1)/2
	Ops  [NumPhases]int64   `json:"ops"`  // elements generated, sent, searched, inserted
	Time [NumPhases]float64 `json:"seconds"`
	Old  int64              `json:"old_elements"` // old elements in this rank's subtable
	// Found is the number of searches that succeeded.
	Found int64 `json:"found"`
}

// Essential returns W'_i + W”_i + W”'_i, this rank's essential work
// (dispatch excluded, as in the seed).
func (rr *RankRound) Essential() int64 {
	return rr.Work[Generate] + rr.Work[Search] + rr.Work[Insert]
}

// Runner runs rounds of the four phases on one rank. Every rank of the
// communicator makes one with the same parameters and calls Round in step.
// The zero value is not usable; a Runner is not safe for concurrent use.
// A round costs O(q(α+β)) expected local work per rank plus one
// all-to-all exchange for the old elements and one for the new.
type Runner struct {
	c        *mpi.Comm
	rp       RoundParams
	old, nw  *Table[uint64]
	oldKeys  []uint64
	gen      []uint64
	recv     []uint64
	found    []bool
	notFound []uint64
}

// NewRunner returns this rank's runner with empty old and new tables of
// m = p·Q buckets each.
func NewRunner(c *mpi.Comm, rp RoundParams) (*Runner, error) {
	if err := rp.Validate(); err != nil {
		return nil, fmt.Errorf("hashtable: round: %w", err)
	}
	capHint := int(math.Min(float64(rp.Q)*(rp.Alpha+1)*1.1+16, 1<<26))
	old, err := New[uint64](c, Config{Q: rp.Q, Alloc: rp.Alloc, Capacity: capHint})
	if err != nil {
		return nil, fmt.Errorf("hashtable: round: %w", err)
	}
	capHint = int(math.Min(float64(rp.Q)*(rp.Beta+1)*1.1+16, 1<<26))
	nw, err := New[uint64](c, Config{Q: rp.Q, Alloc: rp.Alloc, Capacity: capHint})
	if err != nil {
		return nil, fmt.Errorf("hashtable: round: %w", err)
	}
	return &Runner{c: c, rp: rp, old: old, nw: nw}, nil
}

// Old returns the old table.
func (r *Runner) Old() *Table[uint64] { return r.old }

// New returns the new table.
func (r *Runner) New() *Table[uint64] { return r.nw }

// Generated returns the elements this rank generated in the last round.
func (r *Runner) Generated() []uint64 { return r.gen }

// Received returns the elements this rank received in the last round's
// dispatch; valid until the next round.
func (r *Runner) Received() []uint64 { return r.recv }

// stream purposes for StreamSeed.
const (
	streamOld = iota
	streamNew
)

// Round runs round i: it fills the old table with its old elements (a
// Poisson(qα) number per rank, dispatched to their owners, untimed), empties
// the new table, then runs the four phases with a barrier before each.
// Collective. The elements depend only on Seed, i and the rank, so a round is
// reproducible.
func (r *Runner) Round(i int) (RankRound, error) {
	var rr RankRound
	me := uint64(r.c.Rank())
	q := float64(r.rp.Q)

	// Setup: the old table. G ~ Poisson(qα) per rank and uniform hashing make
	// the bucket occupancies A_ij i.i.d. Poisson(α), the seed's model.
	r.old.Reset()
	r.nw.Reset()
	rng := NewRand(StreamSeed(r.rp.Seed, uint64(i), me, streamOld))
	n := rng.Poisson(q * r.rp.Alpha)
	r.oldKeys = grow(r.oldKeys, int(n))
	for j := range r.oldKeys {
		r.oldKeys[j] = rng.Uint64()
	}
	if err := r.old.Insert(r.oldKeys, nil, nil); err != nil {
		return rr, fmt.Errorf("hashtable: round %d: old table: %w", i, err)
	}
	r.old.Local().Optimize() // the old table is only searched from now on
	rr.Old = int64(r.old.Len())

	// (1) Generate G_i ~ Poisson(qβ) new elements.
	if err := r.c.Barrier(); err != nil {
		return rr, fmt.Errorf("hashtable: round %d: %w", i, err)
	}
	t0 := r.c.Wtime()
	rng = NewRand(StreamSeed(r.rp.Seed, uint64(i), me, streamNew))
	g := rng.Poisson(q * r.rp.Beta)
	r.gen = grow(r.gen, int(g))
	if r.rp.Revisit > 0 && len(r.oldKeys) > 0 {
		for j := range r.gen {
			if rng.Float64() < r.rp.Revisit {
				r.gen[j] = r.oldKeys[rng.Below(uint64(len(r.oldKeys)))]
			} else {
				r.gen[j] = rng.Uint64()
			}
		}
	} else {
		for j := range r.gen {
			r.gen[j] = rng.Uint64()
		}
	}
	t1 := r.c.Wtime()
	rr.Work[Generate], rr.Ops[Generate], rr.Time[Generate] = g, g, t1-t0

	// (2) Dispatch to the owners: one all-to-all.
	if err := r.c.Barrier(); err != nil {
		return rr, fmt.Errorf("hashtable: round %d: %w", i, err)
	}
	t0 = r.c.Wtime()
	recv, err := r.nw.Route(r.gen)
	if err != nil {
		return rr, fmt.Errorf("hashtable: round %d: dispatch: %w", i, err)
	}
	r.recv = append(r.recv[:0], recv...)
	t1 = r.c.Wtime()
	rr.Work[Dispatch], rr.Ops[Dispatch], rr.Time[Dispatch] = int64(len(r.recv)), g, t1-t0

	// (3) Search the old table.
	if err := r.c.Barrier(); err != nil {
		return rr, fmt.Errorf("hashtable: round %d: %w", i, err)
	}
	t0 = r.c.Wtime()
	r.found = grow(r.found, len(r.recv))
	rr.Work[Search] = r.old.Local().SearchBatch(r.recv, nil, r.found)
	r.notFound = r.notFound[:0]
	for j, k := range r.recv {
		if !r.found[j] {
			r.notFound = append(r.notFound, k)
		}
	}
	t1 = r.c.Wtime()
	rr.Ops[Search], rr.Time[Search] = int64(len(r.recv)), t1-t0
	rr.Found = int64(len(r.recv) - len(r.notFound))

	// (4) Insert the elements not found into the new table: local only, as
	// both tables share the hash function and the layout.
	if err := r.c.Barrier(); err != nil {
		return rr, fmt.Errorf("hashtable: round %d: %w", i, err)
	}
	t0 = r.c.Wtime()
	added, w := r.nw.Local().InsertBatch(r.notFound, nil, nil)
	t1 = r.c.Wtime()
	rr.Work[Insert], rr.Ops[Insert], rr.Time[Insert] = w, int64(added), t1-t0
	return rr, nil
}

// PhaseSummary aggregates one phase over all ranks and rounds.
type PhaseSummary struct {
	Phase string `json:"phase"`
	// Work is the essential work summed over ranks and rounds, E(total)
	// times the number of rounds.
	Work int64 `json:"work"`
	// MaxWork is the maximum over ranks summed over rounds, E(max) times the
	// number of rounds.
	MaxWork int64 `json:"max_work"`
	// Eta is the load balance factor E(total)/(p·E(max)) of the work.
	Eta float64 `json:"eta"`
	// Ops is the number of elements handled over all ranks and rounds.
	Ops int64 `json:"ops"`
	// Time is the phase's parallel time: the maximum over ranks, summed over
	// rounds, in seconds.
	Time float64 `json:"seconds"`
	// EtaTime is the load balance factor of the measured times.
	EtaTime float64 `json:"eta_time"`
	// OpsPerSec is Ops/Time; OpsPerSecPerRank divides it by p.
	OpsPerSec        float64 `json:"ops_per_second"`
	OpsPerSecPerRank float64 `json:"ops_per_second_per_rank"`
}

// Summary is the report of a series of rounds, identical on every rank.
type Summary struct {
	World   string         `json:"world"`
	P       int            `json:"p"`
	Q       int            `json:"q"`
	M       int            `json:"m"`
	Alpha   float64        `json:"alpha"`
	Beta    float64        `json:"beta"`
	Revisit float64        `json:"revisit"`
	Alloc   Alloc          `json:"alloc"`
	Seed    uint64         `json:"seed"`
	Rounds  int            `json:"rounds"`
	Old     int64          `json:"old_elements"`
	Found   int64          `json:"found"`
	Phases  []PhaseSummary `json:"phases"`
	// Overall aggregates the essential work W = W' + W'' + W''' (dispatch
	// excluded, as in the seed): Eta is E(W(1))/(p·E(W(p))) with W(p) the
	// maximum over ranks of the per-rank sum. Time is the sum of the four
	// phases' times and Ops the number of new elements, so OpsPerSec is the
	// round throughput.
	Overall PhaseSummary `json:"overall"`
	// Ranks holds every rank's record summed over the rounds, on rank 0
	// only (nil elsewhere). The dht command writes it as every command
	// writes its ranks' statistics, stats.ranks, each with its rank.
	Ranks []RankRound `json:"-"`
}

// accumulator sums round records over ranks and rounds.
type accumulator struct {
	isum, imax []int64
	fsum, fmax []float64
	rounds     int
}

// layout of the reduced vectors
const (
	accWork  = 0             // NumPhases work counters
	accOps   = NumPhases     // NumPhases op counters
	accEss   = 2 * NumPhases // essential work of the rank
	accOld   = accEss + 1
	accFound = accEss + 2
	accInts  = accEss + 3
)

func (a *accumulator) add(c *mpi.Comm, rr RankRound) error {
	if a.isum == nil {
		a.isum, a.imax = make([]int64, accInts), make([]int64, accInts)
		a.fsum, a.fmax = make([]float64, NumPhases+1), make([]float64, NumPhases+1)
	}
	in := make([]int64, accInts)
	copy(in[accWork:], rr.Work[:])
	copy(in[accOps:], rr.Ops[:])
	in[accEss], in[accOld], in[accFound] = rr.Essential(), rr.Old, rr.Found
	sum, mx := make([]int64, accInts), make([]int64, accInts)
	if err := mpi.Allreduce(c, in, sum, mpi.Sum); err != nil {
		return err
	}
	if err := mpi.Allreduce(c, in, mx, mpi.Max); err != nil {
		return err
	}
	fin := make([]float64, NumPhases+1)
	copy(fin, rr.Time[:])
	for _, t := range rr.Time {
		fin[NumPhases] += t
	}
	fsum, fmax := make([]float64, len(fin)), make([]float64, len(fin))
	if err := mpi.Allreduce(c, fin, fsum, mpi.Sum); err != nil {
		return err
	}
	if err := mpi.Allreduce(c, fin, fmax, mpi.Max); err != nil {
		return err
	}
	for i := range in {
		a.isum[i] += sum[i]
		a.imax[i] += mx[i]
	}
	for i := range fin {
		a.fsum[i] += fsum[i]
		a.fmax[i] += fmax[i]
	}
	a.rounds++
	return nil
}

// ratio returns a/b, or 0 when b is 0 (no time measured).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// eta returns total/(p·max), or 1 when no rank had work (nothing to
// balance).
func eta(total, max float64, p int) float64 {
	if max == 0 {
		return 1
	}
	return total / (float64(p) * max)
}

func (a *accumulator) summary(c *mpi.Comm, rp RoundParams) *Summary {
	p := c.Size()
	fp := float64(p)
	s := &Summary{World: mpi.WorldName, P: p, Q: rp.Q, M: p * rp.Q, Alpha: rp.Alpha, Beta: rp.Beta,
		Revisit: rp.Revisit, Alloc: rp.Alloc, Seed: rp.Seed, Rounds: a.rounds}
	if a.rounds == 0 {
		return s
	}
	s.Old, s.Found = a.isum[accOld], a.isum[accFound]
	var phaseTime float64
	for ph := range Phase(NumPhases) {
		ps := PhaseSummary{Phase: ph.String(), Work: a.isum[accWork+int(ph)], MaxWork: a.imax[accWork+int(ph)],
			Ops: a.isum[accOps+int(ph)], Time: a.fmax[ph]}
		ps.Eta = eta(float64(ps.Work), float64(ps.MaxWork), p)
		ps.EtaTime = eta(a.fsum[ph], a.fmax[ph], p)
		ps.OpsPerSec = ratio(float64(ps.Ops), ps.Time)
		ps.OpsPerSecPerRank = ps.OpsPerSec / fp
		s.Phases = append(s.Phases, ps)
		phaseTime += ps.Time
	}
	o := PhaseSummary{Phase: "overall", Work: a.isum[accEss], MaxWork: a.imax[accEss],
		Ops: a.isum[accOps+int(Generate)], Time: phaseTime}
	o.Eta = eta(float64(o.Work), float64(o.MaxWork), p)
	o.EtaTime = eta(a.fsum[NumPhases], a.fmax[NumPhases], p)
	o.OpsPerSec = ratio(float64(o.Ops), o.Time)
	o.OpsPerSecPerRank = o.OpsPerSec / fp
	s.Overall = o
	return s
}

// RunRounds runs rounds 0 … rounds-1 of the four phases and returns their
// summary, the same on every rank. Collective.
func RunRounds(c *mpi.Comm, rp RoundParams, rounds int) (*Summary, error) {
	if rounds < 1 {
		return nil, fmt.Errorf("hashtable: %d rounds, need at least 1", rounds)
	}
	r, err := NewRunner(c, rp)
	if err != nil {
		return nil, err
	}
	var acc accumulator
	var mine RankRound
	for i := range rounds {
		rr, err := r.Round(i)
		if err != nil {
			return nil, err
		}
		if err := acc.add(c, rr); err != nil {
			return nil, fmt.Errorf("hashtable: round %d: summary: %w", i, err)
		}
		mine.add(&rr)
	}
	s := acc.summary(c, rp)
	ranks, err := gatherRanks(c, &mine)
	if err != nil {
		return nil, fmt.Errorf("hashtable: summary: %w", err)
	}
	s.Ranks = ranks
	return s, nil
}

func (rr *RankRound) add(o *RankRound) {
	for ph := range NumPhases {
		rr.Work[ph] += o.Work[ph]
		rr.Ops[ph] += o.Ops[ph]
		rr.Time[ph] += o.Time[ph]
	}
	rr.Old += o.Old
	rr.Found += o.Found
}

// rankWords is the number of 8-byte words of a packed RankRound.
const rankWords = 3*NumPhases + 2

// gatherRanks collects every rank's record on rank 0.
func gatherRanks(c *mpi.Comm, rr *RankRound) ([]RankRound, error) {
	send := make([]byte, 8*rankWords)
	w := send
	put := func(x uint64) { binary.LittleEndian.PutUint64(w, x); w = w[8:] }
	for ph := range NumPhases {
		put(uint64(rr.Work[ph]))
		put(uint64(rr.Ops[ph]))
		put(math.Float64bits(rr.Time[ph]))
	}
	put(uint64(rr.Old))
	put(uint64(rr.Found))
	var recv []byte
	if c.Rank() == 0 {
		recv = make([]byte, len(send)*c.Size())
	}
	if err := c.Gather(send, recv, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		return nil, nil
	}
	out := make([]RankRound, c.Size())
	for i := range out {
		b := recv[i*len(send):]
		get := func() uint64 { x := binary.LittleEndian.Uint64(b); b = b[8:]; return x }
		for ph := range NumPhases {
			out[i].Work[ph] = int64(get())
			out[i].Ops[ph] = int64(get())
			out[i].Time[ph] = math.Float64frombits(get())
		}
		out[i].Old = int64(get())
		out[i].Found = int64(get())
	}
	return out, nil
}
