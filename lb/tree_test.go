package lb

import (
	"encoding/binary"
	"errors"
)

// treeApp is a synthetic tree-shaped computation for the balancer tests: a
// seeded random tree explored depth first. It counts nodes (exhaustive),
// finds the minimum leaf value with branch-and-bound (bounded), or stops at
// the first leaf whose value is divisible by 1000 (first).
type treeApp struct {
	seed   uint64
	depth  int
	mode   int // 0 count, 1 bounded, 2 first
	nodes  int64
	best   int64
	found  int64 // mode 2: a value divisible by 1000, or -1
	solved bool
}

const (
	modeCount = iota
	modeBound
	modeFirst
)

func newTreeApp(seed uint64, depth, mode int) *treeApp {
	return &treeApp{seed: seed, depth: depth, mode: mode, best: NoBound, found: -1}
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

type treeNode struct {
	id    uint64
	depth int32
	lb    int32 // lower bound of leaf values below
}

type treeTask struct {
	app   *treeApp
	stack []treeNode
}

func (a *treeApp) Root() Task {
	// A forest of 16 roots, so that fast initialisation has pieces to split.
	t := &treeTask{app: a}
	for i := range uint64(16) {
		t.stack = append(t.stack, treeNode{id: mix(a.seed*31 + i)})
	}
	return t
}

func (t *treeTask) Work(budget int64) int64 {
	a := t.app
	var n int64
	for n < budget && len(t.stack) > 0 && !a.solved {
		v := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		if a.mode == modeBound && 1000*int64(v.lb) >= a.best {
			continue // pruned: not a node
		}
		n++
		a.nodes++
		h := mix(v.id)
		kids := int(h % 4)
		if v.depth < 6 {
			kids = 2 + int(h%2)
		}
		if int(v.depth) >= a.depth {
			kids = 0
		}
		if kids == 0 {
			// Path costs only grow, so 1000·lb bounds every leaf below.
			val := 1000*int64(v.lb) + int64(h>>40)%1000
			if a.mode == modeBound && val < a.best {
				a.best = val
			}
			if a.mode == modeFirst && val%1000 == 0 {
				a.found, a.solved = val, true
			}
			continue
		}
		for i := kids - 1; i >= 0; i-- {
			c := mix(v.id + uint64(i) + 1)
			t.stack = append(t.stack, treeNode{id: c, depth: v.depth + 1, lb: v.lb + int32(c%7)})
		}
	}
	return n
}

func (t *treeTask) Empty() bool { return len(t.stack) == 0 || t.app.solved }

// Split gives away every other entry from the bottom (shallowest) half of
// the stack.
func (t *treeTask) Split() Task {
	if len(t.stack) < 2 {
		return nil
	}
	o := &treeTask{app: t.app}
	keep := t.stack[:0:0]
	half := (len(t.stack) + 1) / 2
	for i, v := range t.stack {
		if i < half && i%2 == 0 {
			o.stack = append(o.stack, v)
		} else {
			keep = append(keep, v)
		}
	}
	t.stack = keep
	return o
}

func (t *treeTask) AppendBinary(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(t.stack)))
	for _, v := range t.stack {
		b = binary.LittleEndian.AppendUint64(b, v.id)
		b = binary.AppendUvarint(b, uint64(v.depth))
		b = binary.AppendUvarint(b, uint64(v.lb))
	}
	return b, nil
}

func (a *treeApp) Unmarshal(b []byte) (Task, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 {
		return nil, errors.New("tree: bad task")
	}
	b = b[k:]
	t := &treeTask{app: a}
	for range n {
		if len(b) < 8 {
			return nil, errors.New("tree: short task")
		}
		v := treeNode{id: binary.LittleEndian.Uint64(b)}
		b = b[8:]
		d, k1 := binary.Uvarint(b)
		l, k2 := binary.Uvarint(b[k1:])
		if k1 <= 0 || k2 <= 0 {
			return nil, errors.New("tree: bad node")
		}
		b = b[k1+k2:]
		v.depth, v.lb = int32(d), int32(l)
		t.stack = append(t.stack, v)
	}
	return t, nil
}

func (a *treeApp) Incumbent() int64 {
	if a.mode == modeBound {
		return a.best
	}
	return NoBound
}

func (a *treeApp) Improve(v int64) { a.best = min(a.best, v) }
func (a *treeApp) Solved() bool    { return a.solved }

// Result: nodes, best, found.
func (a *treeApp) Result() []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(a.nodes))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.best))
	return binary.LittleEndian.AppendUint64(b, uint64(a.found))
}

func (a *treeApp) Combine(inout, in []byte) {
	get := func(b []byte, i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }
	put := func(b []byte, i int, v int64) { binary.LittleEndian.PutUint64(b[8*i:], uint64(v)) }
	put(inout, 0, get(inout, 0)+get(in, 0))
	put(inout, 1, min(get(inout, 1), get(in, 1)))
	put(inout, 2, max(get(inout, 2), get(in, 2)))
}

func decodeTree(b []byte) (nodes, best, found int64) {
	return int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:])), int64(binary.LittleEndian.Uint64(b[16:]))
}
