package lb

// The drain variant of random polling's queue control (seed 002, §4.2): "a
// radical approach would be to interrupt the normal computation when any
// queue length exceeds c·√P for some constant c in order to drain the
// system of all requests". A rank that meets more than the queue limit
// (c·√P) of requests within one polling interval while it holds work stops
// working, rejects every request and tells rank 0 (KQueueFull, counted by
// termination detection, so none is in flight when the search ends). Rank
// 0 starts a drain, unless one is under way: a start goes down the
// heap-ordered tree (children 2r+1, 2r+2); a rank that receives it stops
// working, stops asking and rejects every request; once its own request
// is answered and its children reported, it reports drained to its
// parent. When rank 0 has every report, no request is left anywhere (none
// is sent while draining, every one sent before was answered), and a
// resume goes down the tree: work and polling start again. A draining
// rank counts as busy for termination detection, so the search cannot end
// during a drain and no drain message outlives it.

// The phases of a drain, the first byte of a KQueueDrain message.
const (
	drainStart  byte = iota // down the tree: stop and reject
	drainDone               // up the tree: the subtree holds no request
	drainResume             // down the tree: work again
)

// drainer is the state of the drain protocol on one rank.
type drainer struct {
	draining bool // not working, rejecting, not asking
	inDrain  bool // a start arrived (rank 0: a drain is under way)
	kids     int  // children that reported drained
	reported bool // this rank reported drained (rank 0: sent the resume)
}

// queueFull is called when a rank holding work met too many requests: it
// starts draining and tells rank 0, or, on rank 0, starts a drain.
func (b *randomPolling) queueFull() {
	d := b.drain
	if d.draining {
		return
	}
	d.draining = true
	if b.rank == 0 {
		b.startDrain()
		return
	}
	b.send(0, KQueueFull, nil)
}

// startDrain starts a drain on this rank and sends the start on.
func (b *randomPolling) startDrain() {
	d := b.drain
	d.draining, d.inDrain, d.kids, d.reported = true, true, 0, false
	b.drainDown(drainStart)
}

func (b *randomPolling) drainDown(phase byte) {
	first, n := b.children()
	for i := range n {
		b.send(first+i, KQueueDrain, []byte{phase})
	}
}

// drainMsg handles a KQueueFull or KQueueDrain message.
func (b *randomPolling) drainMsg(m Msg) {
	d := b.drain
	if m.Kind == KQueueFull {
		if !d.inDrain { // a full queue met during a drain is being drained
			b.startDrain()
		}
		return
	}
	if len(m.Data) != 1 {
		return
	}
	switch m.Data[0] {
	case drainStart:
		b.startDrain()
	case drainDone:
		d.kids++
	case drainResume:
		b.resumeDrain()
	}
}

func (b *randomPolling) resumeDrain() {
	d := b.drain
	d.draining, d.inDrain = false, false
	b.reqInSlice = 0
	b.drainDown(drainResume)
}

// drainProgress reports drained up the tree once the rank's request is
// answered and its children reported; rank 0 then resumes everyone.
func (b *randomPolling) drainProgress() {
	d := b.drain
	_, n := b.children()
	if !d.inDrain || d.reported || d.kids < n || b.waiting {
		return
	}
	d.reported = true
	if b.rank != 0 {
		b.send((b.rank-1)/2, KQueueDrain, []byte{drainDone})
		return
	}
	b.resumeDrain()
}
