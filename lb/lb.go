// Package lb balances the load of tree-shaped computations (seed 002, §2):
// an application supplies subproblems that can work for a bounded number of
// nodes, split into two disjoint parts and travel as bytes; a balancer,
// written as a deterministic state machine, decides who works on what.
//
// A Balancer takes messages and ticks in and puts messages out. It holds no
// goroutines, no clock and no global random source: randomness comes seeded
// per rank through Env. Rank is the engine of one rank (balancer, app,
// statistics, start and resume, checkpoint and progress requests,
// throttling, the end of a run), a state machine of the same kind, and a
// World runs a computation by driving a Rank per rank: package lb/driver
// over an *mpi.Comm (the embedded world of goroutine ranks, or real MPI),
// package lb/sim in a discrete-event simulator of up to 65536 ranks in one
// goroutine, which does the real work and charges virtual time as a Machine
// model says (node cost, the loop's polls, splits and per-message costs,
// LogP's overhead, latency and gap, bandwidth, a 2-D mesh with hops and
// link contention; Machines lists the unit step model, the Parsytec GCel
// and a cluster), and package lb/lockstep in synchronous steps. Run is the
// one way to run a computation in any world, so a solver written against a
// World runs unchanged in all of them.
//
// Termination is detected with the four-counter method over a tree-based
// asynchronous reduction (seed 002, §4), followed by a drain wave so that no
// message is in flight when Done becomes true. Incumbent bounds
// (branch-and-bound, the optional Bounded interface) and a global early stop
// (first solution, the optional Stopper interface) travel as counted
// messages along the edges of a flat tree (8 children per rank), each edge
// carrying only values better than it carried before, so that D
// improvements cost at most 2·D·(P−1) messages however many ranks find
// them.
//
// The package keeps no mutable package-level state: many ranks share one
// process in the embedded world and in the simulator.
//
// To start: this package's Example is a whole App (a Task and a Reducer)
// run on goroutine ranks; package skeleton turns a search written as a
// space of nodes and their children into an App, with runnable examples of
// one search run sequentially, on goroutine ranks and in the simulator;
// examples/nqueens is a whole command on package runner (its main.go: 80
// lines); docs/writing-an-app.md walks through an App of one's own,
// checked by lbtest.TestApp.
package lb

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Task is one subproblem of a tree-shaped computation. Tasks are used by one
// rank at a time and need not be safe for concurrent use.
type Task interface {
	// Work expands at most about budget nodes and returns how many it
	// expanded. It returns early when the task is exhausted. A task that
	// is not Empty after a Work that expanded nothing, or a negative
	// count, ends the run with an error in every world (it would spin for
	// ever: lbtest.TestApp checks it).
	Work(budget int64) int64
	// Empty reports whether no work is left in the task.
	Empty() bool
	// Split removes part of the remaining work from the receiver and
	// returns it as a new task covering a disjoint part of the tree, or nil
	// when the task cannot be split.
	Split() Task
	// AppendBinary appends the task's encoding to b. An error ends the
	// run: Run returns it, wrapped, in every world.
	AppendBinary(b []byte) ([]byte, error)
}

// Halver is implemented by a Task that can split in place, so that static
// placement and fast initialisation, which split a fresh root k times along
// every rank's paths (2^k leaves of k splits each), allocate no task per
// split.
type Halver interface {
	Task
	// Halve splits the task as Split would and keeps the part Split would
	// give away when give is true, the part Split would keep otherwise. It
	// reports whether Split would have given a part; when it would not, the
	// task is left as Split leaves it.
	Halve(give bool) bool
	// Reroot makes the task the whole problem again, as App.Root returns
	// it.
	Reroot()
}

// EvenSplitter is implemented by a Task whose Split may give away much less
// than half of its work on purpose, and that can also split evenly. A
// branch-and-bound search splits near its frontier (golomb's shortest
// ruler, the 15-puzzle's last iteration), so that the ranks search about
// where the sequential search does and learn its bounds in its order; a
// balancer that pays a global synchronisation for every exchange
// (poll-and-shuffle, seed 002 §5: a piece per phase) needs every split to
// give away a constant fraction of the work instead (α-splitting, seed 002
// §2), and calls SplitEven. Balancers that ask again at once when a piece
// runs dry (random polling) call Split.
type EvenSplitter interface {
	Task
	// SplitEven splits as Split does, but gives away about half of the
	// work (the shallowest level's alternatives), nil when nothing is left
	// to give.
	SplitEven() Task
}

// splitEven is what a balancer that needs α-splitting calls.
func splitEven(t Task) Task {
	if e, ok := t.(EvenSplitter); ok {
		return e.SplitEven()
	}
	return t.Split()
}

// Leveled is implemented by a Task that knows its depth in the search tree:
// the level of its shallowest open node, the root's being 0. Balancers that
// order tasks by depth (KOSO) use it, and count splits for tasks without it.
type Leveled interface {
	Level() int
}

