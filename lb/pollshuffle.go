package lb

import (
	"encoding/binary"
	"math/bits"
)

// pollShuffle is poll-and-shuffle on a log P-dimensional hypercube (seed
// 002, §5, Fig. 2). Ranks work in phases of one slice; after phase i an idle
// rank is paired with its neighbour along dimension i, which splits its
// subproblem for it; after the log P phases of a cycle the subproblems are
// permuted randomly across ranks. Phases end with a global synchronisation,
// a reduction up the heap-ordered tree and a broadcast down, built from the
// balancer's own messages; it also counts the busy ranks and the counted
// messages, which detects termination (two syncs in a row with no busy rank
// and equal sums, sent = received) and the utilisation.
//
// When P is not a power of two the cube is partial: a rank whose partner
// r⊕2^i does not exist skips the exchange of phase i. The ranks 0..P−1 of a
// partial cube stay connected, and the shuffles mix across all of them.
//
// Refinements of §5.3, as options: PairSync synchronises only the pair after
// each phase and all ranks once per cycle, and lets busy ranks go on working
// while they wait; AskLower lets a rank still idle after phase i ask its
// neighbour along a random dimension j < i; ShuffleBelow permutes only when
// the utilisation is low.
type pollShuffle struct {
	core
	opt   PSOptions
	task  Task
	dims  int
	cycle int
	phase int
	state psState

	sliceDone bool  // the work slice of this phase is done
	inbox     []Msg // phase messages not yet consumed
	reported  bool
	askTo     int
	partner   int
	announced bool // the busy flag sent to the partner, which it acts on
}

type psState int

const (
	psWork      psState = iota // work one slice
	psExchange                 // wait for the partner's status
	psWaitPiece                // wait for the partner's piece
	psAsk                      // wait for the reply of a lower dimension
	psSync                     // global synchronisation
	psShuffle                  // wait for the shuffled-in subproblem
)

// Subtypes of poll-and-shuffle messages, after the cycle and phase.
const (
	subStatus  = iota // busy flag
	subPiece          // the partner's piece (KWork) or none (KReject)
	subReply          // answer to a request along a lower dimension
	subReport         // up the tree: busy, sent, received
	subNext           // down the tree: flags
	subShuffle        // a shuffled subproblem (KWork) or none (KPair)
)

const (
	flagTerminate = 1 << iota
	flagShuffle
)

func newPollShuffle(env Env) (Balancer, error) {
	o, err := optionsOf[PSOptions](env, "ps")
	if err != nil {
		return nil, err
	}
	b := &pollShuffle{dims: bits.Len(uint(env.Size - 1)), opt: o}
	b.init(env)
	if env.Size == 1 {
		b.idle = func() bool { return b.Task() == nil }
	} else {
		b.idle = func() bool { return false } // termination is the syncs'
	}
	b.outstanding = func() bool { return false }
	b.working = b.busy
	return b, nil
}

func (b *pollShuffle) header(sub byte) []byte {
	return append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(b.cycle)), uint64(b.phase)), sub)
}

func parseHeader(d []byte) (cycle, phase int, sub byte, rest []byte) {
	c, n := binary.Uvarint(d)
	p, k := binary.Uvarint(d[n:])
	return int(c), int(p), d[n+k], d[n+k+1:]
}

// NeedsRoot reports whether this rank starts from the root (RootOptional):
// rank 0, or every rank with fast initialisation.
func (b *pollShuffle) NeedsRoot() bool { return b.opt.FastInit || b.rank == 0 }

func (b *pollShuffle) Start(root Task) {
	if b.opt.FastInit {
		b.task = fastInitPiece(root, b.rank, b.size, b.env.cuts)
	} else if b.rank == 0 {
		b.task = root
	}
	b.advance()
}

// holds reports whether the rank holds work; busy whether it may work on
// it (not while the search is suspending).
func (b *pollShuffle) holds() bool { return b.task != nil && !b.task.Empty() && !b.stopped }

func (b *pollShuffle) busy() bool { return b.holds() && !b.suspended }

// Suspend starts suspending the search (Suspender).
func (b *pollShuffle) Suspend() {
	b.suspend()
	b.advance()
}

// Open returns the open tasks once the search is done (Suspender).
func (b *pollShuffle) Open() []Task { return openTasks(b.task, nil) }

// StartWith begins with a share of a suspended search (Suspender).
func (b *pollShuffle) StartWith(t Task) {
	b.task = t
	b.advance()
}

