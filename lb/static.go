package lb

import (
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/treelb/treelb/lb/perm"
)

// leaves is the share of one rank in randomized static load balancing (seed
// 000, Fig. 1): rank i owns the indices j of its block of 1..2^k and
// generates leaf π(j) of the k-level splitting tree by splitting a fresh
// root k times, following the bits b_0..b_{k−1} of π(j)−1: the left part
// (what Split keeps) for 0, the right part (what it gives away) for 1. Leaves
// are made lazily, when the previous one is exhausted. It is a Task; its
// Split gives away a whole ungenerated leaf while it has two or more, and
// splits the current leaf otherwise.
type leaves struct {
	app   App
	k     int
	pi    perm.Perm
	next  uint64        // next index of the block
	it    perm.Iterator // π(next), π(next+1), … (nil until the first leaf)
	end   uint64        // one past the block's last index
	cur   Task
	spare Task   // an exhausted leaf whose storage the next may reuse
	cuts  *int64 // Env.cuts
	fail  func(error)
	rank  int
}

// newLeaves returns the share of rank r of P, split into 2^k leaves (0:
// DefaultLevels) and placed by the permutation kind ("": gf); fail (core's
// failTask) gets the app's mistakes: a nil root, a leaf's Work that stalls.
func newLeaves(env Env, k int, kind string, fail func(error)) (*leaves, error) {
	if k <= 0 {
		k = DefaultLevels(env.Size)
	}
	if kind == "" {
		kind = "gf"
	}
	// Every rank draws the same permutation from the run's seed.
	pi, err := perm.New(kind, k, rand.New(rand.NewPCG(env.Seed, 0x57a71c)))
	if err != nil {
		return nil, fmt.Errorf("lb: static placement: %w", err)
	}
	lo, hi := perm.Block(pi.Len(), env.Rank, env.Size)
	return &leaves{app: env.App, k: k, pi: pi, next: lo, end: hi, cuts: env.cuts, fail: fail, rank: env.Rank}, nil
}

// DefaultLevels is the default k of static placement for P ranks: the bound
// of seed 001 §5.2 with ε = 0.1 and σ = ¼ (perm.DefaultLevels), capped at
// ⌈log₂ P⌉ + 10 so that a rank makes at most about 1024 leaves of k splits
// each (generating a leaf costs k splits of a fresh root).
func DefaultLevels(p int) int {
	return min(perm.DefaultLevels(p, perm.DefaultEpsilon, perm.DefaultSigma), bits.Len(uint(p-1))+10)
}

// leaf generates the leaf π(j) (pj), in reuse when that is an exhausted
// task that can be cut in place (Halver); nil for an empty leaf.
func (l *leaves) leaf(pj uint64, reuse Task) Task {
	t := reuse
	if h, ok := t.(Halver); ok {
		h.Reroot()
	} else if t = l.app.Root(); t == nil {
		l.fail(&RankError{Rank: l.rank, Err: nilRoot(l.app)})
		l.next = l.end // no leaf to make: the rank stops with the error
		return nil
	}
	x := pj - 1
	for b := 0; b < l.k && t != nil; b++ {
		if t.Empty() {
			return nil // every leaf below is empty: no need to split on
		}
		t = halve(t, x>>b&1 == 1, l.cuts)
	}
	return t
}

// current returns the leaf being worked on, making the next when needed
// (in the storage of the exhausted one when it is a Halver).
func (l *leaves) current() Task {
	for l.cur == nil || l.cur.Empty() {
		if l.cur != nil {
			l.spare, l.cur = l.cur, nil
		}
		if l.next >= l.end {
			return nil
		}
		if l.it == nil {
			l.it = perm.Walk(l.pi, l.next) // O(k) per leaf after the first, not At's O(k²)
		}
		pj, _ := l.it.Next()
		if l.cur = l.leaf(pj, l.spare); l.cur != nil && l.cur == l.spare {
			l.spare = nil
		}
		l.next++
	}
	return l.cur
}

func (l *leaves) Work(budget int64) int64 {
	var n int64
	for n < budget {
		t := l.current()
		if t == nil {
			break
		}
		w := t.Work(budget - n)
		if err := workError(t, budget-n, w); err != nil {
			// The app's mistake, which would loop here for ever.
			l.fail(&RankError{Rank: l.rank, Err: err})
			l.next, l.cur = l.end, nil
			return n
		}
		n += w
	}
	return n
}

func (l *leaves) Empty() bool { return l.current() == nil }

func (l *leaves) Split() Task {
	if l.end-l.next >= 2 {
		l.end--
		if t := l.leaf(l.pi.At(l.end), nil); t != nil && !t.Empty() {
			return t
		}
		return l.Split()
	}
	if t := l.current(); t != nil {
		return t.Split()
	}
	return nil
}

func (l *leaves) AppendBinary([]byte) ([]byte, error) {
	return nil, errors.New("lb: a static share does not travel; its pieces do")
}

// static is randomized static load balancing: no messages during the search
// but for incumbents and termination detection.
type static struct {
	core
	share Task // the *leaves of the rank, or its share of a resumed search
}

func newStatic(env Env) (Balancer, error) {
	o, err := optionsOf[StaticOptions](env, "static")
	if err != nil {
		return nil, err
	}
	b := &static{}
	b.init(env)
	share, err := newLeaves(env, o.Levels, o.Permutation, b.failTask)
	if err != nil {
		return nil, err
	}
	b.share = share
	b.idle = func() bool { return b.Task() == nil }
	b.outstanding = func() bool { return false }
	return b, nil
}

// NeedsRoot reports that static's ranks start from their shares, built
// with the balancer, not from the root (RootOptional).
func (b *static) NeedsRoot() bool { return false }

func (b *static) Start(Task) { b.progress() }

func (b *static) Task() Task {
	if b.stopped || b.suspended || b.share == nil || b.share.Empty() {
		return nil
	}
	return b.share
}

// Suspend starts suspending the search (Suspender).
func (b *static) Suspend() {
	b.suspend()
	b.progress()
}

// Open returns the open tasks once the search is done: the leaves not
// worked yet among them (Suspender).
func (b *static) Open() []Task { return openTasks(b.share, nil) }

// StartWith begins with a share of a suspended search instead of the
// leaves (Suspender).
func (b *static) StartWith(t Task) {
	b.share = t
	b.progress()
}

func (b *static) Tick(nodes int64) {
	b.worked(nodes)
	b.progress()
}

func (b *static) Deliver(m Msg) {
	b.handle(m)
	b.progress()
}
