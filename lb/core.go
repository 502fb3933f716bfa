package lb

import "encoding/binary"

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
	env     Env
	rank    int
	size    int
	stats   Stats
	out     []Msg
	lastOut int // the length of the batch Outbox returned last

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
	bound    int64 // best incumbent known on this rank, if hasBound
	hasBound bool
	// told[i] is the best incumbent the neighbour i in the spreading tree
	// (0 the parent, 1..spreadFanout the children) is known to know: sent
	// to it or received from it, if hasTold[i].
	told    [spreadFanout + 1]int64
	hasTold [spreadFanout + 1]bool
	stopper Stopper // the app's early stop, nil without one
	stopped bool    // the search was stopped globally
	news    bool    // the bound improved or the stop came since the last spread
	// stopTold[i]: neighbour i sent or was sent the stop.
	stopTold [spreadFanout + 1]bool
	// suspended: the search is being suspended for a checkpoint (suspend.go);
	// suspTold[i]: neighbour i sent or was sent the suspension.
	suspended bool
	suspTold  [spreadFanout + 1]bool

	status status // progress reports (progress.go)

	taskErr error // the first encoding error of the app (failTask)
}

// spreadFanout is the number of children of a rank in the tree that
// spreads incumbents and stops: rank r's children are k·r+1 … k·r+k. A
// value crosses at most 2·⌈log_k P⌉ edges (8 at P = 4096), and a busy rank
// passes it on only between work slices, so a flat tree spreads it in few
// slices; each rank sends at most k+1 messages per value.
const spreadFanout = 8

func (c *core) init(env Env) {
	c.env, c.rank, c.size = env, env.Rank, env.Size
	c.stats.Rank = env.Rank
	if b, ok := env.App.(Bounded); ok {
		c.bounded, c.sense = b, b.Sense()
		// The incumbent before the search is every rank's (the problem is
		// known to all): only what a rank finds is worth a broadcast.
		c.bound, c.hasBound = b.Incumbent()
		for i := range c.told {
			c.told[i], c.hasTold[i] = c.bound, c.hasBound
		}
	}
	c.stopper, _ = env.App.(Stopper)
}

// worked counts a work slice of nodes; balancers call it from Tick.
func (c *core) worked(nodes int64) {
	c.stats.Nodes += nodes
	c.stats.Slices++
}

func (c *core) children() (first, n int) {
	first = 2*c.rank + 1
	n = max(0, min(2, c.size-first))
	return first, n
}

func counted(k Kind) bool {
	return k == KWork || k == KBound || k == KStop || k == KSuspend || k == KLoad || k == KQueueFull
}

// send queues a message.
func (c *core) send(to int, k Kind, data []byte) {
	if counted(k) {
		c.sent++
	}
	c.stats.MessagesSent++
	c.stats.Messages[k]++
	c.stats.BytesSent += int64(len(data))
	c.out = append(c.out, Msg{From: c.rank, To: to, Kind: k, Data: data})
}

// Outbox returns the queued messages and empties the queue, whose storage
// the next sends reuse (Balancer.Outbox).
func (c *core) Outbox() []Msg {
	out := c.out
	// Drop the Data of the messages of the batch before that this one did
	// not overwrite; only those, so that an idle rank's empty outbox
	// touches no memory (issue 23: clearing the whole capacity each time
	// was a cache miss a turn at 65536 ranks).
	if c.lastOut > len(out) {
		clear(c.out[len(out):c.lastOut])
	}
	c.lastOut = len(out)
	c.out = c.out[:0]
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
		v, _ := binary.Varint(m.Data)
		if i := c.neighbour(m.From); i >= 0 && (!c.hasTold[i] || c.sense.Better(v, c.told[i])) {
			c.told[i], c.hasTold[i] = v, true
		}
		if c.bounded != nil && (!c.hasBound || c.sense.Better(v, c.bound)) {
			c.bounded.Improve(v)
			c.bound, c.hasBound, c.news = v, true, true
		}
	case KStop:
		if i := c.neighbour(m.From); i >= 0 {
			c.stopTold[i] = true
		}
		c.stopped, c.news = true, true
	case KSuspend:
		if i := c.neighbour(m.From); i >= 0 {
			c.suspTold[i] = true
		}
		c.suspended, c.news = true, true
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

// neighbour returns the index of rank r among this rank's neighbours in the
// spreading tree (0 the parent, 1..spreadFanout the children), or -1.
func (c *core) neighbour(r int) int {
	const k = spreadFanout
	switch {
	case c.rank > 0 && r == (c.rank-1)/k:
		return 0
	case r > k*c.rank && r <= k*c.rank+k:
		return r - k*c.rank
	}
	return -1
}

// neighbourRank returns the rank of neighbour i in the spreading tree, or
// -1 when there is none (the root's parent, missing children).
func (c *core) neighbourRank(i int) int {
	r := spreadFanout*c.rank + i
	if i == 0 {
		if c.rank == 0 {
			return -1
		}
		r = (c.rank - 1) / spreadFanout
	}
	if r >= c.size {
		return -1
	}
	return r
}

// stamp returns the incumbent this rank knows, encoded to piggyback on a
// message, or nil without one.
func (c *core) stamp() []byte {
	if !c.hasBound {
		return nil
	}
	return binary.AppendVarint(nil, c.bound)
}

// learn takes an incumbent piggybacked on a message (stamp); progress then
// spreads it along the tree where it is news.
func (c *core) learn(data []byte) {
	if c.bounded == nil || len(data) == 0 {
		return
	}
	v, n := binary.Varint(data)
	if n > 0 && (!c.hasBound || c.sense.Better(v, c.bound)) {
		c.bounded.Improve(v)
		c.bound, c.hasBound, c.news = v, true, true
	}
}

// spread floods the incumbent and the stop along the spreading tree: each
// tree edge carries a value only when it is better than every value the
// edge carried before, in either direction, so a value reaches every rank
// in at most 2·⌈log_k P⌉ hops, and D successive improvements cost at most
// 2·D·(P−1) messages however many ranks find them at once (the combination
// that keeps incumbent propagation within O(h·P) messages, seed 002 §6.3).
// The stop is one value: at most 2·(P−1) messages; so is the suspension.
func (c *core) spread() {
	for i := range spreadFanout + 1 {
		to := c.neighbourRank(i)
		if to < 0 {
			continue
		}
		if c.hasBound && (!c.hasTold[i] || c.sense.Better(c.bound, c.told[i])) {
			c.told[i], c.hasTold[i] = c.bound, true
			c.send(to, KBound, binary.AppendVarint(nil, c.bound))
		}
		if c.stopped && !c.stopTold[i] {
			c.stopTold[i] = true
			c.send(to, KStop, nil)
		}
		if c.suspended && !c.suspTold[i] {
			c.suspTold[i] = true
			c.send(to, KSuspend, nil)
		}
	}
}

func (c *core) startTerminate() {
	c.terminating = true
	first, n := c.children()
	for i := range n {
		c.send(first+i, KTerminate, nil)
	}
}

// progress spreads a better incumbent or a stop, and advances termination
// detection. Balancers call it after every event.
func (c *core) progress() {
	if c.done {
		return
	}
	if !c.stopped && c.stopper != nil && c.stopper.Solved() {
		c.stopped, c.news = true, true
	}
	if c.bounded != nil {
		if v, ok := c.bounded.Incumbent(); ok && (!c.hasBound || c.sense.Better(v, c.bound)) {
			c.bound, c.hasBound, c.news = v, true, true
		}
	}
	if c.news {
		c.news = false
		c.spread()
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
