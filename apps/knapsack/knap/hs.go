package knap

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// The Horowitz–Sahni search (Martello and Toth, Knapsack Problems, §2.5.1)
// as an explicit stack. A node (j, cap, prof) has decided the items before
// j in ratio order, with cap capacity left and profit prof. Its Dantzig
// bound packs items j, j+1, ... while they fit and a fraction of the first
// that does not, the break item k; prefix sums and a galloping search find
// k in O(log(k−j)). Packing the items j..k−1 leaves the bound unchanged, so
// the search does that in one step, leaves item k out (it does not fit) and
// goes on at node k+1; each packed item keeps its left-out alternative open,
// and backtracking tries the deepest one first. A run of packed items with
// open alternatives is one hrange on the stack.
//
// Nodes: each node whose bound beats the incumbent counts once; the chain
// of items packed at a node is part of that node. The root is expanded when
// the root task is made, so that it can split at once, and counted by the
// first Work call. A piece that Split gives away is a run of open
// alternatives, which it then tries like the owner would have.

// hrange is a run of items a..b−1 packed in the current path, each with its
// left-out alternative still open; cap and prof are the capacity left and
// the profit before item a.
type hrange struct {
	a, b      int32
	cap, prof int64
}

// hsState is the stack of an HS task. Items before lo are fixed: packed
// unless listed in ex. Above lo, the items in rs are packed with their
// alternatives open, and the others up to the current node are left out.
type hsState struct {
	lo int
	ex []int32 // left-out items before lo, ascending
	rs []hrange

	have bool // the node (j, cap, prof) waits to be evaluated
	j    int
	cap  int64
	prof int64

	owed int64 // nodes expanded before the first Work call, counted by it
}

// rootHS returns the HS search's root task: nothing decided, and the root
// node already expanded, so that the task has alternatives to split off
// before it works.
func (a *App) rootHS() *Task {
	t := &Task{a: a, search: HS, h: hsState{have: true, cap: a.pr.c}}
	t.expandFirst()
	return t
}

// expandFirst expands the task's pending node, a task's first, and leaves
// its count to the task's first Work call: the rank that works the task
// counts it, wherever it was expanded.
func (t *Task) expandFirst() {
	if t.a.expandHS(&t.h) {
		t.h.owed = 1
	}
}

