package lb

import (
	"container/heap"
	"encoding/binary"
)

// koso is the ring scheduler KOSO, "keep one, send one", and KOSO* (seed
// 003, §2.2). Each rank keeps its tasks in a queue ordered by depth in the
// splitting tree (the number of splits behind a task, shallowest first) and
// works on the shallowest; a task's depth is its Level when it is Leveled,
// otherwise the number of splits behind it. After every work slice the task
// just worked "spawns": it is split, the rank keeps one part and sends the
// other to its clockwise
// neighbour rank+1 mod P. Under KOSO* it sends only when the neighbour's load
// (tasks queued) is lighter than its own, and keeps both otherwise; loads
// travel counter-clockwise in load messages whenever they change.
type koso struct {
	core
	star     bool
	fastInit bool
	q        taskQueue
	seq      int64
	nbLoad   int // the clockwise neighbour's last reported load
	sentLoad int // the load we last reported
}

type queued struct {
	t   Task
	gen int
	seq int64
}

// taskQueue is a min-heap by generation, then arrival.
type taskQueue []queued

func (q taskQueue) Len() int { return len(q) }
func (q taskQueue) Less(i, j int) bool {
	return q[i].gen < q[j].gen || (q[i].gen == q[j].gen && q[i].seq < q[j].seq)
}
func (q taskQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *taskQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *taskQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = queued{}
	*q = old[:len(old)-1]
	return e
}

func newKOSO(env Env) (Balancer, error)     { return newRing(env, false, "koso") }
func newKOSOStar(env Env) (Balancer, error) { return newRing(env, true, "koso-star") }

func newRing(env Env, star bool, name string) (*koso, error) {
	o, err := optionsOf[KOSOOptions](env, name)
	if err != nil {
		return nil, err
	}
	b := &koso{star: star, fastInit: o.FastInit}
	b.init(env)
	b.idle = func() bool { return b.Task() == nil }
	b.outstanding = func() bool { return false }
	return b, nil
}

func (b *koso) push(t Task, gen int) {
	if l, ok := t.(Leveled); ok {
		gen = l.Level()
	}
	b.seq++
	heap.Push(&b.q, queued{t: t, gen: gen, seq: b.seq})
}

// NeedsRoot reports whether this rank starts from the root (RootOptional):
// rank 0, or every rank with fast initialisation.
func (b *koso) NeedsRoot() bool { return b.fastInit || b.rank == 0 }

func (b *koso) Start(root Task) {
	if b.fastInit {
		if t := fastInitPiece(root, b.rank, b.size, b.env.cuts); t != nil {
			b.push(t, 0)
		}
	} else if b.rank == 0 {
		b.push(root, 0)
	}
	b.after()
}

// Load returns the number of queued tasks.
func (b *koso) Load() int { return len(b.q) }

// Task returns the shallowest non-empty task; nil while the search is
// suspending (the tasks are kept).
func (b *koso) Task() Task {
	if b.stopped {
		b.q = b.q[:0]
	}
	if b.suspended {
		return nil
	}
	for len(b.q) > 0 {
		if !b.q[0].t.Empty() {
			return b.q[0].t
		}
		heap.Pop(&b.q)
	}
	return nil
}

// Tick: the task just worked on, the head of the queue (nothing reorders the
// queue between Task and Tick), spawns unless it ran dry.
func (b *koso) Tick(nodes int64) {
	b.worked(nodes)
	if len(b.q) > 0 && !b.q[0].t.Empty() && b.size > 1 {
		head := &b.q[0]
		if piece := head.t.Split(); piece != nil && !piece.Empty() {
			b.stats.Splits++
			head.gen++
			gen := head.gen
			if l, ok := head.t.(Leveled); ok {
				head.gen, gen = l.Level(), l.Level()
			}
			if l, ok := piece.(Leveled); ok {
				gen = l.Level()
			}
			heap.Fix(&b.q, 0)
			if !b.star || b.nbLoad < b.Load() {
				b.sendTask((b.rank+1)%b.size, binary.AppendUvarint(nil, uint64(gen)), piece)
			} else {
				b.push(piece, gen)
			}
		}
	}
	b.after()
}

func (b *koso) Deliver(m Msg) {
	if !b.handle(m) {
		switch m.Kind {
		case KWork:
			gen, n := binary.Uvarint(m.Data)
			if n <= 0 {
				b.failTask(RankErrorf(b.rank, "a malformed KOSO task from %d", m.From))
				break
			}
			if t := b.unpack(m.From, m.Data[n:]); t != nil && !b.stopped {
				b.push(t, int(gen))
			}
		case KLoad:
			v, _ := binary.Uvarint(m.Data)
			b.nbLoad = int(v)
		}
	}
	b.after()
}

// after reports a changed load to the counter-clockwise neighbour (KOSO*).
func (b *koso) after() {
	b.Task() // drop exhausted tasks before measuring the load
	if b.star && b.size > 1 && b.Load() != b.sentLoad {
		b.sentLoad = b.Load()
		b.send((b.rank-1+b.size)%b.size, KLoad, binary.AppendUvarint(nil, uint64(b.sentLoad)))
	}
	b.stats.MaxQueue = max(b.stats.MaxQueue, int64(b.Load()))
	b.progress()
}

// Suspend starts suspending the search (Suspender).
func (b *koso) Suspend() {
	b.suspend()
	b.after()
}

// Open returns the open tasks once the search is done (Suspender).
func (b *koso) Open() []Task {
	var out []Task
	for _, e := range b.q {
		out = openTasks(e.t, out)
	}
	return out
}

// StartWith begins with a share of a suspended search (Suspender).
func (b *koso) StartWith(t Task) {
	if t != nil {
		b.push(t, 0)
	}
	b.after()
}
