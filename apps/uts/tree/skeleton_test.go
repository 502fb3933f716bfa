package tree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/skeleton"
)

// This file is a second implementation of the search of Search, on package
// skeleton: the same tree, node for node, from the same child-generation
// functions (ChildState and the batched SHA-1 kernels through
// Search.hash, Tree.children), so that the benchmarks can measure what
// the skeleton's generality costs against the hand-written Task
// (docs/skeleton.md, "A shipped app: UTS"). It lives in a test file: the
// app ships once, as Search.

// utsNode is a node of the skeleton's search: its state, its height and
// its number of children (known from its state and height; kept so that
// neither the visit nor the expansion computes it again).
type utsNode struct {
	s      State
	height int32
	kids   int32
}

// utsSpace is the skeleton.Space of a tree's nodes. Its Children hashes a
// node's children with the space's kernel, up to sixteen (AVX-512) or eight
// (AVX2) at a time, in a batch of its own: a Space is one rank's and is not
// safe for concurrent use.
type utsSpace struct {
	t *Tree
	h Search // h.kernel and h.b: Search.hash's kernel and batch
}

var (
	_ skeleton.Space[utsNode]    = (*utsSpace)(nil)
	_ skeleton.Brancher[utsNode] = (*utsSpace)(nil)
)

// newUTSSpace returns the Space of t's nodes, hashing with kernel k.
func newUTSSpace(t *Tree, k Kernel) *utsSpace {
	return &utsSpace{t: t, h: Search{t: t, kernel: k, b: new(batch)}}
}

// node returns the node of state s at height h.
func (u *utsSpace) node(s State, h int32) utsNode {
	return utsNode{s: s, height: h, kids: max(u.t.children(s.Rand(), int(h)), 0)}
}

func (u *utsSpace) Root() utsNode { return u.node(u.t.root, 0) }

// Child hashes child c of n with ChildState (Gran times, as Search does).
func (u *utsSpace) Child(n utsNode, c int) (utsNode, int, bool) {
	if c >= int(n.kids) {
		return utsNode{}, 0, false
	}
	var s State
	for range u.t.p.Gran {
		s = ChildState(n.s, c)
	}
	return u.node(s, n.height+1), c + 1, true
}

// Children hashes n's children in batches with the space's kernel, as
// Search.Work does (which fills a batch from several nodes of its stack),
// and writes them in place at the end of buf, testing a binomial child's
// number of children inline, as Search.Work does.
func (u *utsSpace) Children(n utsNode, buf []utsNode) []utsNode {
	if n.kids == 0 {
		return buf
	}
	b := u.h.b
	t := u.t
	h := n.height + 1
	gran := t.p.Gran
	binomial := t.p.Type == Binomial
	m := len(buf)
	buf = slices.Grow(buf, int(n.kids))[:m+int(n.kids)]
	out := buf[m:]
	for next := int32(0); next < n.kids; {
		k := 0
		for ; k < lanes && next < n.kids; k, next = k+1, next+1 {
			for w := range 5 {
				b.in[w][k] = n.s[w]
			}
			b.in[5][k] = uint32(next)
		}
		for range gran {
			u.h.hash(k)
		}
		for j := range k {
			// Field by field, not through a State value: a State built
			// from five 32-bit stores and copied with 16-byte loads
			// stalls on store forwarding.
			c := &out[j]
			for w := range 5 {
				c.s[w] = b.out[w][j]
			}
			c.height = h
			r := b.out[4][j] & 0x7fffffff // State.Rand
			if binomial {                 // below the root
				c.kids = 0
				if float64(r) < t.qScaled {
					c.kids = t.m
				}
			} else {
				c.kids = max(t.children(r, int(h)), 0)
			}
		}
		out = out[k:]
	}
	return buf
}

// AppendNode appends the 20 state bytes and the height as a uvarint.
func (u *utsSpace) AppendNode(b []byte, n utsNode) []byte {
	sb := n.s.Bytes()
	return binary.AppendUvarint(append(b, sb[:]...), uint64(n.height))
}

