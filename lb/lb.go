// Package lb balances the load of tree-shaped computations (seed 002, §2):
// an application supplies subproblems that can work for a bounded number of
// nodes, split into two disjoint parts and travel as bytes; a balancer,
// written as a deterministic state machine, decides who works on what.
//
// A Balancer takes messages and ticks in and puts messages out. It holds no
// goroutines, no clock and no global random source: randomness comes seeded
// per rank through Env. Drivers connect it to a transport: Run drives it over
// an *mpi.Comm (the embedded world or real MPI), and the tests drive it over a
// seeded fake network that delays and reorders messages between pairs.
//
// Termination is detected with the four-counter method over a tree-based
// asynchronous reduction (seed 002, §4), followed by a drain wave so that no
// message is in flight when Done becomes true. Incumbent bounds
// (branch-and-bound) and a global early stop (first solution) travel as
// counted messages along binomial trees rooted at their origin.
package lb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
)

// Task is one subproblem of a tree-shaped computation. Tasks are used by one
// rank at a time and need not be safe for concurrent use.
type Task interface {
	// Work expands at most about budget nodes and returns how many it
	// expanded. It returns early when the task is exhausted.
	Work(budget int64) int64
	// Empty reports whether no work is left in the task.
	Empty() bool
	// Split removes part of the remaining work from the receiver and
	// returns it as a new task covering a disjoint part of the tree, or nil
	// when the task cannot be split.
	Split() Task
	// AppendBinary appends the task's encoding to b.
	AppendBinary(b []byte) ([]byte, error)
}

// App is an application's per-rank state: its root, how to decode tasks, its
// incumbent and its result. Each rank has its own App value.
type App interface {
	// Root returns the root task; every rank can build it (the problem is
	// broadcast before the search starts).
	Root() Task
	// Unmarshal decodes a task encoded by Task.AppendBinary on any rank.
	Unmarshal(b []byte) (Task, error)
	// Incumbent returns the best bound known on this rank (lower is
	// better), or NoBound.
	Incumbent() int64
	// Improve tells the app of a bound found on another rank.
	Improve(v int64)
	// Solved reports whether this rank found a solution that ends the whole
	// search at once (first solution is enough).
	Solved() bool
	// Result returns the local result encoded in a fixed number of bytes,
	// the same on every rank.
	Result() []byte
	// Combine sets inout to the combination of inout and in, two encoded
	// results; it must be associative and commutative.
	Combine(inout, in []byte)
}

// NoBound is the incumbent of an app without one.
const NoBound = math.MaxInt64

// Kind is the kind of a balancer message; drivers use it as the MPI tag.
type Kind int

// Message kinds. Work, Bound and Stop messages are counted by termination
// detection; the others are control traffic.
const (
	KRequest   Kind = iota + 1 // ask for work
	KWork                      // a task
	KReject                    // no work for you
	KBound                     // a better incumbent: origin, value
	KStop                      // stop the whole search: origin
	KWave                      // termination wave down the tree: wave number
	KReport                    // wave report up the tree: wave, sent, received
	KTerminate                 // termination detected, drain
	KDrained                   // subtree drained
	KExit                      // all drained: done
	KPair                      // synchronous balancers: phase message
	KLoad                      // ring balancers: load information
	nKinds
)

var kindNames = [...]string{"?", "request", "work", "reject", "bound", "stop", "wave", "report",
	"terminate", "drained", "exit", "pair", "load"}

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
	Options    Options
}

// Options tune the balancers. The zero value is usable: every field has a
// default.
type Options struct {
	// FastInit broadcasts the root and splits it log P times following the
	// bits of the rank (seed 002, §4.3), instead of starting on rank 0 only.
	FastInit bool
	// QueueLimit rejects requests without splitting once more than this
	// many arrived in one polling interval (seed 002, §4.2); 0 means
	// 2·⌈√P⌉.
	QueueLimit int
	// Clusters is the number of rank clusters of the hybrid balancer.
	Clusters int
	// SplitLevels is k of randomized static load balancing: 2^k leaves;
	// 0 means a default derived from the seeds' bounds.
	SplitLevels int
	// Permutation is the pseudo-random permutation of static placement:
	// "gf" (default) or "lcg".
	Permutation string
	// PairSync makes poll-and-shuffle synchronise only the pairs after each
	// phase, and all ranks only at the end of a cycle (seed 002, §5.3).
	PairSync bool
	// AskLower lets idle ranks of poll-and-shuffle also ask along the
	// dimensions j < i of the cycle (seed 002, §5.3).
	AskLower bool
	// ShuffleBelow permutes the subproblems after a cycle only when fewer
	// than this fraction of the ranks are busy; 0 always permutes.
	ShuffleBelow float64
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
	// Start begins the search with the root task (every rank gets it).
	Start(root Task)
	// Deliver hands over one message addressed to this rank.
	Deliver(m Msg)
	// Tick says one work slice on Task ended.
	Tick()
	// Task returns the task to work on next, or nil while the rank is idle
	// (the driver then blocks until a message arrives).
	Task() Task
	// Outbox returns the messages to send and clears it.
	Outbox() []Msg
	// Done reports that the search ended on every rank and no message is in
	// flight; afterwards the balancer sends nothing.
	Done() bool
	// Stats returns the balancer's counters.
	Stats() *Stats
}

// Stats counts what a rank did. The driver fills in the times and nodes.
type Stats struct {
	Rank           int     `json:"rank"`
	WorkSeconds    float64 `json:"work_seconds"`
	IdleSeconds    float64 `json:"idle_seconds"`
	Nodes          int64   `json:"nodes"`
	Slices         int64   `json:"slices"`
	RequestsSent   int64   `json:"requests_sent"`
	RequestsRecv   int64   `json:"requests_received"`
	RequestsReject int64   `json:"requests_rejected"`
	Splits         int64   `json:"splits"`
	TasksSent      int64   `json:"tasks_sent"`
	MessagesSent   int64   `json:"messages_sent"`
	BytesSent      int64   `json:"bytes_sent"`
	MaxQueue       int64   `json:"max_queue"`
}

// Add adds the counters of o to s (times and counts; MaxQueue is the max).
func (s *Stats) Add(o *Stats) {
	s.WorkSeconds += o.WorkSeconds
	s.IdleSeconds += o.IdleSeconds
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
}

// factories maps balancer names to constructors; it is never modified after
// package initialisation.
var factories = map[string]struct {
	doc string
	new func(Env) Balancer
}{}

func register(name, doc string, f func(Env) Balancer) {
	factories[name] = struct {
		doc string
		new func(Env) Balancer
	}{doc, f}
}

// Names returns the registered balancer names, sorted.
func Names() []string {
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Describe returns one line per balancer: its name and what it is.
func Describe() string {
	var b strings.Builder
	for _, n := range Names() {
		fmt.Fprintf(&b, "  %-10s %s\n", n, factories[n].doc)
	}
	return b.String()
}

// New returns the balancer called name for the rank described by env.
func New(name string, env Env) (Balancer, error) {
	f, ok := factories[name]
	if !ok {
		return nil, fmt.Errorf("lb: unknown balancer %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if env.Size < 1 || env.Rank < 0 || env.Rank >= env.Size {
		return nil, fmt.Errorf("lb: rank %d of %d", env.Rank, env.Size)
	}
	if env.Rand == nil {
		env.Rand = NewRand(0, env.Rank)
	}
	return f.new(env), nil
}