// Task returns the subproblem while the rank may work: in the work phase, and
// with PairSync also while it waits.
func (b *pollShuffle) Task() Task {
	if !b.busy() || b.done {
		return nil
	}
	if b.state == psWork && !b.sliceDone || b.size == 1 ||
		b.opt.PairSync && (b.state == psExchange || b.state == psSync) {
		return b.task
	}
	return nil
}

func (b *pollShuffle) Tick(nodes int64) {
	b.worked(nodes)
	if b.state == psWork {
		b.sliceDone = true
	}
	b.advance()
}

func (b *pollShuffle) Deliver(m Msg) {
	if !b.handle(m) {
		if m.Kind == KRequest {
			b.answerRequest(m)
		} else {
			b.inbox = append(b.inbox, m)
		}
	}
	b.advance()
}

// answerRequest answers a request along a lower dimension at once.
func (b *pollShuffle) answerRequest(m Msg) {
	b.stats.RequestsRecv++
	cycle, phase, _, _ := parseHeader(m.Data)
	h := append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(cycle)), uint64(phase)), subReply)
	if b.busy() {
		if piece := splitEven(b.task); piece != nil && !piece.Empty() {
			b.stats.Splits++
			b.sendTask(m.From, h, piece)
			return
		}
	}
	b.stats.RequestsReject++
	b.send(m.From, KReject, h)
}

// adopt decodes a task from another rank and takes it on, with the work
// the rank still holds (a suspending rank may hold some).
func (b *pollShuffle) adopt(from int, rest []byte) {
	if t := b.unpack(from, rest); t != nil && !b.stopped {
		b.task = join(b.task, t)
	}
}

// take removes and returns the message from rank `from` of this cycle and
// phase with subtype sub.
func (b *pollShuffle) take(from int, sub byte) (Msg, []byte, bool) {
	for i, m := range b.inbox {
		c, p, s, rest := parseHeader(m.Data)
		if m.From == from && c == b.cycle && p == b.phase && s == sub {
			b.inbox = append(b.inbox[:i], b.inbox[i+1:]...)
			return m, rest, true
		}
	}
	return Msg{}, nil, false
}

// advance runs the phase protocol as far as the messages at hand allow.
func (b *pollShuffle) advance() {
	defer b.progress()
	if b.size == 1 {
		return
	}
	for !b.done {
		switch b.state {
		case psWork:
			if b.busy() && !b.sliceDone {
				return
			}
			b.sliceDone = false
			b.partner = b.rank ^ 1<<b.phase
			if b.partner >= b.size {
				b.afterExchange()
				continue
			}
			b.announced = b.busy()
			busy := byte(0)
			if b.announced {
				busy = 1
			}
			b.send(b.partner, KPair, append(b.header(subStatus), busy))
			b.state = psExchange
		case psExchange:
			_, rest, ok := b.take(b.partner, subStatus)
			if !ok {
				return
			}
			// Act on the flag the partner saw: a rank that said busy and has
			// run dry since (or was stopped) still answers, with a rejection.
			partnerBusy := rest[0] == 1
			switch {
			case b.announced && !partnerBusy:
				b.stats.RequestsRecv++
				if !b.busy() {
					b.stats.RequestsReject++
					b.send(b.partner, KReject, b.header(subPiece))
				} else if piece := splitEven(b.task); piece != nil && !piece.Empty() {
					b.stats.Splits++
					b.sendTask(b.partner, b.header(subPiece), piece)
				} else {
					b.stats.RequestsReject++
					b.send(b.partner, KReject, b.header(subPiece))
				}
				b.afterExchange()
			case !b.announced && partnerBusy:
				b.stats.RequestsSent++
				b.state = psWaitPiece
			default:
				b.afterExchange()
			}
		case psWaitPiece:
			if !b.receiveTask(b.partner, subPiece) {
				return
			}
			b.afterExchange()
		case psAsk:
			if !b.receiveTask(b.askTo, subReply) {
				return
			}
			b.endPhase()
		case psSync:
			if !b.sync() {
				return
			}
		case psShuffle:
			if !b.receiveTask(b.shuffleSource(), subShuffle) {
				return
			}
			b.nextCycle()
		}
	}
}

// receiveTask takes the message from rank from with subtype sub and adopts
// the task it carries, if any; it reports whether the message was there.
func (b *pollShuffle) receiveTask(from int, sub byte) bool {
	m, rest, ok := b.take(from, sub)
	if ok && m.Kind == KWork {
		b.adopt(from, rest)
	}
	return ok
}

// afterExchange asks along a lower dimension when still idle (AskLower),
// then ends the phase.
func (b *pollShuffle) afterExchange() {
	if b.opt.AskLower && !b.busy() && !b.stopped && !b.suspended && b.phase > 0 {
		j := b.env.Rand.IntN(b.phase)
		if to := b.rank ^ 1<<j; to < b.size {
			b.askTo = to
			b.stats.RequestsSent++
			b.send(to, KRequest, b.header(subReply))
			b.state = psAsk
			return
		}
	}
	b.endPhase()
}