var errNode = errors.New("uts: malformed node")

func (u *utsSpace) DecodeNode(b []byte) (utsNode, []byte, error) {
	if len(b) < 20 {
		return utsNode{}, nil, errNode
	}
	s := stateOf(b)
	h, k := binary.Uvarint(b[20:])
	if k <= 0 || h > 1<<31-1 {
		return utsNode{}, nil, errNode
	}
	return u.node(s, int32(h)), b[20+k:], nil
}

// foldCounts adds a node to a tree's statistics, as Search.Work counts it.
func foldCounts(c Counts, n utsNode) Counts {
	c.Nodes++
	if n.kids == 0 {
		c.Leaves++
		c.Digest += leafHash(n.s[0], n.s[1])
	}
	c.Depth = max(c.Depth, int(n.height))
	return c
}

// skeletonUTS is the enumeration of t's nodes, hashing with kernel k,
// whose value is the tree's Counts; withChildren false hides the Space's
// Children (the skeleton then calls Child, one child at a time).
func skeletonUTS(t *Tree, k Kernel, withChildren bool) *skeleton.Enumeration[utsNode, Counts] {
	var sp skeleton.Space[utsNode] = newUTSSpace(t, k)
	if !withChildren {
		sp = childOnlyUTS{sp}
	}
	return &skeleton.Enumeration[utsNode, Counts]{Space: sp, Fold: foldCounts, Combine: Counts.Add}
}

// childOnlyUTS hides a Space's Children.
type childOnlyUTS struct{ skeleton.Space[utsNode] }

// skeletonTrees are the small trees on which the skeleton's search is
// checked against Search: T1-like geometric, T3-like binomial, T5-like
// (linear shape), hybrid, and one of granularity 3.
var skeletonTrees = []string{
	"-t 1 -a 3 -d 6 -b 4 -r 19",
	"-t 0 -b 100 -q 0.124875 -m 8 -r 42",
	"-t 1 -a 0 -d 12 -b 4 -r 34",
	"-t 2 -a 2 -d 12 -b 5 -q 0.24 -m 4 -f 0.6 -r 9",
	"-t 1 -a 2 -d 10 -b 6 -r 4 -g 3",
}

// TestSkeletonCounts: the skeleton's search counts the nodes, leaves,
// depth and leaf digest that Search counts, with every kernel this
// processor has, through Children and through Child; and the Space's
// Children agree with its Child (skeleton.CheckChildren).
func TestSkeletonCounts(t *testing.T) {
	for _, args := range skeletonTrees {
		p, err := ParseArgs(strings.Fields(args))
		if err != nil {
			t.Fatal(err)
		}
		tr := MustNew(p)
		want := tr.Count()
		if want.Nodes < 1000 {
			t.Fatalf("%s: %d nodes: too small a test tree", args, want.Nodes)
		}
		for _, k := range supportedKernels() {
			for _, withChildren := range []bool{true, false} {
				name := fmt.Sprintf("%s/%v/children=%v", args, k, withChildren)
				got := skeletonUTS(tr, k, withChildren).Sequential()
				if got.Value != want || got.Nodes != want.Nodes {
					t.Errorf("%s: skeleton counted %+v (%d nodes), Search %+v", name, got.Value, got.Nodes, want)
				}
			}
			if err := skeleton.CheckChildren[utsNode](newUTSSpace(tr, k), 1<<16); err != nil {
				t.Errorf("%s/%v: %v", args, k, err)
			}
		}
	}
}

