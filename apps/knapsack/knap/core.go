package knap

import (
	"encoding/binary"
	"fmt"
)

// The expanding-core search (Pisinger's expknap, EJOR 87, 1995), kept on
// an explicit stack between two Work calls (see workCore). A node is a
// solution (ps, ws) that differs from the break solution in the items it
// flipped on the way down; ps is its profit and ws its weight minus the
// capacity. A node with ws ≤ 0 fits: its children
// pack one more item t ≥ its next-to-add cursor, in ratio order, leaving out
// the items skipped; a node with ws > 0 is overfull: its children remove one
// more item s ≤ its next-to-remove cursor, going up the ratio order. The
// LP bound of the children of a frame falls as the cursor moves away from
// the break item (ps + |ws|·p/w with the ratio of the cursor's item), so the
// first child whose bound cannot beat the incumbent ends the frame. Items
// whose reduction bound (item.u) cannot beat it are skipped.
//
// A frame's cursor moves in steps of step, which Split doubles: a split
// gives every other remaining child of a frame away.

// cframe is a node of the core search on the stack, with its children's
// cursor: s when ws > 0, t when ws ≤ 0.
type cframe struct {
	ps, ws int64
	s, t   int32 // next item to remove (moving down) and to pack (moving up)
	flip   int32 // item flipped to reach this node; -1 at the root
	step   int32 // the cursor moves by step
}

// rootCore returns the core search's root: the break solution.
func (a *App) rootCore() *Task {
	pr := a.pr
	st := make([]cframe, 1, 8)
	st[0] = cframe{ps: pr.psb, ws: pr.wsb - pr.c, s: int32(pr.b - 1), t: int32(pr.b), flip: -1, step: 1}
	return &Task{a: a, search: Core, st: st}
}

// nextCore returns the frame's next child that survives reduction and
// whether its bound beats the incumbent z; it advances the cursor over the
// items it skips.
func (a *App) nextCore(f *cframe, z int64) (int, bool) {
	pr := a.pr
	it, n := pr.item, pr.n
	if f.ws <= 0 {
		k := a.upCore(int(f.t), int(f.step), z)
		if k >= n {
			f.t = int32(n)
			return n, false
		}
		f.t = int32(k)
		return k, !less(pr.narrow, f.ps-z-1, it[k].w, f.ws, it[k].p)
	}
	k := a.downCore(int(f.s), int(f.step), z)
	if k < 0 {
		f.s = -1
		return -1, false
	}
	f.s = int32(k)
	return k, !less(pr.narrow, f.ps-z-1, it[k].w, f.ws, it[k].p)
}

// workCore expands up to budget nodes of the core search: it explores
// the subtree below the top frame of the stack recursively (add and
// remove), and when the budget runs out the recursion stores its levels as
// frames on the stack, so that Split and AppendBinary see an explicit stack
// between two calls. The recursion is faster than a loop over the explicit
// stack: the current node's numbers stay in registers and each return goes
// straight back to the loop of the right kind.
func (t *Task) workCore(budget int64) int64 {
	a := t.a
	if len(t.st) <= t.base || budget <= 0 {
		return 0
	}
	for d, f := range t.st {
		a.path[d] = f.flip
	}
	w := coreWalk{a: a, it: a.pr.item, path: a.path, narrow: a.pr.narrow, z: a.z, left: budget, st: t.st}
	for len(w.st) > t.base {
		d := len(w.st) - 1
		w.limit, w.deepest = d+a.maxDepth, 0
		f := w.st[d]
		var done bool
		if f.ws <= 0 {
			done = w.add(d, f.ps, f.ws, int(f.s), int(f.t), int(f.step))
		} else {
			done = w.remove(d, f.ps, f.ws, int(f.s), int(f.t), int(f.step))
		}
		if !done {
			w.st = w.st[:w.deepest+1]
			if w.left == 0 {
				break
			}
			continue // stopped at the depth limit: go on from there
		}
		w.st = w.st[:d]
	}
	t.st = w.st
	return budget - w.left
}

// coreWalk is the state of one workCore call.
type coreWalk struct {
	a       *App
	it      []item
	path    []int32 // a.path
	narrow  bool
	z       int64    // the incumbent; a.z is updated with it
	left    int64    // nodes left in the budget
	st      []cframe // the task's stack; suspended levels are stored here
	deepest int      // depth of the deepest level stored when the recursion stopped
	limit   int      // depth at which the recursion stops and stores its levels
}

// maxRecursion bounds how deep one recursive descent of workCore goes
// (about 200 bytes of goroutine stack a level) before it stores its levels
// on the explicit stack and starts again from the deepest (App.maxDepth).
const maxRecursion = 1 << 14

