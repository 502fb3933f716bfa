package knap

import (
	"encoding/binary"
	"fmt"
)

// The expanding-core search (Pisinger's expknap, EJOR 87, 1995) as an
// explicit stack. A node is a solution (ps, ws) that differs from the break
// solution in the items it flipped on the way down; ps is its profit and
// ws its weight minus the capacity. A node with ws ≤ 0 fits: its children
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
	st := make([]cframe, 1, 64)
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

// workCore expands up to budget nodes of the core search. The current
// frame lives in local variables; a frame is stored on the stack when it
// gets a child and reloaded when the search returns to it.
func (t *Task) workCore(budget int64) int64 {
	a := t.a
	pr := a.pr
	it, narrow := pr.item, pr.narrow
	n := len(it)
	z := a.z
	st := t.st
	base := t.base
	if len(st) <= base {
		return 0
	}
	top := len(st) - 1
	f := st[top]
	var nodes int64
	for nodes < budget {
		var k int
		var pruned bool
		if f.ws <= 0 {
			k = a.upCore(int(f.t), int(f.step), z)
			pruned = k >= n || less(narrow, f.ps-z-1, it[k].w, f.ws, it[k].p)
		} else {
			k = a.downCore(int(f.s), int(f.step), z)
			pruned = k < 0 || less(narrow, f.ps-z-1, it[k].w, f.ws, it[k].p)
		}
		if pruned { // this frame is done: back to its parent
			if top == base {
				st = st[:top]
				break
			}
			top--
			f = st[top]
			continue
		}
		if f.ws <= 0 {
			f.t = int32(min(k+int(f.step), n))
			st[top] = f
			f = cframe{ps: f.ps + it[k].p, ws: f.ws + it[k].w, s: f.s, t: int32(k + 1), flip: int32(k), step: 1}
		} else {
			f.s = int32(max(k-int(f.step), -1))
			st[top] = f
			f = cframe{ps: f.ps - it[k].p, ws: f.ws - it[k].w, s: int32(k - 1), t: f.t, flip: int32(k), step: 1}
		}
		nodes++
		top++
		if top == len(st) {
			st = append(st, f)
		} else {
			st[top] = f
		}
		if f.ws <= 0 && f.ps > z {
			z = f.ps
			a.improveCore(st[:top+1])
		}
	}
	if len(st) > base {
		st = st[:top+1]
		st[top] = f
	}
	t.st = st
	return nodes
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

// improveCore records the solution of the top of st as the App's best.
func (a *App) improveCore(st []cframe) {
	pr := a.pr
	set := a.bestSet
	for k := range set {
		set[k] = k < pr.b
	}
	for _, f := range st[1:] {
		set[f.flip] = !set[f.flip]
	}
	a.z, a.best = st[len(st)-1].ps, st[len(st)-1].ps
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
// it, and are closed.
func (t *Task) splitCore() *Task {
	a := t.a
	pr, z := a.pr, a.z
	for k := t.base; k < len(t.st); k++ {
		f := &t.st[k]
		if _, ok := a.nextCore(f, z); !ok {
			t.closeFrame(f)
			t.base = k + 1
			continue
		}
		st := make([]cframe, k+1, k+1+32)
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
