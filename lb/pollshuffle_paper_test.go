package lb

import (
	"fmt"
	"math"
	"math/bits"
	"testing"
)

// Paper tests of poll-and-shuffle, seed 002 (Sanders, "Randomized receiver
// initiated load balancing algorithms for tree shaped computations") §5,
// Fig. 2, on the real ps state machines driven in the synchronous step
// model of the figure: in every step each rank that holds work works one
// slice of Δt nodes; then every message is delivered until none is left,
// which ends the phase (its exchange along one dimension and the global
// synchronisation) and, after the last phase of a cycle, the shuffle. The
// app is rangeApp (randompolling_paper_test.go): N nodes, split in halves,
// so a subproblem that has been split g times holds at most ⌈N/2^g⌉ nodes;
// or quarterApp, whose splits give away only a quarter.

// psPhase is what the step model saw in one phase.
type psPhase struct {
	cycle, phase int
	busyEnd      int   // ranks holding work at the end of the work slice
	maxSize      int64 // the largest subproblem at the end of the work slice
	pieces       int   // pieces handed over in the exchange
	shuffled     bool  // the subproblems were permuted after this phase
	busySync     int   // ranks holding work at the synchronisation after the exchange
}

// psStepModel runs p ranks of poll-and-shuffle with opts on rangeApp{n}
// (quarterApp{n} when quarter), Δt nodes per slice, checking on every message and after every phase the
// claims of Fig. 2 (see TestPollShufflePhases); it returns the phases and
// fails t on the first violation.
func psStepModel(t *testing.T, p int, n uint64, dt int64, opts PSOptions, seed uint64, quarter bool) []psPhase {
	t.Helper()
	var app App = rangeApp{n}
	if quarter {
		app = quarterApp{n}
	}
	bs := make([]*pollShuffle, p)
	for r := range bs {
		b, err := NewBalancer(newPollShuffle, Env{Rank: r, Size: p, App: app, Seed: seed, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		bs[r] = b.(*pollShuffle)
	}
	dims := bits.Len(uint(p - 1))
	size := func(b *pollShuffle) int64 {
		if rt, ok := b.task.(spanner); ok {
			lo, hi := rt.span()
			return int64(hi - lo)
		}
		if b.task != nil {
			t.Fatalf("rank %d holds a %T, not one subproblem", b.rank, b.task)
		}
		return 0
	}
	var queue []Msg
	for _, b := range bs {
		b.Start(app.Root())
	}
	for _, b := range bs {
		queue = append(queue, b.Outbox()...)
	}
	var phases []psPhase
	var nodes int64
	busyEnd := make([]bool, p)
	sizeEnd := make([]int64, p)
	for step := 0; ; step++ {
		if step > 1<<20 {
			t.Fatalf("p=%d: no end after %d phases", p, step)
		}
		// Deliver until quiescent, checking every task that travels.
		var ph *psPhase
		if len(phases) > 0 {
			ph = &phases[len(phases)-1]
		}
		got := make([]int, p) // pieces received in this exchange
		// early[r]: rank r, idle, went on to the next phase's exchange in
		// this delivery and got a piece along a lower dimension there
		// (AskLower): it holds work but the next phase's work slice is
		// behind it.
		early := make([]bool, p)
		moved := map[int][2]uint64{}
		for len(queue) > 0 {
			m := queue[0]
			queue = queue[1:]
			if m.Kind == KWork || m.Kind == KRequest {
				c, i, sub, rest := parseHeader(m.Data)
				// Idle ranks go on to the next phase's exchange as soon as
				// the synchronisation ends, in the same delivery; a piece
				// of the exchange or a shuffled subproblem belongs to the
				// phase whose work slice just ended.
				if ph == nil || (c != ph.cycle || i != ph.phase) && (sub == subPiece || sub == subShuffle || psNext(*ph, dims) != psPhase{cycle: c, phase: i}) {
					t.Fatalf("p=%d: %v %d→%d (subtype %d) of cycle %d phase %d during phase %+v", p, m.Kind, m.From, m.To, sub, c, i, ph)
				}
				switch {
				case m.Kind == KWork && sub == subPiece:
					// Fig. 2: an idle rank gets a piece of its busy
					// neighbour along dimension i.
					if m.From^m.To != 1<<i || !busyEnd[m.From] || busyEnd[m.To] {
						t.Fatalf("p=%d cycle %d phase %d: piece %d→%d (busy %v→%v), not along dimension %d from busy to idle",
							p, c, i, m.From, m.To, busyEnd[m.From], busyEnd[m.To], i)
					}
					got[m.To]++
					ph.pieces++
				case m.Kind == KRequest || m.Kind == KWork && sub == subReply:
					// §5.3: an idle rank may ask along a dimension j < i.
					if d := m.From ^ m.To; !opts.AskLower || bits.OnesCount(uint(d)) != 1 || d >= 1<<i {
						t.Fatalf("p=%d cycle %d phase %d: %v %d→%d not along a dimension below %d", p, c, i, m.Kind, m.From, m.To, i)
					}
					if m.Kind == KWork {
						got[m.To]++
						ph.pieces++
						early[m.To] = c != ph.cycle || i != ph.phase
					}
				case m.Kind == KWork && sub == subShuffle:
					// Fig. 2: after the last phase of a cycle, the
					// subproblems are permuted.
					pi := shuffleOf(bs[0], c)
					if i != dims-1 || m.To != pi.at(m.From) {
						t.Fatalf("p=%d cycle %d phase %d: shuffle %d→%d, want phase %d and π(%d) = %d", p, c, i, m.From, m.To, dims-1, m.From, pi.at(m.From))
					}
					task, err := app.Unmarshal(rest)
					if err != nil {
						t.Fatal(err)
					}
					lo, hi := task.(spanner).span()
					moved[m.To] = [2]uint64{lo, hi}
					ph.shuffled = true
				default:
					t.Fatalf("p=%d: unexpected %v message of subtype %d", p, m.Kind, sub)
				}
			}
			if m.Kind == KPair {
				if _, _, sub, _ := parseHeader(m.Data); sub == subShuffle {
					ph.shuffled = true
				}
			}
			bs[m.To].Deliver(m)
			queue = append(queue, bs[m.To].Outbox()...)
		}
		if ph != nil {
			for _, b := range bs {
				if b.holds() {
					ph.busySync++
				}
			}
			for r := range p {
				if got[r] > 1 {
					t.Fatalf("p=%d cycle %d phase %d: rank %d got %d pieces", p, ph.cycle, ph.phase, r, got[r])
				}
				// Every idle rank whose neighbour along dimension i held a
				// splittable subproblem got a piece of it. (With AskLower
				// the neighbour may have split it for a request along a
				// lower dimension first, and have too little left.)
				q := r ^ 1<<ph.phase
				if q < p && !busyEnd[r] && busyEnd[q] && sizeEnd[q] >= 2 && got[r] == 0 && !opts.AskLower {
					t.Fatalf("p=%d cycle %d phase %d: idle rank %d got nothing from busy rank %d (%d nodes)", p, ph.cycle, ph.phase, r, q, sizeEnd[q])
				}
			}
			for to, task := range moved {
				if rt, ok := bs[to].task.(spanner); !ok || func() bool { lo, hi := rt.span(); return [2]uint64{lo, hi} != task }() {
					t.Fatalf("p=%d: after the shuffle rank %d holds %v, not the subproblem %v sent to it", p, to, bs[to].task, task)
				}
			}
		}

		// All ranks are in the same phase, ready to work, or all are done.
		done := 0
		for _, b := range bs {
			if b.Done() {
				done++
			}
		}
		if done == p {
			break
		}
		if done > 0 {
			t.Fatalf("p=%d: %d of %d ranks done", p, done, p)
		}
		cur := psPhase{cycle: bs[0].cycle, phase: bs[0].phase}
		if ph != nil {
			if want := psNext(*ph, dims); cur != want {
				t.Fatalf("p=%d: phase (%d, %d) follows (%d, %d); want (%d, %d)", p, cur.cycle, cur.phase, ph.cycle, ph.phase, want.cycle, want.phase)
			}
			// §5.3, ShuffleBelow: the shuffle after a cycle only while
			// fewer than that fraction of the ranks hold work.
			if want := ph.phase == dims-1 && (opts.ShuffleBelow == 0 || float64(ph.busySync) < opts.ShuffleBelow*float64(p)); ph.shuffled != want {
				t.Fatalf("p=%d cycle %d phase %d: shuffled %v with %d ranks busy at the synchronisation (ShuffleBelow %g)", p, ph.cycle, ph.phase, ph.shuffled, ph.busySync, opts.ShuffleBelow)
			}
		}
		// A rank with work waits at the work slice; an idle one has gone on
		// to the exchange and waits for its neighbour or the
		// synchronisation of the same phase.
		for _, b := range bs {
			if b.cycle != cur.cycle || b.phase != cur.phase || b.holds() && !early[b.rank] && (b.state != psWork || b.sliceDone) {
				t.Fatalf("p=%d: rank %d (holding work: %v) in state %d of (%d, %d), rank 0 in (%d, %d)", p, b.rank, b.holds(), b.state, b.cycle, b.phase, cur.cycle, cur.phase)
			}
		}

		// Work one slice on every rank that holds work.
		for r, b := range bs {
			if task := b.Task(); task != nil {
				k := task.Work(dt)
				nodes += k
				b.Tick(k)
			} else if b.holds() && !early[r] {
				t.Fatalf("p=%d: rank %d holds work but may not work in phase (%d, %d)", p, r, cur.cycle, cur.phase)
			}
		}
		for r, b := range bs {
			busyEnd[r], sizeEnd[r] = b.holds(), size(b)
			if busyEnd[r] {
				cur.busyEnd++
			}
			cur.maxSize = max(cur.maxSize, sizeEnd[r])
			queue = append(queue, b.Outbox()...)
		}
		phases = append(phases, cur)
	}
	if nodes != int64(n) {
		t.Fatalf("p=%d: %d nodes worked, the tree has %d", p, nodes, n)
	}
	return phases
}

// psNext returns the cycle and phase after ph's, cycles having dims phases.
func psNext(ph psPhase, dims int) psPhase {
	if ph.phase+1 == dims {
		return psPhase{cycle: ph.cycle + 1}
	}
	return psPhase{cycle: ph.cycle, phase: ph.phase + 1}
}

// spanner is a task of rangeApp or quarterApp: the nodes lo..hi-1.
type spanner interface{ span() (lo, hi uint64) }

func (t *rangeTask) span() (uint64, uint64) { return t.lo, t.hi }

// quarterApp is rangeApp with uneven splits: Split gives away the last
// quarter of the range, so that a piece needs log_{4/3}(N/T) splits, not
// log₂(N/T), to shrink to T nodes.
type quarterApp struct{ n uint64 }

type quarterTask struct{ rangeTask }

func (a quarterApp) Root() Task { return &quarterTask{rangeTask{0, a.n}} }
func (quarterApp) Unmarshal(b []byte) (Task, error) {
	t, err := rangeApp{}.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return &quarterTask{*t.(*rangeTask)}, nil
}
func (t *quarterTask) Split() Task {
	if t.hi-t.lo < 2 {
		return nil
	}
	cut := t.hi - max(1, (t.hi-t.lo)/4)
	o := &quarterTask{rangeTask{cut, t.hi}}
	t.hi = cut
	return o
}

// shuffleOf returns the permutation of the shuffle after the given cycle,
// as b's run computes it.
func shuffleOf(b *pollShuffle, cycle int) rankPerm {
	c := *b
	c.cycle = cycle
	return c.shufflePerm()
}

// TestPollShufflePhases (seed 002 §5, Fig. 2): the ranks work in
// synchronous phases of one slice; log P phases form a cycle (⌈log₂ P⌉ when
// P is not a power of two: the cube is partial); after phase i an idle rank
// gets a piece from its neighbour along dimension i, at most one, and only
// from a busy one — and every idle rank whose neighbour holds a splittable
// subproblem gets one; after the last phase of a cycle every subproblem
// moves from rank r to π(r) of the cycle's permutation, unchanged. Every
// node is worked exactly once. With AskLower (§5.3) a rank still idle asks
// along a dimension j < i; a rank that does so right after the
// synchronisation gets its piece after the next work slice and works from
// the phase after.
func TestPollShufflePhases(t *testing.T) {
	for _, c := range []struct {
		p       int
		opts    PSOptions
		quarter bool
	}{{2, PSOptions{}, false}, {8, PSOptions{}, false}, {12, PSOptions{}, false}, {64, PSOptions{}, false}, {64, PSOptions{}, true},
		{64, PSOptions{AskLower: true}, true}, {13, PSOptions{FastInit: true}, false}, {64, PSOptions{ShuffleBelow: 0.5}, true}} {
		t.Run(fmt.Sprintf("p=%d/quarter=%v/%+v", c.p, c.quarter, c.opts), func(t *testing.T) {
			phases := psStepModel(t, c.p, 1<<16, 16, c.opts, 3, c.quarter)
			cycles, pieces := phases[len(phases)-1].cycle+1, 0
			for _, ph := range phases {
				pieces += ph.pieces
			}
			if pieces == 0 && c.p > 1 {
				t.Errorf("no piece was handed over")
			}
			if c.opts.ShuffleBelow > 0 {
				// Both cases of the rule came up: cycles that ended with
				// most ranks busy (no shuffle) and with few (a shuffle).
				var with, without int
				for _, ph := range phases[:len(phases)-1] {
					if ph.phase == bits.Len(uint(c.p-1))-1 {
						if ph.shuffled {
							with++
						} else {
							without++
						}
					}
				}
				if with == 0 || without == 0 {
					t.Errorf("ShuffleBelow %g: %d cycles shuffled, %d not: the rule was not put to the test", c.opts.ShuffleBelow, with, without)
				}
			}
			t.Logf("%d phases in %d cycles of %d, %d pieces", len(phases), cycles, bits.Len(uint(c.p-1)), pieces)
		})
	}
}

// TestPollShuffleLemma13 (seed 002 §5.1, Lemma 13): the analysis rests on
// the shuffle making every pairing of a subproblem S with a subproblem T
// outside its i-cube equally likely in phase i; it holds when the shuffle
// is a uniformly random permutation π. For P = 16 and 64 and every
// dimension i, over the shuffles of 100·P runs (seeds), the subproblem of
// rank 0 meets the one of rank t along dimension i (π(t) = π(0) ⊕ 2^i)
// with frequencies that a χ² test with P−2 degrees of freedom cannot tell
// from uniform at level 10^−6. (It failed before the round function of
// rankPerm was strengthened: for P = 16, rank 3's subproblem was rank 0's
// neighbour along dimension 0 in 96% of the runs.)
func TestPollShuffleLemma13(t *testing.T) {
	for _, p := range []int{16, 64} {
		runs := 100 * p
		df := float64(p - 2)
		// The 1 − 10^−6 quantile of χ²_df by Wilson and Hilferty's
		// approximation (z = 4.753).
		chi2Max := df * math.Pow(1-2/(9*df)+4.753*math.Sqrt(2/(9*df)), 3)
		b, err := NewBalancer(newPollShuffle, Env{Rank: 0, Size: p, App: rangeApp{1}})
		if err != nil {
			t.Fatal(err)
		}
		ps := b.(*pollShuffle)
		for i := range bits.Len(uint(p - 1)) {
			counts := make([]float64, p)
			for seed := range uint64(runs) {
				ps.env.Seed = seed // consecutive seeds: each (seed, cycle) draws its own shuffle
				pi := shuffleOf(ps, 0)
				counts[pi.inv(pi.at(0)^1<<i)]++
			}
			if counts[0] != 0 {
				t.Fatalf("P=%d dimension %d: rank 0 paired with itself", p, i)
			}
			chi2 := 0.0
			want := float64(runs) / float64(p-1)
			for _, c := range counts[1:] {
				chi2 += (c - want) * (c - want) / want
			}
			t.Logf("P=%d dimension %d: χ² = %.1f with %v degrees of freedom (limit %.1f)", p, i, chi2, df, chi2Max)
			if chi2 > chi2Max {
				t.Errorf("P=%d dimension %d: the partners of rank 0's subproblem are not uniform (χ² = %.1f > %.1f): %v", p, i, chi2, chi2Max, counts[1:])
			}
		}
	}
}

// binomialBelow returns P[Bin(r, q) < h].
func binomialBelow(r int, q float64, h int) float64 {
	s := 0.0
	for j := range min(h, r+1) {
		lg1, _ := math.Lgamma(float64(r + 1))
		lg2, _ := math.Lgamma(float64(j + 1))
		lg3, _ := math.Lgamma(float64(r - j + 1))
		s += math.Exp(lg1 - lg2 - lg3 + float64(j)*math.Log(q) + float64(r-j)*math.Log1p(-q))
	}
	return s
}

// TestPollShufflePhaseBound (seed 002 §5.1, the proof of Theorem 12 and
// Lemma 14) counts the phases of a run on P ranks, γ = ½:
//
//   - at most ⌈T_seq/((1−γ)·P·Δt)⌉ phases end their work slice with at least
//     (1−γ)P ranks busy, since each of those works (1−γ)P·Δt nodes;
//   - Lemma 14: a phase i < log P − log(2/γ) with at least γP ranks idle at
//     its end ("red") splits a given subproblem with probability at least
//     γ/2, so with h = log₂(N/T_atomic) halvings to reach T_atomic = Δt
//     nodes (log_{4/3} for quarterApp, whose pieces keep up to ¾), R* red
//     phases, the least R with P·P[Bin(R, γ/2) < h] ≤ P^−β
//     (β = 1), leave every subproblem atomic with probability 1 − P^−β;
//     every seeded run needs at most R*;
//   - once every subproblem is atomic, ⌈T_atomic/Δt⌉ phases finish them and
//     two more synchronisations detect termination.
func TestPollShufflePhaseBound(t *testing.T) {
	const gamma, beta = 0.5, 1.0
	type setup struct {
		p       int
		n       uint64
		dt      int64
		runs    int
		quarter bool
	}
	setups := []setup{{64, 1 << 20, 64, 6, false}, {64, 1 << 20, 64, 6, true}, {256, 1 << 22, 64, 2, true}}
	if testing.Short() {
		setups = []setup{{64, 1 << 18, 64, 3, true}}
	}
	for _, c := range setups {
		dims := bits.Len(uint(c.p - 1))
		redDims := dims - int(math.Log2(2/gamma))
		shrink := 2.0 // what a split divides the largest piece by, at worst
		if c.quarter {
			shrink = 4.0 / 3
		}
		h := int(math.Ceil(math.Log(float64(c.n)/float64(c.dt)) / math.Log(shrink)))
		busyMax := int(math.Ceil(float64(c.n) / ((1 - gamma) * float64(c.p) * float64(c.dt))))
		rStar := h
		for float64(c.p)*binomialBelow(rStar, gamma/2, h) > math.Pow(float64(c.p), -beta) {
			rStar++
		}
		for run := range c.runs {
			phases := psStepModel(t, c.p, c.n, c.dt, PSOptions{}, uint64(run+1), c.quarter)
			busy, red, atomicAt := 0, 0, -1
			for k, ph := range phases {
				if float64(ph.busyEnd) >= (1-gamma)*float64(c.p) {
					busy++
				}
				if atomicAt < 0 && ph.maxSize <= c.dt {
					atomicAt = k
				}
				if atomicAt < 0 && ph.phase < redDims && float64(c.p-ph.busyEnd) >= gamma*float64(c.p) {
					red++
				}
			}
			after := len(phases) - 1 - atomicAt
			t.Logf("p=%d N=%d Δt=%d quarter=%v run %d: %d phases (T_seq/(PΔt) = %d): %d busy (bound %d), %d red before all atomic (h = %d, R* = %d), %d after",
				c.p, c.n, c.dt, c.quarter, run, len(phases), int(c.n)/(c.p*int(c.dt)), busy, busyMax, red, h, rStar, after)
			if busy > busyMax {
				t.Errorf("p=%d run %d: %d phases with (1−γ)P ranks busy, bound %d", c.p, run, busy, busyMax)
			}
			if red > rStar {
				t.Errorf("p=%d run %d: %d red phases before every subproblem was atomic, Lemma 14's bound R* = %d", c.p, run, red, rStar)
			}
			if after > 1+2 {
				t.Errorf("p=%d run %d: %d phases after every subproblem was atomic, want at most ⌈T_atomic/Δt⌉ + 2 = 3", c.p, run, after)
			}
		}
	}
}

// TestPollShufflePairSync (seed 002 §5.3, the refinement PairSync): the
// ranks synchronise globally only at the end of a cycle, not after every
// phase, the pair of an exchange waiting for each other in between: the
// reports that go up the tree of the synchronisation (P − 1 of them a
// synchronisation) number one synchronisation a cycle, against one a
// phase without it, and every node is still worked exactly once.
func TestPollShufflePairSync(t *testing.T) {
	const p, n = 16, 1 << 16
	dims := bits.Len(uint(p - 1))
	for _, pairSync := range []bool{false, true} {
		app := rangeApp{n}
		bs := make([]*pollShuffle, p)
		var queue []Msg
		for r := range bs {
			b, err := NewBalancer(newPollShuffle, Env{Rank: r, Size: p, App: app, Seed: 5, Options: PSOptions{PairSync: pairSync}})
			if err != nil {
				t.Fatal(err)
			}
			bs[r] = b.(*pollShuffle)
			bs[r].Start(app.Root())
		}
		for _, b := range bs {
			queue = append(queue, b.Outbox()...)
		}
		reports, nodes, cycles := 0, int64(0), 0
		for round := 0; ; round++ {
			if round > 1<<20 {
				t.Fatalf("pair sync %v: no end", pairSync)
			}
			for len(queue) > 0 {
				m := queue[0]
				queue = queue[1:]
				if _, _, sub, _ := parseHeader(m.Data); m.Kind == KPair && sub == subReport {
					reports++
				}
				bs[m.To].Deliver(m)
				queue = append(queue, bs[m.To].Outbox()...)
			}
			done := 0
			for _, b := range bs {
				cycles = max(cycles, b.cycle+1)
				if b.Done() {
					done++
				}
			}
			if done == p {
				break
			}
			for _, b := range bs {
				if task := b.Task(); task != nil {
					k := task.Work(16)
					nodes += k
					b.Tick(k)
				}
				queue = append(queue, b.Outbox()...)
			}
		}
		if nodes != n {
			t.Fatalf("pair sync %v: %d nodes worked, the tree has %d", pairSync, nodes, n)
		}
		if reports%(p-1) != 0 {
			t.Fatalf("pair sync %v: %d reports, not a whole number of synchronisations of %d ranks", pairSync, reports, p)
		}
		syncs := reports / (p - 1)
		t.Logf("pair sync %v: %d synchronisations in %d cycles of %d phases", pairSync, syncs, cycles, dims)
		if pairSync && syncs != cycles || !pairSync && (syncs <= (cycles-1)*dims || syncs > cycles*dims) {
			t.Errorf("pair sync %v: %d synchronisations in %d cycles of %d phases; want one a %s", pairSync, syncs, cycles, dims, map[bool]string{false: "phase", true: "cycle"}[pairSync])
		}
	}
}

// TestPollShuffleSeedsIndependent: the shuffles of a run are drawn from its
// seed and the cycle together, so that the repeats of a campaign over
// consecutive seeds are independent: no two (seed, cycle) pairs of eight
// seeds and eight cycles share a shuffle (P = 1024, where two independent
// permutations agree on their first eight images with probability about
// 10⁻²⁴). The seed once took the cycle added to it, and the run of seed 1
// shuffled at cycle 1 as the run of seed 2 at cycle 0.
func TestPollShuffleSeedsIndependent(t *testing.T) {
	b, err := NewBalancer(newPollShuffle, Env{Rank: 0, Size: 1024, App: rangeApp{1}})
	if err != nil {
		t.Fatal(err)
	}
	ps := b.(*pollShuffle)
	seen := map[[8]int]string{}
	for seed := uint64(1); seed <= 8; seed++ {
		ps.env.Seed = seed
		for cycle := range 8 {
			pi := shuffleOf(ps, cycle)
			var key [8]int
			for i := range key {
				key[i] = pi.at(i)
			}
			here := fmt.Sprintf("seed %d cycle %d", seed, cycle)
			if there, ok := seen[key]; ok {
				t.Fatalf("%s shuffles as %s", here, there)
			}
			seen[key] = here
		}
	}
}
