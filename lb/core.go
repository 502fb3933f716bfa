package lb

import (
	"encoding/binary"
	"math/bits"
)

// core is what every balancer shares: the outbox and counters, four-counter
// termination detection with a drain wave, incumbent broadcasts and the
// global stop. A balancer embeds it, sets idle and outstanding, routes
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
	// working, when set, reports that the rank holds work, for progress
	// reports, where idle means something else (poll-and-shuffle's).
	idle        func() bool
	outstanding func() bool
	working     func() bool

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

	bounded  Bounded // the app's bound, nil without one
	sense    Sense
	bound    int64 // best incumbent known and broadcast, if hasBound
	hasBound bool
	stopper  Stopper // the app's early stop, nil without one
	stopped  bool    // the search was stopped globally

	status status // progress reports (progress.go)
}

func (c *core) init(env Env) {
	c.env, c.rank, c.size = env, env.Rank, env.Size
	c.stats.Rank = env.Rank
	if b, ok := env.App.(Bounded); ok {
		c.bounded, c.sense = b, b.Sense()
		// The incumbent before the search is every rank's (the problem is
		// known to all): only what a rank finds is worth a broadcast.
		c.bound, c.hasBound = b.Incumbent()
	}
	c.stopper, _ = env.App.(Stopper)
}

// worked counts a work slice of nodes; balancers call it from Tick.
func (c *core) worked(nodes int64) {
	c.stats.Nodes += nodes
	c.stats.Slices++
}

// better reports whether v is at least as good as every bound this rank
// knows of: the broadcast ones and its app's own incumbent.
func (c *core) better(v int64) bool {
	if c.hasBound && c.sense.Better(c.bound, v) {
		return false
	}
	own, ok := c.bounded.Incumbent()
	return !ok || !c.sense.Better(own, v)
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
		if c.bounded != nil && c.better(v) {
			c.bounded.Improve(v)
			c.bound, c.hasBound = v, true
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
	case KStatus, KStatusReply:
		c.handleStatus(m)
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
	if !c.stopped && c.stopper != nil && c.stopper.Solved() {
		c.stopped = true
		c.forward(c.rank, KStop, binary.AppendUvarint(nil, uint64(c.rank)))
	}
	if c.bounded != nil {
		if v, ok := c.bounded.Incumbent(); ok && (!c.hasBound || c.sense.Better(v, c.bound)) {
			c.bound, c.hasBound = v, true
			d := binary.AppendUvarint(nil, uint64(c.rank))
			c.forward(c.rank, KBound, binary.AppendVarint(d, v))
		}
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
	if c.terminating && !c.drainSent && c.drainedKids == nkids && !c.outstanding() && !c.status.pending {
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
