package lb

import (
	"encoding/binary"
	"math/bits"
)

// core is what every balancer shares: the outbox and counters, four-counter
// termination detection with a drain wave, incumbent broadcasts and the
// global stop. A balancer embeds it, sets idle and busyWaiting, routes
// unknown messages through handle and calls progress after every event.
//
// Termination (seed 002, §4): every rank counts the work, bound, stop and
// load messages it sent and received. Rank 0 starts waves down the heap-ordered
// tree (children 2r+1, 2r+2); a rank reports the sums of its subtree to its
// parent once it is idle and all its children reported. Two consecutive
// waves with equal sums, sent = received, mean no work is left, not even in
// transit. Then a terminate wave goes down and a drain wave comes up: a
// rank is drained when it waits for no reply to a request of its own; when
// all are, rank 0 sends exit down the tree, and every rank is done with no
// message in flight.
type core struct {
	env   Env
	rank  int
	size  int
	stats Stats
	out   []Msg

	// idle reports that the rank has no work; outstanding that it still
	// waits for a reply to a request of its own (both set by the balancer).
	idle        func() bool
	outstanding func() bool

	sent, recv int64 // counted messages

	waveActive   bool
	reports      int
	sumS, sumR   int64
	prevS, prevR int64
	havePrev     bool

	terminating bool
	drainedKids int
	drainSent   bool
	done        bool

	bound   int64 // best incumbent known and broadcast
	stopped bool  // the search was stopped globally
}

func (c *core) init(env Env) {
	c.env, c.rank, c.size = env, env.Rank, env.Size
	c.stats.Rank = env.Rank
	c.bound = NoBound
}

func (c *core) children() (first, n int) {
	first = 2*c.rank + 1
	n = max(0, min(2, c.size-first))
	return first, n
}

func counted(k Kind) bool { return k == KWork || k == KBound || k == KStop || k == KLoad }

// send queues a message.
func (c *core) send(to int, k Kind, data []byte) {
	if counted(k) {
		c.sent++
	}
	c.stats.MessagesSent++
	c.stats.BytesSent += int64(len(data))
	c.out = append(c.out, Msg{From: c.rank, To: to, Kind: k, Data: data})
}

func (c *core) Outbox() []Msg {
	out := c.out
	c.out = nil
	return out
}

func (c *core) Done() bool { return c.done }

func (c *core) Stats() *Stats { return &c.stats }

// handle consumes the messages every balancer treats alike and counts the
// counted ones; it reports whether m was consumed.
func (c *core) handle(m Msg) bool {
	if counted(m.Kind) {
		c.recv++
	}
	switch m.Kind {
	case KBound:
		origin, n := binary.Uvarint(m.Data)
		v, _ := binary.Varint(m.Data[n:])
		if v <= c.bound && v <= c.env.App.Incumbent() {
			c.env.App.Improve(v)
			c.bound = v
			c.forward(int(origin), KBound, m.Data)
		}
	case KStop:
		origin, _ := binary.Uvarint(m.Data)
		c.stopped = true
		c.forward(int(origin), KStop, m.Data)
	case KWave:
		c.waveActive, c.reports, c.sumS, c.sumR = true, 0, 0, 0
		first, n := c.children()
		for i := range n {
			c.send(first+i, KWave, nil)
		}
	case KReport:
		s, k := binary.Uvarint(m.Data)
		r, _ := binary.Uvarint(m.Data[k:])
		c.sumS += int64(s)
		c.sumR += int64(r)
		c.reports++
	case KTerminate:
		c.startTerminate()
	case KDrained:
		c.drainedKids++
	case KExit:
		first, n := c.children()
		for i := range n {
			c.send(first+i, KExit, nil)
		}
		c.done = true
	default:
		return false
	}
	return true
}

// forward passes a broadcast from origin on to this rank's children in the
// binomial tree rooted at origin.
func (c *core) forward(origin int, k Kind, data []byte) {
	p := c.size
	vr := (c.rank - origin + p) % p
	for j := bits.Len(uint(vr)); vr|1<<j < p; j++ {
		c.send((vr|1<<j+origin)%p, k, data)
	}
}

func (c *core) startTerminate() {
	c.terminating = true
	first, n := c.children()
	for i := range n {
		c.send(first+i, KTerminate, nil)
	}
}

// progress broadcasts a better incumbent or a stop, and advances
// termination detection. Balancers call it after every event.
func (c *core) progress() {
	if c.done {
		return
	}
	if !c.stopped && c.env.App.Solved() {
		c.stopped = true
		c.forward(c.rank, KStop, binary.AppendUvarint(nil, uint64(c.rank)))
	}
	if v := c.env.App.Incumbent(); v < c.bound {
		c.bound = v
		d := binary.AppendUvarint(nil, uint64(c.rank))
		c.forward(c.rank, KBound, binary.AppendVarint(d, v))
	}
	first, nkids := c.children()
	for !c.terminating && c.idle() {
		if c.rank == 0 && !c.waveActive {
			c.waveActive, c.reports, c.sumS, c.sumR = true, 0, 0, 0
			for i := range nkids {
				c.send(first+i, KWave, nil)
			}
		}
		if !c.waveActive || c.reports < nkids {
			break
		}
		c.waveActive = false
		s, r := c.sumS+c.sent, c.sumR+c.recv
		if c.rank != 0 {
			c.send((c.rank-1)/2, KReport, binary.AppendUvarint(binary.AppendUvarint(nil, uint64(s)), uint64(r)))
			break
		}
		if s == r && c.havePrev && s == c.prevS && r == c.prevR {
			c.startTerminate()
			break
		}
		c.prevS, c.prevR, c.havePrev = s, r, true
	}
	if c.terminating && !c.drainSent && c.drainedKids == nkids && !c.outstanding() {
		c.drainSent = true
		if c.rank != 0 {
			c.send((c.rank-1)/2, KDrained, nil)
			return
		}
		for i := range nkids {
			c.send(first+i, KExit, nil)
		}
		c.done = true
	}
}

// fastInitPiece splits root ⌈log2 P⌉ times following the bits of rank, from
// the highest, keeping the given-away part where the bit is 1 (seed 002,
// §4.3). Where a group of ranks has no upper half (P not a power of two),
// its lower half keeps the whole task. Every rank computes its piece alone;
// the pieces are disjoint and cover the tree.
func fastInitPiece(root Task, rank, size int) Task {
	t := root
	for j := bits.Len(uint(size-1)) - 1; j >= 0 && t != nil; j-- {
		// The ranks that agree on the bits above j hold the same t; its
		// lower half (bit j = 0) keeps it, its upper half takes the piece.
		mask := 1 << j
		if rank&^(mask<<1-1)|mask >= size {
			continue // no upper half: keep all
		}
		if piece := t.Split(); rank&mask != 0 {
			t = piece
		}
	}
	return t
}