// Loader is implemented by a balancer that keeps a queue of tasks, as KOSO
// and KOSO* do (seed 003 §2.2): Load is the number of tasks the rank holds,
// the one being worked on included. The simulator's trace records it per
// rank (Rank.Load).
type Loader interface {
	Load() int
}

// App is one rank's view of a problem: its root and how to decode tasks.
// Each rank has its own App value, which need not be safe for concurrent use.
// An App may also implement Bounded (branch-and-bound) and Stopper (the
// first solution ends the search); Run needs a Reducer, an App with a
// typed result.
type App interface {
	// Root returns the whole problem as a fresh task; every rank builds the
	// same one (the problem is known to all before the search starts).
	Root() Task
	// Unmarshal decodes a task encoded by Task.AppendBinary on any rank.
	// An error ends the run: Run returns it, wrapped, in every world.
	Unmarshal(b []byte) (Task, error)
}

// Reducer is an App whose ranks' results combine into one value of type R by
// one reduction after the search. R travels between ranks in its own
// encoding when *R implements encoding.BinaryUnmarshaler and R or *R
// encoding.BinaryMarshaler, otherwise with encoding/gob, which needs its
// fields exported.
type Reducer[R any] interface {
	App
	// Result returns this rank's part of the result.
	Result() R
	// Combine returns the combination of two results; it must be
	// associative and commutative.
	Combine(a, b R) R
}

// Sense says which incumbent values are better.
type Sense int

// The senses of an objective. The zero value is Minimize.
const (
	Minimize Sense = iota // lower values are better (shortest ruler)
	Maximize              // higher values are better (most profit)
)

// Better reports whether a is strictly better than b.
func (s Sense) Better(a, b int64) bool {
	if s == Maximize {
		return a > b
	}
	return a < b
}

// Bounded is implemented by an App that searches by branch-and-bound: a
// better incumbent found on one rank is spread to every rank by the
// balancer, so that all of them prune with it (seed 002, §6.3).
type Bounded interface {
	// Sense says whether lower or higher values are better; it never
	// changes.
	Sense() Sense
	// Incumbent returns the best objective value known on this rank, and
	// false while there is none.
	Incumbent() (v int64, ok bool)
	// Improve tells the app of a value found on another rank; the app
	// ignores it when it knows a better one.
	Improve(v int64)
}

// Stopper is implemented by an App for which one solution ends the whole
// search (first-solution search, the last iteration of IDA*).
type Stopper interface {
	// Solved reports whether this rank found such a solution.
	Solved() bool
}

// Kind is the kind of a balancer message; drivers use it as the MPI tag.
type Kind int

// Message kinds. Work, Bound, Stop, Suspend, Load and QueueFull messages are
// counted by termination detection; the others are control traffic.
const (
	KRequest     Kind = iota + 1 // ask for work
	KWork                        // a task
	KReject                      // no work for you
	KBound                       // a better incumbent: origin, value
	KStop                        // stop the whole search: origin
	KWave                        // termination wave down the tree: wave number
	KReport                      // wave report up the tree: wave, sent, received
	KTerminate                   // termination detected, drain
	KDrained                     // subtree drained
	KExit                        // all drained: done
	KPair                        // synchronous balancers: phase message
	KLoad                        // ring balancers: load information
	KStatus                      // progress: asked down the tree
	KStatusReply                 // progress: subtree's nodes and busy ranks, up the tree
	KSuspend                     // suspend the whole search for a checkpoint: origin
	KQueueFull                   // random polling's drain: a request queue grew too long, to rank 0
	KQueueDrain                  // random polling's drain: start, drained or resume, along the tree
	nKinds
)

// NumKinds is one more than the largest Kind: tags 1..NumKinds-1 are the
// balancers', and drivers may use tags from NumKinds on for their own
// traffic.
const NumKinds = int(nKinds)

var kindNames = [...]string{"?", "request", "work", "reject", "bound", "stop", "wave", "report",
	"terminate", "drained", "exit", "pair", "load", "status", "status-reply", "suspend",
	"queue-full", "queue-drain"}

// Counted reports whether termination detection counts messages of kind k:
// work, bounds, stops, suspensions, loads and full queues.
func (k Kind) Counted() bool { return counted(k) }

// String names the kind as messages and statistics print it ("request",
// "work", …).
func (k Kind) String() string {
	if k > 0 && k < nKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Msg is one message between ranks. Data belongs to the message once sent.
type Msg struct {
	From, To int
	Kind     Kind
	Data     []byte
}

// Env is what a balancer knows of its rank: its place in the world, its app,
// its seeded random source and its options.
type Env struct {
	Rank, Size int
	App        App
	Rand       *rand.Rand // this rank's own stream
	Seed       uint64     // the run's seed, the same on every rank (for shared permutations)
	// Options are the balancer's own options (its Info.Options type); nil
	// means its defaults.
	Options Options

	// cuts, when not nil, counts the in-place splits (Halver.Halve, or
	// Split on the way to a piece of the root) of static placement and
	// fast initialisation, which Stats.Splits does not count: Rank counts
	// them with the splits a world charges (Rank.Splits).
	cuts *int64
}

// NewRand returns the random source of a rank: a PCG seeded by the run's
// seed and the rank, so every rank has its own reproducible stream.
func NewRand(seed uint64, rank int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(rank)*0x9e3779b97f4a7c15+1))
}