// TestSkeletonApp: the skeleton's UTS tasks keep lb.Task's promises
// (lbtest.TestApp) on the small trees of TestTaskContract.
func TestSkeletonApp(t *testing.T) {
	for _, name := range []string{"T1", "T3"} {
		t.Run(name, func(t *testing.T) {
			tr := smallSample(t, name)
			// A Work visits a node's children together (at most
			// MaxChildren), and a split's pieces' visits at once.
			lbtest.TestApp(t, func() lb.App { return skeletonUTS(tr, BestKernel(), true).NewApp() },
				lbtest.AppOptions{Exhaustive: true, Overshoot: 2 * MaxChildren, Result: lbtest.SameResult[skeleton.Count[Counts]](nil)})
		})
	}
}

// utsGroup is a node of a second skeleton search of the same tree, whose
// nodes are groups of up to groupSize UTS nodes of one height: a group's
// children are the groups of its nodes' children, groupSize by groupSize
// in order (the last one short), hashed sixteen at a time with the
// 16-lane kernel, as Search.Work fills its batches from several nodes,
// and a leaf is folded with its group and never expanded alone. The
// skeleton counts groups; Fold counts the UTS nodes. Its states are kept
// as the kernel writes them (word w of node j in s[w][j], lanes from n on
// zero), so that they are copied whole, never assembled from 32-bit
// stores.
type utsGroup struct {
	n, height int32
	s         [5][groupSize]uint32
	kids      [groupSize]int32
}

// groupSize is the most nodes a group holds.
const groupSize = 4 * lanes

// node returns node j of the group.
func (x *utsGroup) node(j int) utsNode {
	return utsNode{s: State{x.s[0][j], x.s[1][j], x.s[2][j], x.s[3][j], x.s[4][j]}, height: x.height, kids: x.kids[j]}
}

// add appends a node to the group.
func (x *utsGroup) add(n utsNode) {
	for w := range 5 {
		x.s[w][x.n] = n.s[w]
	}
	x.kids[x.n] = n.kids
	x.height = n.height
	x.n++
}

// groupSpace is the skeleton.Space of a tree's groups (utsGroup), hashing
// with the kernel of a utsSpace.
type groupSpace struct{ u *utsSpace }

var (
	_ skeleton.Space[utsGroup]    = (*groupSpace)(nil)
	_ skeleton.Brancher[utsGroup] = (*groupSpace)(nil)
)

func (g *groupSpace) Root() utsGroup {
	var r utsGroup
	r.add(g.u.Root())
	return r
}

// Child returns group c of x's children: the children groupSize·c to
// groupSize·c+groupSize-1 of x's nodes, in order, hashed one at a time
// with ChildState.
func (g *groupSpace) Child(x utsGroup, c int) (utsGroup, int, bool) {
	var out utsGroup
	skip := groupSize * c
	for j := range int(x.n) {
		n := x.node(j)
		for i := int32(0); i < n.kids && out.n < groupSize; i++ {
			if skip > 0 {
				skip--
				continue
			}
			child, _, _ := g.u.Child(n, int(i))
			out.add(child)
		}
	}
	return out, c + 1, out.n > 0
}

// Children hashes the children of x's nodes sixteen at a time, a call of
// the kernel, groupSize/16 calls a group.
func (g *groupSpace) Children(x utsGroup, buf []utsGroup) []utsGroup {
	b := g.u.h.b
	h := x.height + 1
	k := int32(0)
	var out *utsGroup // the group being filled, nil for none
	for i := range x.n {
		for next := int32(0); next < x.kids[i]; next++ {
			for w := range 5 {
				b.in[w][k] = x.s[w][i]
			}
			b.in[5][k] = uint32(next)
			if k++; k == lanes {
				if out == nil || out.n == groupSize {
					buf = append(buf, utsGroup{height: h})
					out = &buf[len(buf)-1]
				}
				g.flush(out, k)
				k = 0
			}
		}
	}
	if k > 0 {
		if out == nil || out.n == groupSize {
			buf = append(buf, utsGroup{height: h})
			out = &buf[len(buf)-1]
		}
		g.flush(out, k)
	}
	return buf
}