// endPhase synchronises all ranks, or with PairSync only at a cycle's end.
func (b *pollShuffle) endPhase() {
	if b.opt.PairSync && b.phase < b.dims-1 {
		b.phase++
		b.state = psWork
		return
	}
	b.state, b.reported = psSync, false
}

// sync runs the reduction of busy ranks and message counts up the tree and
// the decision down; it reports whether the phase is over.
func (b *pollShuffle) sync() bool {
	first, nkids := b.children()
	if !b.reported {
		var busy, s, r int64
		if b.busy() {
			busy = 1
		}
		s, r = b.sent, b.recv
		got := 0
		for _, m := range b.inbox {
			c, p, sub, _ := parseHeader(m.Data)
			if c == b.cycle && p == b.phase && sub == subReport {
				got++
			}
		}
		if got < nkids {
			return false
		}
		for i := range nkids {
			_, rest, _ := b.take(first+i, subReport)
			v, n := binary.Uvarint(rest)
			sv, k := binary.Uvarint(rest[n:])
			rv, _ := binary.Uvarint(rest[n+k:])
			busy, s, r = busy+int64(v), s+int64(sv), r+int64(rv)
		}
		b.reported = true
		if b.rank != 0 {
			d := binary.AppendUvarint(b.header(subReport), uint64(busy))
			d = binary.AppendUvarint(binary.AppendUvarint(d, uint64(s)), uint64(r))
			b.send((b.rank-1)/2, KPair, d)
		} else {
			flags := byte(0)
			if busy == 0 && s == r && b.havePrev && s == b.prevS && r == b.prevR {
				flags |= flagTerminate
			}
			b.havePrev, b.prevS, b.prevR = busy == 0, s, r
			if b.phase == b.dims-1 && !b.suspended && (b.opt.ShuffleBelow <= 0 || float64(busy) < b.opt.ShuffleBelow*float64(b.size)) {
				flags |= flagShuffle
			}
			b.next(flags)
			return true
		}
	}
	_, rest, ok := b.take((b.rank-1)/2, subNext)
	if !ok {
		return false
	}
	b.next(rest[0])
	return true
}

// next forwards the decision of the phase to the children and applies it.
func (b *pollShuffle) next(flags byte) {
	first, nkids := b.children()
	for i := range nkids {
		b.send(first+i, KPair, append(b.header(subNext), flags))
	}
	switch {
	case flags&flagTerminate != 0:
		b.done = true
	case flags&flagShuffle != 0:
		pi := b.shufflePerm()
		to := pi.at(b.rank)
		// A suspending rank sends its work too (the decision was taken
		// before rank 0 suspended); a resumed share sends one task and
		// keeps the rest.
		var keep Task
		if bg, ok := b.task.(*bag); ok && !b.stopped {
			if t := bg.take(); t != nil {
				b.task, keep = t, bg
			} else if len(bg.ts) == 1 {
				b.task = bg.ts[0]
			}
		}
		if b.holds() {
			b.sendTask(to, b.header(subShuffle), b.task)
		} else {
			b.send(to, KPair, b.header(subShuffle))
		}
		b.task = keep
		b.state = psShuffle
	default:
		b.phase++
		if b.phase == b.dims {
			b.nextCycle()
		} else {
			b.state = psWork
		}
	}
}

// shufflePerm is the permutation of the shuffle after this cycle, the same
// on every rank. The cycle goes into the generator's second word, beside
// the seed, so that every (seed, cycle) draws its own permutation: with the
// cycle added to the seed, as before, the run of seed s shuffled at cycle
// c+1 as the run of seed s+1 at cycle c, and repeats over consecutive
// seeds were not independent (TestPollShuffleSeedsIndependent).
func (b *pollShuffle) shufflePerm() rankPerm {
	return newRankPerm(b.env.Seed, psShuffleSalt|uint64(b.cycle), b.size)
}

// psShuffleSalt marks the shuffles' generator words in their top bits; the
// cycle fills the bits below.
const psShuffleSalt = uint64(0x5f1e) << 48

// shuffleSource is the rank whose subproblem comes to this one, π⁻¹(rank).
func (b *pollShuffle) shuffleSource() int {
	pi := b.shufflePerm()
	return pi.inv(b.rank)
}

func (b *pollShuffle) nextCycle() {
	b.cycle++
	b.phase = 0
	b.state = psWork
}