// add explores the remaining children of a node at depth d that fits
// (ws ≤ 0): pack item k ≥ t, k = t + i·step, the first first. It first
// records the node as the incumbent if it beats it (a resumed node or the
// root cannot). A child that is a leaf (see leaf) is counted and settled
// without a call: most nodes are leaves, and a call costs more than the
// test. add returns false when the budget ran out or the depth limit was
// reached, after storing the node's frame, its cursor at the next child,
// in w.st[d].
func (w *coreWalk) add(d int, ps, ws int64, s, t, step int) bool {
	if ps > w.z {
		w.improve(d, ps)
	}
	it := w.it
	n := len(it)
	for {
		k := t
		if k < n && it[k].u <= w.z {
			k = w.a.upCore(k, step, w.z)
		}
		if k >= n || less(w.narrow, ps-w.z-1, it[k].w, ws, it[k].p) {
			return true
		}
		if !w.spend(d, k) {
			return w.store(d, ps, ws, s, k, step)
		}
		t = k + step
		if p, x := ps+it[k].p, ws+it[k].w; !w.leaf(p, x, s, k+1) && !(x <= 0 && w.add(d+1, p, x, s, k+1, 1) || x > 0 && w.remove(d+1, p, x, s, k+1, 1)) {
			return w.store(d, ps, ws, s, min(t, n), step)
		}
	}
}

// remove is add for a node that is overfull (ws > 0): its children remove
// item k ≤ s, k = s − i·step, the first first.
func (w *coreWalk) remove(d int, ps, ws int64, s, t, step int) bool {
	it := w.it
	for {
		k := s
		if k >= 0 && it[k].u <= w.z {
			k = w.a.downCore(k, step, w.z)
		}
		if k < 0 || less(w.narrow, ps-w.z-1, it[k].w, ws, it[k].p) {
			return true
		}
		if !w.spend(d, k) {
			return w.store(d, ps, ws, k, t, step)
		}
		s = k - step
		if p, x := ps-it[k].p, ws-it[k].w; !w.leaf(p, x, k-1, t) && !(x <= 0 && w.add(d+1, p, x, k-1, t, 1) || x > 0 && w.remove(d+1, p, x, k-1, t, 1)) {
			return w.store(d, ps, ws, max(s, -1), t, step)
		}
	}
}

// spend takes one node, the child at depth d+1 that flips item k, from the
// budget and puts it on the path; it reports false, taking nothing, when
// the budget is spent or depth d is the recursion's limit.
func (w *coreWalk) spend(d, k int) bool {
	if w.left == 0 || d == w.limit {
		return false
	}
	w.left--
	w.path[d+1] = int32(k)
	return true
}

// leaf reports whether the node with profit p, excess weight x and cursors
// s and t certainly has nothing to explore: it does not beat the incumbent
// (add would record it), and its first child is out of range or already
// fails the bound, and so do the later ones. On wide instances it tests
// the range only; add and remove find out the rest.
func (w *coreWalk) leaf(p, x int64, s, t int) bool {
	k := s
	if x <= 0 {
		if p > w.z {
			return false
		}
		k = t
	}
	it := w.it
	if k < 0 || k >= len(it) {
		return true
	}
	return w.narrow && (p-w.z-1)*it[k].w < x*it[k].p
}

// store puts the frame of the node at depth d, with its cursors s and t,
// on the stack, making room, and returns false for its caller to return.
// It is rare, and kept out of the hot loops.
//
//go:noinline
func (w *coreWalk) store(d int, ps, ws int64, s, t, step int) bool {
	for len(w.st) <= d {
		w.st = append(w.st, cframe{})
	}
	w.st[d] = cframe{ps: ps, ws: ws, s: int32(s), t: int32(t), flip: w.path[d], step: int32(step)}
	w.deepest = max(w.deepest, d)
	return false
}

// improve records the node at depth d, with profit ps, as the incumbent.
func (w *coreWalk) improve(d int, ps int64) {
	w.z = ps
	w.a.improveCore(w.path[1:d+1], ps)
}

// upCore returns the first item k' = k + i·step, i ≥ 0, whose reduction
// bound beats z, or a position ≥ n. It follows a.up, where up[k] > k says
// that the items k..up[k]−1 are reduced, and with step 1 it records the run
// it skipped: an item reduced for some incumbent stays reduced for every
// larger one, and the incumbent of an App only grows.
func (a *App) upCore(k, step int, z int64) int {
	it, up := a.pr.item, a.up
	n := len(it)
	k0 := k
	for k < n && it[k].u <= z {
		j := max(int(up[k]), k+1) // items k..j−1 are reduced
		k += (j - k + step - 1) / step * step
	}
	if step == 1 && k > k0 {
		up[k0] = int32(min(k, n))
	}
	return k
}

// downCore is upCore going down, with a.dn: the first item k' = k − i·step
// whose reduction bound beats z, or a negative position.
func (a *App) downCore(k, step int, z int64) int {
	it, dn := a.pr.item, a.dn
	k0 := k
	for k >= 0 && it[k].u <= z {
		j := min(int(dn[k]), k-1) // items j+1..k are reduced
		k -= (k - j + step - 1) / step * step
	}
	if step == 1 && k < k0 {
		dn[k0] = int32(max(k, -1))
	}
	return k
}

// improveCore records as the App's best the solution with profit ps that
// flips the items flips from the break solution.
func (a *App) improveCore(flips []int32, ps int64) {
	pr := a.pr
	set := a.bestSet
	for k := range set {
		set[k] = k < pr.b
	}
	for _, k := range flips {
		set[k] = !set[k]
	}
	a.z = ps
}