// flush hashes the batch's first k lanes and adds them to group out,
// which has room for them.
func (g *groupSpace) flush(out *utsGroup, k int32) {
	u := g.u
	b, t := u.h.b, u.t
	for range t.p.Gran {
		u.h.hash(int(k))
	}
	m := out.n
	for w := range 5 {
		copy(out.s[w][m:m+k], b.out[w][:k])
	}
	h := int(out.height)
	if t.p.Type == Binomial { // below the root
		for j := m; j < m+k; j++ {
			if float64(out.s[4][j]&0x7fffffff) < t.qScaled { // State.Rand
				out.kids[j] = t.m
			}
		}
	} else {
		for j := m; j < m+k; j++ {
			out.kids[j] = max(t.children(out.s[4][j]&0x7fffffff, h), 0)
		}
	}
	out.n += k
}

// AppendNode appends the number of nodes, the height as a uvarint, and
// the nodes' states.
func (g *groupSpace) AppendNode(b []byte, x utsGroup) []byte {
	b = binary.AppendUvarint(append(b, byte(x.n)), uint64(x.height))
	for j := range int(x.n) {
		sb := x.node(j).s.Bytes()
		b = append(b, sb[:]...)
	}
	return b
}

func (g *groupSpace) DecodeNode(b []byte) (utsGroup, []byte, error) {
	var x utsGroup
	if len(b) < 1 || b[0] < 1 || b[0] > groupSize {
		return x, nil, errNode
	}
	n := int(b[0])
	h, k := binary.Uvarint(b[1:])
	if k <= 0 || h > 1<<31-1 || len(b) < 1+k+20*n {
		return x, nil, errNode
	}
	b = b[1+k:]
	for range n {
		x.add(g.u.node(stateOf(b), int32(h)))
		b = b[20:]
	}
	return x, b, nil
}

// foldGroup adds a group's nodes to a tree's statistics.
func foldGroup(c Counts, x utsGroup) Counts {
	for j := range x.n {
		if x.kids[j] == 0 {
			c.Leaves++
			c.Digest += leafHash(x.s[0][j], x.s[1][j])
		}
	}
	c.Nodes += int64(x.n)
	c.Depth = max(c.Depth, int(x.height))
	return c
}

// groupUTS is the enumeration of t's nodes in groups, hashing with kernel
// k, whose value is the tree's Counts.
func groupUTS(t *Tree, k Kernel) *skeleton.Enumeration[utsGroup, Counts] {
	return &skeleton.Enumeration[utsGroup, Counts]{Space: &groupSpace{newUTSSpace(t, k)}, Fold: foldGroup, Combine: Counts.Add}
}

// TestGroupCounts: the search in groups counts what Search counts, with
// every kernel, and its Children agree with its Child.
func TestGroupCounts(t *testing.T) {
	for _, args := range skeletonTrees {
		p, err := ParseArgs(strings.Fields(args))
		if err != nil {
			t.Fatal(err)
		}
		tr := MustNew(p)
		want := tr.Count()
		for _, k := range supportedKernels() {
			if got := groupUTS(tr, k).Sequential(); got.Value != want {
				t.Errorf("%s/%v: groups counted %+v, Search %+v", args, k, got.Value, want)
			}
			if err := skeleton.CheckChildren[utsGroup](&groupSpace{newUTSSpace(tr, k)}, 1<<14); err != nil {
				t.Errorf("%s/%v: %v", args, k, err)
			}
		}
	}
}

// TestGroupApp: the tasks of the search in groups keep lb.Task's promises.
func TestGroupApp(t *testing.T) {
	for _, name := range []string{"T1", "T3"} {
		t.Run(name, func(t *testing.T) {
			tr := smallSample(t, name)
			lbtest.TestApp(t, func() lb.App { return groupUTS(tr, BestKernel()).NewApp() },
				lbtest.AppOptions{Exhaustive: true, Overshoot: 2 * MaxChildren, Result: lbtest.SameResult[skeleton.Count[Counts]](nil)})
		})
	}
}
