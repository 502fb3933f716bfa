package lb

import "math"

// randomPolling is asynchronous random polling (seed 002, Fig. 1): the root
// starts on rank 0 (or, with FastInit, every rank splits the broadcast root
// log P times); an idle rank asks uniformly random ranks for work until one
// sends a piece; a busy rank answers requests between work slices by
// splitting, and idle ranks reject. More than QueueLimit requests within one
// polling interval are rejected without splitting (§4.2), or, with Drain,
// make the whole system drain its requests (drain.go). Requests and
// rejections carry the sender's incumbent (branch-and-bound), so that the
// constant polling spreads a better bound to the busy ranks within about a
// work slice, besides the tree that guarantees it reaches every rank.
type randomPolling struct {
	core
	tasks       []Task
	waiting     bool // a request of ours is unanswered
	reqInSlice  int  // requests answered since the last tick
	queueLimit  int
	requestFrom func() int             // picks the rank to ask
	canAsk      bool                   // there is a rank to ask
	initial     func(root Task) []Task // the tasks this rank starts with
	needsRoot   bool                   // initial uses the root on this rank
	drain       *drainer               // §4.2's drain variant, nil without it
}

func newRandomPolling(env Env) (Balancer, error) {
	o, err := optionsOf[RPOptions](env, "rp")
	if err != nil {
		return nil, err
	}
	b := newRP(env, o.QueueLimit, o.FastInit)
	if o.Drain {
		b.drain = &drainer{}
		b.idle = func() bool { return !b.drain.draining && b.Task() == nil }
	}
	return b, nil
}

// newRP returns random polling with the given queue limit (0: the default)
// that starts, with fastInit, from every rank's piece of the root.
func newRP(env Env, queueLimit int, fastInit bool) *randomPolling {
	b := &randomPolling{}
	b.init(env)
	b.queueLimit = queueLimit
	if b.queueLimit <= 0 {
		b.queueLimit = 2 * int(math.Ceil(math.Sqrt(float64(env.Size))))
	}
	b.requestFrom = func() int { return otherRank(b.env.Rand, b.rank, 0, b.size) }
	b.canAsk = env.Size > 1
	b.needsRoot = fastInit || b.rank == 0
	b.initial = func(root Task) []Task {
		if fastInit {
			if t := fastInitPiece(root, b.rank, b.size, b.env.cuts); t != nil {
				return []Task{t}
			}
		} else if b.rank == 0 {
			return []Task{root}
		}
		return nil
	}
	b.idle = func() bool { return b.Task() == nil }
	b.outstanding = func() bool { return b.waiting }
	return b
}

// NeedsRoot reports whether this rank starts from the root (RootOptional):
// rank 0, or every rank with fast initialisation.
func (b *randomPolling) NeedsRoot() bool { return b.needsRoot }

func (b *randomPolling) Start(root Task) {
	b.tasks = append(b.tasks, b.initial(root)...)
	b.after()
}

// Task returns the newest non-empty task, dropping empty ones; nil while
// the search is suspending (the tasks are kept).
func (b *randomPolling) Task() Task {
	if b.stopped {
		b.tasks = b.tasks[:0]
	}
	if b.suspended || b.drain != nil && b.drain.draining {
		return nil
	}
	return b.top()
}

// top returns the newest non-empty task, dropping empty ones.
func (b *randomPolling) top() Task {
	for len(b.tasks) > 0 {
		t := b.tasks[len(b.tasks)-1]
		if !t.Empty() {
			return t
		}
		b.tasks[len(b.tasks)-1] = nil
		b.tasks = b.tasks[:len(b.tasks)-1]
	}
	return nil
}

func (b *randomPolling) Tick(nodes int64) {
	b.worked(nodes)
	b.reqInSlice = 0
	b.after()
}

func (b *randomPolling) Deliver(m Msg) {
	if !b.handle(m) {
		switch m.Kind {
		case KRequest:
			b.stats.RequestsRecv++
			b.learn(m.Data)
			b.answer(m.From)
		case KWork:
			b.waiting = false
			if t := b.unpack(m.From, m.Data); t != nil && !b.stopped {
				b.tasks = append(b.tasks, t)
			}
		case KReject:
			b.learn(m.Data)
			b.waiting = false
		case KQueueFull, KQueueDrain:
			if b.drain != nil {
				b.drainMsg(m)
			}
		}
	}
	b.after()
}

// answer splits the current task for rank j, or rejects it.
func (b *randomPolling) answer(j int) {
	t := b.Task()
	b.reqInSlice++
	b.stats.MaxQueue = max(b.stats.MaxQueue, int64(b.reqInSlice))
	if t != nil && b.reqInSlice > b.queueLimit && b.drain != nil && !b.terminating {
		b.queueFull()
		t = nil
	}
	if t != nil && b.reqInSlice <= b.queueLimit && !b.terminating {
		if piece := t.Split(); piece != nil && !piece.Empty() {
			b.stats.Splits++
			b.sendTask(j, nil, piece)
			return
		}
	}
	b.stats.RequestsReject++
	b.send(j, KReject, b.stamp())
}

// after asks for work when idle, then advances the shared machinery.
func (b *randomPolling) after() {
	draining := b.drain != nil && b.drain.draining
	if b.canAsk && !b.waiting && !b.terminating && !b.stopped && !b.suspended && !draining && b.Task() == nil {
		b.waiting = true
		b.stats.RequestsSent++
		b.send(b.requestFrom(), KRequest, b.stamp())
	}
	if b.drain != nil {
		b.drainProgress()
	}
	b.progress()
}

// Suspend starts suspending the search (Suspender).
func (b *randomPolling) Suspend() {
	b.suspend()
	b.after()
}

// Open returns the open tasks once the search is done (Suspender).
func (b *randomPolling) Open() []Task {
	var out []Task
	for _, t := range b.tasks {
		out = openTasks(t, out)
	}
	return out
}

// StartWith begins with a share of a suspended search (Suspender).
func (b *randomPolling) StartWith(t Task) {
	if t != nil {
		b.tasks = append(b.tasks, t)
	}
	b.after()
}
