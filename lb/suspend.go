package lb

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/treelb/treelb/lb/perm"
)

// Checkpoints: a search is suspended when rank 0 asks (Config.CheckpointDue).
// The suspension spreads from rank 0 along the tree of the stop and is
// counted like it: a suspended rank stops working and stops giving work away
// (it rejects requests, KOSO stops spawning, poll-and-shuffle ranks say they
// are busy and give nothing), but it keeps every task it holds or receives.
// Termination detection then ends the search as it ends any other: every
// rank idle, as many counted messages received as sent, no request
// unanswered. That is a consistent cut: no task is in flight, and the open
// tasks of all ranks cover what is left of the search exactly once. The
// worlds gather them, encoded, on rank 0 with the ranks' results; Run
// returns them in a *Suspended error, and Config.Resume continues from one
// on any number of ranks.

// ErrSuspended matches the *Suspended error of a search suspended for a
// checkpoint (errors.Is).
var ErrSuspended = errors.New("lb: search suspended")

// Suspended describes a search suspended for a checkpoint: Run returns it as
// its error, and Config.Resume continues the search it describes. A solver
// that runs several searches one after the other sets State to say which
// one was suspended. The zero value is a suspension with nothing done and
// nothing left.
type Suspended struct {
	// State is the solver's own (the step of a multi-step search); Run
	// leaves it nil and ignores it.
	State []byte
	// Partial is the result so far, encoded as Run encodes results (see
	// Reducer): the combination of every rank's part, earlier
	// suspensions' included.
	Partial []byte
	// Tasks are the open tasks, each encoded by Task.AppendBinary, on rank
	// 0 only (nil elsewhere): together they are what is left of the search.
	Tasks [][]byte
	// Nodes counts the nodes expanded so far, over every run the search
	// was resumed from.
	Nodes int64
	// Incumbent is the best bound known at the cut, when HasIncumbent
	// (branch-and-bound apps, Bounded).
	Incumbent    int64
	HasIncumbent bool
}

func (s *Suspended) Error() string {
	return fmt.Sprintf("lb: search suspended after %d nodes", s.Nodes)
}

// Is reports whether target is ErrSuspended.
func (s *Suspended) Is(target error) bool { return target == ErrSuspended }

// Share returns the tasks of rank `rank` of size ranks when the search
// resumes: every size-th task, from the rank's index on (a round-robin
// deal; the balancer spreads them further). It is meaningful on rank 0,
// which holds the tasks.
func (s *Suspended) Share(rank, size int) [][]byte {
	var out [][]byte
	for i := rank; i < len(s.Tasks); i += size {
		out = append(out, s.Tasks[i])
	}
	return out
}

// Prime tells app the incumbent of the suspended search, before its
// balancer is made (Bounded apps; others ignore it).
func (s *Suspended) Prime(app App) {
	if b, ok := app.(Bounded); ok && s.HasIncumbent {
		b.Improve(s.Incumbent)
	}
}

// RootOptional is implemented by balancers whose ranks may start a search
// without the root task: NeedsRoot reports whether Start wants it on this
// rank. When it does not, Rank.Start passes nil and does not call the app's
// Root there, so that a world of many ranks builds one root, not one a rank
// (issue 23: golomb 10's roots were 38 % of the bytes its 16384 embedded
// ranks allocated). A balancer without it gets the root on every rank.
type RootOptional interface {
	Balancer
	NeedsRoot() bool
}

// Suspender is implemented by balancers that can suspend a search for a
// checkpoint and resume one; every registered balancer does.
type Suspender interface {
	Balancer
	// Suspend starts suspending the search on rank 0; a no-op once the
	// search is suspending or done.
	Suspend()
	// Suspended reports, once Done, whether the search ended suspended
	// rather than finished (work exhausted or a global stop).
	Suspended() bool
	// Open returns, once Done, the open tasks this rank holds: with the
	// other ranks', they cover the rest of the search.
	Open() []Task
	// StartWith begins the search with t, this rank's share of the open
	// tasks of a suspended search (nil for none), instead of Start.
	StartWith(t Task)
}

// suspend starts the suspension on this rank and spreads it; not once
// termination is detected: nothing is left to save, and a suspension
// spread then on its own tree reached ranks the exit (on another tree) had
// already ended.
func (c *core) suspend() {
	if c.suspended || c.done || c.terminating {
		return
	}
	c.suspended, c.news = true, true
}

// Suspended reports whether the search ended suspended (Suspender).
func (c *core) Suspended() bool { return c.done && c.suspended && !c.stopped }

// openTasks appends the open tasks t stands for to out: the leaves of a
// static share still to generate, the members of a resumed share, t itself
// when it holds work.
func openTasks(t Task, out []Task) []Task {
	switch t := t.(type) {
	case nil:
	case *leaves:
		return t.open(out)
	case *bag:
		for _, u := range t.ts {
			out = openTasks(u, out)
		}
	default:
		if !t.Empty() {
			out = append(out, t)
		}
	}
	return out
}

// open appends the share's open tasks: the current leaf and every leaf not
// generated yet.
func (l *leaves) open(out []Task) []Task {
	if l.cur != nil && !l.cur.Empty() {
		out = append(out, l.cur)
	}
	if l.next >= l.end {
		return out
	}
	it := perm.Walk(l.pi, l.next)
	for j := l.next; j < l.end; j++ {
		pj, _ := it.Next()
		if t := l.leaf(pj, nil); t != nil && !t.Empty() {
			out = append(out, t)
		}
	}
	return out
}