// breakFrom returns the break item from j with capacity cap: the first k ≥
// j such that items j..k do not fit, or n if items j..n−1 all fit.
func (pr *problem) breakFrom(j int, cap int64) int {
	W, n := pr.W, pr.n
	lo, d := j, 1 // items j..lo−1 fit
	for lo+d <= n && W[lo+d]-W[j] <= cap {
		lo += d
		d *= 2
	}
	hi := min(lo+d, n+1) // hi == n+1, or items j..hi−1 do not fit
	for hi-lo > 1 {
		m := int(uint(lo+hi) / 2)
		if W[m]-W[j] <= cap {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// boundHS reports whether the Dantzig bound of node (j, cap, prof) beats z
// and returns the node's break item k and the profit and capacity after
// packing items j..k−1.
func (pr *problem) boundHS(j int, cap, prof, z int64) (k int, p, r int64, ok bool) {
	k = pr.breakFrom(j, cap)
	p, r = prof+pr.P[k]-pr.P[j], cap-(pr.W[k]-pr.W[j])
	if k == pr.n {
		return k, p, r, p > z
	}
	// p + ⌊r·p_k/w_k⌋ ≥ z+1  ⇔  r·p_k ≥ (z+1−p)·w_k, the latter when z+1−p > 0
	need := z + 1 - p
	return k, p, r, need <= 0 || !less(pr.narrow, r, pr.item[k].p, need, pr.item[k].w)
}

// workHS expands up to budget nodes of the HS search.
func (t *Task) workHS(budget int64) int64 {
	a := t.a
	pr := a.pr
	h := &t.h
	nodes := min(h.owed, budget)
	h.owed -= nodes
	for nodes < budget {
		if !h.have {
			if len(h.rs) == 0 {
				break
			}
			r := &h.rs[len(h.rs)-1]
			i := int(r.b) - 1 // leave out the deepest packed item
			h.j = i + 1
			h.cap = r.cap - (pr.W[i] - pr.W[r.a])
			h.prof = r.prof + pr.P[i] - pr.P[r.a]
			h.have = true
			if r.b--; r.b == r.a {
				h.rs = h.rs[:len(h.rs)-1]
			}
		}
		if a.expandHS(h) {
			nodes++
		}
	}
	return nodes
}

// expandHS evaluates the pending node of h: when its bound beats the
// incumbent, it packs the items that fit, leaves out the first that does
// not and makes the next node pending, or, when everything left fits,
// records the leaf as the incumbent; it reports whether the bound beat the
// incumbent.
func (a *App) expandHS(h *hsState) bool {
	pr := a.pr
	k, p, rest, ok := pr.boundHS(h.j, h.cap, h.prof, a.z)
	if !ok {
		h.have = false
		return false
	}
	if k == pr.n { // everything left fits: a leaf
		a.improveHS(h)
		// Leaving out any of items j..n−1 now loses profit: no range.
		h.have = false
		return true
	}
	if k > h.j {
		h.rs = append(h.rs, hrange{a: int32(h.j), b: int32(k), cap: h.cap, prof: h.prof})
	}
	h.j, h.cap, h.prof = k+1, rest, p // item k does not fit: left out
	return true
}

// improveHS records the leaf of h (the pending node with everything after
// it packed) as the App's best.
func (a *App) improveHS(h *hsState) {
	pr := a.pr
	set := a.bestSet
	for k := range set {
		set[k] = k < h.lo || k >= h.j
	}
	for _, k := range h.ex {
		set[k] = false
	}
	for _, r := range h.rs {
		for k := r.a; k < r.b; k++ {
			set[k] = true
		}
	}
	a.z = h.prof + pr.P[pr.n] - pr.P[h.j]
}

// runShare is the share of a run's open alternatives that an HS split
// gives away: 1/runShare, at least one. Measured on seed 002's class
// (m = 1000 and 2000, 32 instances, rp in the simulator): at P = 2 one
// alternative a split and an eighth of the run did about as well (Σ
// virtual times 2.21 s and 2.34 s; the sequential searches take 25.4 s at
// the same 10 ns a node), a quarter and a half worse (3.12 s, 5.14 s); at
// P = 64 on five instances an eighth beat one alternative on every one (by
// 1.2 to 2.5 times) and a half on two of them. An eighth also takes about
// a seventh of the steals of one alternative, and every steal costs the
// thief a wait.
const runShare = 8

// splitHS gives away the open alternatives of the shallowest ones: the
// first alternative of the lowest run whose bound still beats the
// incumbent (leaving out that item, everything before it as in the path)
// and the alternatives after it in the run, up to 1/runShare of the run's
// that are left; the piece is a task whose one run holds them. Alternatives
// it passes on the way cannot beat the incumbent; their items become fixed,
// and so do the items whose alternatives the piece takes. A fresh task
// judges the alternatives by the greedy start incumbent instead of the
// current one.
func (t *Task) splitHS() *Task {
	pr, h, z := t.a.pr, &t.h, t.a.z
	if t.fresh {
		z = pr.greedy // the start incumbent, the same on every rank
	}
	for len(h.rs) > 0 {
		r := &h.rs[0]
		i := int(r.a)
		for k := h.lo; k < i; k++ {
			h.ex = append(h.ex, int32(k))
		}
		h.lo = i
		if _, _, _, ok := pr.boundHS(i+1, r.cap, r.prof, z); !ok {
			h.lo = i + 1 // item i is packed for good in this task
			r.cap -= pr.item[i].w
			r.prof += pr.item[i].p
			if r.a++; r.a == r.b {
				h.rs = h.rs[1:]
			}
			continue
		}
		mid := i + max(1, (int(r.b)-i)/runShare)
		o := &Task{a: t.a, search: HS, h: hsState{
			lo: i, ex: slices.Clone(h.ex),
			rs: []hrange{{a: int32(i), b: int32(mid), cap: r.cap, prof: r.prof}},
		}}
		h.lo = mid // items i..mid−1 are packed for good in this task
		r.cap -= pr.W[mid] - pr.W[i]
		r.prof += pr.P[mid] - pr.P[i]
		if r.a = int32(mid); r.a == r.b {
			h.rs = h.rs[1:]
		}
		return o
	}
	return nil
}

// appendHS encodes an HS task as unsigned varints: the nodes owed, lo, the
// left-out items before lo (as gaps), the runs (as gaps and lengths) and the
// pending node's position (as a gap) if there is one.
func (t *Task) appendHS(b []byte) []byte {
	h := &t.h
	b = append(b, tagHS)
	b = binary.AppendUvarint(b, uint64(h.owed))
	b = binary.AppendUvarint(b, uint64(h.lo))
	b = binary.AppendUvarint(b, uint64(len(h.ex)))
	prev := 0
	for _, k := range h.ex {
		b = binary.AppendUvarint(b, uint64(int(k)-prev))
		prev = int(k) + 1
	}
	b = binary.AppendUvarint(b, uint64(len(h.rs)))
	prev = h.lo
	for _, r := range h.rs {
		b = binary.AppendUvarint(b, uint64(int(r.a)-prev))
		b = binary.AppendUvarint(b, uint64(r.b-r.a-1))
		prev = int(r.b)
	}
	if !h.have {
		return append(b, 0)
	}
	b = append(b, 1)
	return binary.AppendUvarint(b, uint64(h.j-prev))
}

// unmarshalHS decodes appendHS's encoding (after the tag) and recomputes
// the capacities and profits, checking that the path fits.
func (a *App) unmarshalHS(d *decoder) (*Task, error) {
	pr := a.pr
	n := pr.n
	t := &Task{a: a, search: HS}
	h := &t.h
	h.owed = int64(d.uint(1, "nodes owed"))
	h.lo = int(d.uint(uint64(n), "lo"))
	nex := d.count("left-out items")
	if d.err != nil {
		return nil, d.err
	}
	h.ex = make([]int32, 0, nex)
	capLeft, prof := pr.c-pr.W[h.lo], pr.P[h.lo]
	prev := 0
	for range nex {
		k := prev + int(d.uint(uint64(h.lo-prev), "left-out item"))
		if d.err != nil {
			return nil, d.err
		}
		if k >= h.lo {
			return nil, fmt.Errorf("left-out item %d not before %d", k, h.lo)
		}
		h.ex = append(h.ex, int32(k))
		capLeft += pr.item[k].w
		prof -= pr.item[k].p
		prev = k + 1
	}
	if capLeft < 0 {
		return nil, fmt.Errorf("the fixed items weigh %d more than the capacity", -capLeft)
	}
	nrs := d.count("runs")
	if d.err != nil {
		return nil, d.err
	}
	h.rs = make([]hrange, 0, nrs)
	prev = h.lo
	for range nrs {
		ra := prev + int(d.uint(uint64(n-prev), "run start"))
		rb := ra + 1 + int(d.uint(uint64(max(n-ra-1, 0)), "run length"))
		if d.err != nil {
			return nil, d.err
		}
		if ra >= n {
			return nil, fmt.Errorf("run at %d beyond the %d items", ra, n)
		}
		h.rs = append(h.rs, hrange{a: int32(ra), b: int32(rb), cap: capLeft, prof: prof})
		capLeft -= pr.W[rb] - pr.W[ra]
		prof += pr.P[rb] - pr.P[ra]
		if capLeft < 0 {
			return nil, fmt.Errorf("run %d..%d overfills the knapsack", ra, rb-1)
		}
		prev = rb
	}
	if len(d.b) == 0 {
		return nil, fmt.Errorf("pending node: %w", errTruncated)
	}
	have := d.b[0]
	d.b = d.b[1:]
	switch have {
	case 0:
	case 1:
		h.j = prev + int(d.uint(uint64(n-prev), "node"))
		h.have, h.cap, h.prof = true, capLeft, prof
	default:
		return nil, fmt.Errorf("pending node flag %d", have)
	}
	if d.err != nil {
		return nil, d.err
	}
	return t, nil
}
