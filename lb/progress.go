package lb

import "encoding/binary"

// Progress is a snapshot of a running computation, gathered from the
// running balancers without stopping them: rank 0 asks down the
// heap-ordered tree of termination detection, and every rank answers with
// its subtree's sums once its children answered, between two work slices.
// The zero value is no snapshot.
type Progress struct {
	Nodes     int64 // nodes expanded so far on all ranks
	Busy      int   // ranks that had work when they answered
	Ranks     int   // ranks asked: all of them
	Incumbent int64 // the best bound rank 0 knows, when HasBound
	HasBound  bool
}

// Progresser is implemented by the balancers that take part in progress
// reports (every registered one does). A driver calls RequestProgress on
// rank 0, about once a second, and reads the latest complete snapshot with
// Progress.
type Progresser interface {
	// RequestProgress starts a new snapshot unless one is under way or the
	// search is ending; on rank 0 only.
	RequestProgress()
	// Progress returns the latest complete snapshot, and false before the
	// first.
	Progress() (Progress, bool)
}

// status is a rank's part in progress reports.
type status struct {
	pending bool  // asked, and waiting for the children's answers
	replies int   // children that answered
	nodes   int64 // sums of the answers
	busy    int64
	last    Progress // rank 0: the latest complete snapshot
	have    bool
}

// RequestProgress starts a snapshot on rank 0.
func (c *core) RequestProgress() {
	if c.rank != 0 || c.status.pending || c.terminating || c.done {
		return
	}
	c.startStatus()
	c.finishStatus()
}

// Progress returns rank 0's latest complete snapshot.
func (c *core) Progress() (Progress, bool) { return c.status.last, c.status.have }

// startStatus asks the children for their subtrees' sums.
func (c *core) startStatus() {
	c.status = status{pending: true, last: c.status.last, have: c.status.have}
	first, n := c.children()
	for i := range n {
		c.send(first+i, KStatus, nil)
	}
}

// handleStatus handles a question from the parent or an answer from a
// child.
func (c *core) handleStatus(m Msg) {
	if m.Kind == KStatus {
		c.startStatus()
	} else {
		nodes, k := binary.Uvarint(m.Data)
		busy, _ := binary.Uvarint(m.Data[k:])
		c.status.nodes += int64(nodes)
		c.status.busy += int64(busy)
		c.status.replies++
	}
	c.finishStatus()
}

// finishStatus answers the parent, or completes the snapshot on rank 0,
// once every child answered.
func (c *core) finishStatus() {
	s := &c.status
	if _, n := c.children(); !s.pending || s.replies < n {
		return
	}
	s.pending = false
	nodes, busy := s.nodes+c.stats.Nodes, s.busy
	if c.working != nil && c.working() || c.working == nil && !c.idle() {
		busy++
	}
	if c.rank != 0 {
		c.send((c.rank-1)/2, KStatusReply, binary.AppendUvarint(binary.AppendUvarint(nil, uint64(nodes)), uint64(busy)))
		return
	}
	s.last = Progress{Nodes: nodes, Busy: int(busy), Ranks: c.size, Incumbent: c.bound, HasBound: c.hasBound}
	s.have = true
}