// emptyCore reports whether no frame the task owns has a child left.
func (t *Task) emptyCore() bool {
	n := int32(t.a.pr.n)
	for _, f := range t.st[t.base:] {
		if f.ws <= 0 && f.t < n || f.ws > 0 && f.s >= 0 {
			return false
		}
	}
	return true
}

// splitCore gives away every other remaining child, starting with the
// next, of the shallowest frame whose next child still beats the
// incumbent. Frames it passes on the way have nothing left that could beat
// it, and are closed. A fresh task splits the shallowest frame with a
// child left, not moving its cursor over reduced items, which depends on
// the incumbent.
func (t *Task) splitCore() *Task {
	a := t.a
	pr, z := a.pr, a.z
	for k := t.base; k < len(t.st); k++ {
		f := &t.st[k]
		if t.fresh {
			if f.ws <= 0 && int(f.t) >= pr.n || f.ws > 0 && f.s < 0 {
				t.base = k + 1 // no child left, whatever the incumbent
				continue
			}
		} else if _, ok := a.nextCore(f, z); !ok {
			t.closeFrame(f)
			t.base = k + 1
			continue
		}
		st := make([]cframe, k+1, k+1+8)
		copy(st, t.st[:k+1])
		o := &Task{a: t.a, search: Core, st: st, base: k}
		old := int(f.step)
		ns := int32(min(2*old, pr.n+1)) // a step above n leaves one child
		st[k].step, f.step = ns, ns
		if f.ws <= 0 {
			f.t = int32(min(int(f.t)+old, pr.n))
		} else {
			f.s = int32(max(int(f.s)-old, -1))
		}
		return o
	}
	return nil
}

// closeFrame marks a frame as having no child left.
func (t *Task) closeFrame(f *cframe) {
	if f.ws <= 0 {
		f.t = int32(t.a.pr.n)
	} else {
		f.s = -1
	}
}

// appendCore encodes a core task: the number of frames and base, the
// flipped item of every frame below the root, then the cursor and step of
// every owned frame, all as unsigned varints.
func (t *Task) appendCore(b []byte) []byte {
	n := t.a.pr.n
	b = append(b, tagCore)
	if len(t.st) <= t.base {
		return append(b, 0, 0) // nothing left: no frames
	}
	b = binary.AppendUvarint(b, uint64(len(t.st)))
	b = binary.AppendUvarint(b, uint64(t.base))
	for _, f := range t.st[1:] {
		b = binary.AppendUvarint(b, uint64(f.flip))
	}
	for _, f := range t.st[t.base:] {
		if f.ws <= 0 {
			b = binary.AppendUvarint(b, uint64(min(int(f.t), n)))
		} else {
			b = binary.AppendUvarint(b, uint64(max(int(f.s), -1)+1))
		}
		b = binary.AppendUvarint(b, uint64(f.step))
	}
	return b
}

// unmarshalCore decodes appendCore's encoding (after the tag), replaying
// the flips from the root and checking that each is a child the search can
// generate.
func (a *App) unmarshalCore(d *decoder) (*Task, error) {
	pr := a.pr
	n := pr.n
	depth := d.count("frames")
	base := int(d.uint(uint64(depth), "base"))
	if d.err != nil {
		return nil, d.err
	}
	t := a.rootCore()
	if depth == 0 {
		t.st = t.st[:0]
		return t, nil
	}
	for i := 1; i < depth; i++ {
		f := &t.st[i-1]
		k := int(d.uint(uint64(n), "flip"))
		if d.err != nil {
			return nil, d.err
		}
		var c cframe
		if f.ws <= 0 {
			if k < int(f.t) || k >= n {
				return nil, fmt.Errorf("frame %d: item %d cannot be packed (want %d..%d)", i, k, f.t, n-1)
			}
			c = cframe{ps: f.ps + pr.item[k].p, ws: f.ws + pr.item[k].w, s: f.s, t: int32(k + 1), flip: int32(k), step: 1}
		} else {
			if k > int(f.s) {
				return nil, fmt.Errorf("frame %d: item %d cannot be removed (want 0..%d)", i, k, f.s)
			}
			c = cframe{ps: f.ps - pr.item[k].p, ws: f.ws - pr.item[k].w, s: int32(k - 1), t: f.t, flip: int32(k), step: 1}
		}
		t.st = append(t.st, c)
	}
	for i := range t.st {
		f := &t.st[i]
		if i < base {
			t.closeFrame(f)
			continue
		}
		var cur int
		if f.ws <= 0 {
			cur = int(d.uint(uint64(n), "cursor"))
			if cur < int(f.t) {
				return nil, fmt.Errorf("frame %d: cursor %d before the first child %d", i, cur, f.t)
			}
			f.t = int32(cur)
		} else {
			cur = int(d.uint(uint64(int(f.s)+1), "cursor")) - 1
			f.s = int32(cur)
		}
		f.step = int32(d.uint(uint64(n)+1, "step"))
		if d.err == nil && f.step < 1 {
			return nil, fmt.Errorf("frame %d: step 0", i)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	t.base = base
	return t, nil
}