// bag is a rank's share of the open tasks of a suspended search, as one
// Task: Work works the newest non-empty member, Split gives away a whole
// member while there are two or more and splits the last one otherwise. A
// bag never travels (its members do). Not safe for concurrent use.
type bag struct{ ts []Task }

// newShare returns the task standing for ts: nil, the one task, or a bag.
func newShare(ts []Task) Task {
	switch len(ts) {
	case 0:
		return nil
	case 1:
		return ts[0]
	}
	return &bag{ts: ts}
}

// join returns a task holding the work of t and u, either of which may be
// nil or empty.
func join(t, u Task) Task {
	switch {
	case t == nil || t.Empty():
		return u
	case u == nil || u.Empty():
		return t
	}
	if b, ok := t.(*bag); ok {
		b.ts = append(b.ts, u)
		return b
	}
	return &bag{ts: []Task{t, u}}
}

// trim drops the exhausted members at the end.
func (b *bag) trim() {
	for len(b.ts) > 0 && b.ts[len(b.ts)-1].Empty() {
		b.ts[len(b.ts)-1] = nil
		b.ts = b.ts[:len(b.ts)-1]
	}
}

func (b *bag) Work(budget int64) int64 {
	var n int64
	for n < budget {
		if b.trim(); len(b.ts) == 0 {
			break
		}
		k := b.ts[len(b.ts)-1].Work(budget - n)
		if k == 0 && !b.ts[len(b.ts)-1].Empty() {
			break // the member makes no progress in this budget
		}
		n += k
	}
	return n
}

func (b *bag) Empty() bool {
	b.trim()
	return len(b.ts) == 0
}

// take removes and returns the oldest non-empty member while two or more
// are left, else nil.
func (b *bag) take() Task {
	for b.trim(); len(b.ts) >= 2; b.trim() {
		t := b.ts[0]
		copy(b.ts, b.ts[1:])
		b.ts[len(b.ts)-1] = nil
		b.ts = b.ts[:len(b.ts)-1]
		if !t.Empty() {
			return t
		}
	}
	return nil
}

func (b *bag) Split() Task {
	if t := b.take(); t != nil {
		return t
	}
	if len(b.ts) == 1 {
		return b.ts[0].Split()
	}
	return nil
}

func (b *bag) AppendBinary([]byte) ([]byte, error) {
	return nil, errors.New("lb: a resumed share does not travel; its tasks do")
}

// OpenTasks returns the encoded open tasks of b, a balancer whose search is
// done, when it ended suspended; nil otherwise.
func OpenTasks(b Balancer) ([][]byte, error) {
	s, ok := b.(Suspender)
	if !ok || !s.Suspended() {
		return nil, nil
	}
	var out [][]byte
	for _, t := range s.Open() {
		e, err := t.AppendBinary(nil)
		if err != nil {
			return nil, fmt.Errorf("lb: encoding an open task: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// StartShare begins b's search with share, this rank's encoded tasks of a
// suspended search, decoded with app.
func StartShare(b Balancer, app App, share [][]byte) error {
	s, ok := b.(Suspender)
	if !ok {
		return errors.New("lb: the balancer cannot resume a suspended search")
	}
	ts := make([]Task, 0, len(share))
	for i, e := range share {
		t, err := app.Unmarshal(e)
		if err != nil {
			return fmt.Errorf("lb: open task %d of the checkpoint: %w", i, err)
		}
		ts = append(ts, t)
	}
	s.StartWith(newShare(ts))
	return nil
}

// ErrBadTasks matches the error of resuming a search whose open tasks do
// not decode (a checkpoint of another build, say).
var ErrBadTasks = errors.New("lb: the open tasks of a suspended search do not decode")

// ErrBadState matches the error of resuming a search whose partial result
// (Suspended.Partial) or solver's state (Suspended.State) does not decode;
// solvers wrap the errors of decoding their State with it.
var ErrBadState = errors.New("lb: the state of a suspended search does not decode")

// CheckTasks decodes every task of s with app, reporting the first that
// does not decode with an error matching ErrBadTasks; worlds call it on
// rank 0 before they deal the tasks.
func CheckTasks(app App, s *Suspended) error {
	for i, e := range s.Tasks {
		if _, err := app.Unmarshal(e); err != nil {
			return fmt.Errorf("%w: task %d of %d: %v", ErrBadTasks, i+1, len(s.Tasks), err)
		}
	}
	return nil
}

// AppendTasks appends an encoding of tasks: their count, then each one's
// length and bytes.
func AppendTasks(b []byte, tasks [][]byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(tasks)))
	for _, t := range tasks {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	return b
}

// ParseTasks decodes what AppendTasks appended at the start of b and
// returns the tasks (sharing b's storage) and the rest of b.
func ParseTasks(b []byte) ([][]byte, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, nil, errors.New("lb: malformed task list")
	}
	b = b[k:]
	tasks := make([][]byte, 0, n)
	for range n {
		m, k := binary.Uvarint(b)
		if k <= 0 || m > uint64(len(b)-k) {
			return nil, nil, errors.New("lb: malformed task list")
		}
		tasks = append(tasks, b[k:k+int(m)])
		b = b[k+int(m):]
	}
	return tasks, b, nil
}
