package lb

import "fmt"

// RankState is what one rank can say about itself: whether it holds work,
// whether it waits for the answer to a request of its own, and where it
// stands in the termination protocol (core.go). A world prints it when the
// rank seems to hang (lb/driver's stall watchdog); it is a snapshot, read
// on the rank's own goroutine.
type RankState struct {
	Rank, Size int
	// Working: the rank holds a task. Outstanding: it waits for the answer
	// to a request of its own, the last one sent to rank Asked (-1: it
	// sent none). Held: throttling holds a request back.
	Working     bool
	Outstanding bool
	Asked       int
	Held        bool
	// Phase is the rank's step of termination detection: "searching"
	// (no wave is on at the rank), "wave" (a wave is on: Reports of
	// Children reports from its subtree came), "terminating" (no work is
	// left; Drained of Children subtrees drained), "drained" (it told
	// its parent and waits for the exit) or "done".
	Phase            string
	Reports, Drained int
	Children         int
	Sent, Received   int64 // the counted messages of termination detection
	Suspended        bool  // the search is being suspended for a checkpoint
	Stopped          bool  // the search was stopped globally
	Nodes, Requests  int64 // nodes expanded, requests sent
	Answered         int64 // requests of other ranks received
	Messages         int64 // messages sent
}

// String says it in one line.
func (s RankState) String() string {
	what := "idle"
	if s.Working {
		what = "working"
	}
	switch {
	case s.Outstanding && s.Asked >= 0:
		what += fmt.Sprintf(", waiting for the answer to its request to rank %d", s.Asked)
	case s.Outstanding:
		what += ", waiting for the answer to a request"
	default:
		what += ", no request outstanding"
	}
	if s.Held {
		what += " (a request held back by throttling)"
	}
	term := s.Phase
	switch s.Phase {
	case "wave":
		term = fmt.Sprintf("wave on, %d of %d subtree reports in", s.Reports, s.Children)
	case "terminating":
		term = fmt.Sprintf("terminating, %d of %d subtrees drained", s.Drained, s.Children)
	case "drained":
		term = "drained, waiting for the exit"
	}
	if s.Suspended {
		term += ", suspending for a checkpoint"
	}
	if s.Stopped {
		term += ", stopped"
	}
	return fmt.Sprintf("rank %d of %d: %s; termination: %s (counted messages sent %d, received %d); %d nodes, %d messages sent, %d requests sent, %d received",
		s.Rank, s.Size, what, term, s.Sent, s.Received, s.Nodes, s.Messages, s.Requests, s.Answered)
}

// State returns the rank's state (RankState), for a world that suspects
// it hangs.
func (r *Rank) State() RankState {
	st := r.b.Stats()
	s := RankState{Rank: int(r.rank), Size: int(r.size), Asked: -1, Held: r.holding, Phase: "searching",
		Nodes: st.Nodes, Requests: st.RequestsSent, Answered: st.RequestsRecv, Messages: st.MessagesSent}
	if r.x.asked > 0 {
		s.Asked = int(r.x.asked - 1)
	}
	if c, ok := r.b.(interface{ coreState() *core }); ok {
		c.coreState().state(&s)
	} else {
		s.Working = r.b.Task() != nil
		if r.b.Done() {
			s.Phase = "done"
		}
	}
	return s
}

// coreState returns the core, for Rank.State: every balancer that embeds
// a core has it.
func (c *core) coreState() *core { return c }

// state fills in what the core knows.
func (c *core) state(s *RankState) {
	if c.working != nil {
		s.Working = c.working()
	} else {
		s.Working = !c.idle()
	}
	s.Outstanding = c.outstanding()
	_, s.Children = c.children()
	s.Sent, s.Received = c.sent, c.recv
	s.Reports, s.Drained = c.reports, c.drainedKids
	s.Suspended, s.Stopped = c.suspended, c.stopped
	switch {
	case c.done:
		s.Phase = "done"
	case c.drainSent:
		s.Phase = "drained"
	case c.terminating:
		s.Phase = "terminating"
	case c.waveActive:
		s.Phase = "wave"
	}
}