// Balancer is a load balancer for one rank, a deterministic state machine.
// Its methods are called by one driver goroutine; it is not safe for
// concurrent use.
type Balancer interface {
	// Start begins the search with the root task: every rank gets it, but
	// for the ranks of a RootOptional balancer that do not need it (nil).
	Start(root Task)
	// Deliver hands over one message addressed to this rank.
	Deliver(m Msg)
	// Tick says one work slice on Task ended, having expanded nodes.
	Tick(nodes int64)
	// Task returns the task to work on next, or nil while the rank is idle
	// (the driver then blocks until a message arrives).
	Task() Task
	// Outbox returns the messages to send and clears the outbox. The
	// returned slice is valid until the next call of a method of the
	// balancer (the Msg values and their Data stay valid): callers send or
	// copy the messages at once.
	Outbox() []Msg
	// Done reports that the search ended on every rank and no message is in
	// flight; afterwards the balancer sends nothing.
	Done() bool
	// Stats returns the balancer's counters.
	Stats() *Stats
}

// KindCounts counts messages by kind, indexed by Kind (index 0 unused). It
// encodes in JSON as an object from the kinds' names to the non-zero counts.
type KindCounts [NumKinds]int64

// MarshalJSON encodes the non-zero counts as {"request": n, ...}, in the
// order of the kinds.
func (k KindCounts) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i := 1; i < NumKinds; i++ {
		if k[i] == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, Kind(i).String())
		b = append(b, ':')
		b = strconv.AppendInt(b, k[i], 10)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON decodes what MarshalJSON encodes; unknown kinds are an
// error.
func (k *KindCounts) UnmarshalJSON(b []byte) error {
	var m map[string]int64
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("lb: message counts: %w", err)
	}
	*k = KindCounts{}
	for name, n := range m {
		i := 1
		for i < NumKinds && Kind(i).String() != name {
			i++
		}
		if i == NumKinds {
			return fmt.Errorf("lb: message counts: unknown kind %q", name)
		}
		k[i] = n
	}
	return nil
}

// Total returns the sum of the counts.
func (k *KindCounts) Total() int64 {
	var t int64
	for _, n := range k {
		t += n
	}
	return t
}

// Stats counts what a rank did. Balancers count nodes, slices and messages;
// drivers fill in the times. The zero value counts nothing.
type Stats struct {
	Rank        int     `json:"rank"`
	WorkSeconds float64 `json:"work_seconds"`
	IdleSeconds float64 `json:"idle_seconds"`
	// IdleStartSeconds and IdleEndSeconds are the parts of IdleSeconds
	// before the rank's first work slice and after its last (Times).
	IdleStartSeconds float64 `json:"idle_start_seconds"`
	IdleEndSeconds   float64 `json:"idle_end_seconds"`
	Nodes            int64   `json:"nodes"`  // nodes expanded
	Slices           int64   `json:"slices"` // work slices (each ends with a poll)
	// RequestsSent, RequestsRecv and RequestsReject count the requests for
	// work this rank sent, received, and answered with no work.
	RequestsSent   int64 `json:"requests_sent"`
	RequestsRecv   int64 `json:"requests_received"`
	RequestsReject int64 `json:"requests_rejected"`
	Splits         int64 `json:"splits"`        // tasks split to give a part away
	TasksSent      int64 `json:"tasks_sent"`    // tasks sent to another rank
	MessagesSent   int64 `json:"messages_sent"` // every message sent (Messages by kind)
	BytesSent      int64 `json:"bytes_sent"`    // their payloads' bytes
	// MaxQueue is the longest queue the balancer kept, its meaning the
	// balancer's: under random polling (rp, rp-local, hybrid) the most
	// requests in one polling interval (seed 002 §4.2's queue), under koso
	// and koso-star the most tasks queued; 0 under ps and static.
	MaxQueue int64 `json:"max_queue"`
	// Messages counts the messages sent by kind; they sum to MessagesSent.
	Messages KindCounts `json:"messages_by_kind"`
}

// Add adds the counters of o to s (times and counts; MaxQueue is the max).
func (s *Stats) Add(o *Stats) {
	s.WorkSeconds += o.WorkSeconds
	s.IdleSeconds += o.IdleSeconds
	s.IdleStartSeconds += o.IdleStartSeconds
	s.IdleEndSeconds += o.IdleEndSeconds
	s.Nodes += o.Nodes
	s.Slices += o.Slices
	s.RequestsSent += o.RequestsSent
	s.RequestsRecv += o.RequestsRecv
	s.RequestsReject += o.RequestsReject
	s.Splits += o.Splits
	s.TasksSent += o.TasksSent
	s.MessagesSent += o.MessagesSent
	s.BytesSent += o.BytesSent
	s.MaxQueue = max(s.MaxQueue, o.MaxQueue)
	for k, n := range o.Messages {
		s.Messages[k] += n
	}
}
