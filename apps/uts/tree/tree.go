// Package tree generates the trees of the Unbalanced Tree Search benchmark
// (UTS: Olivier, Huan, Liu, Prins, Dinan, Sadayappan, Tseng, "UTS: An
// Unbalanced Tree Search Benchmark", LCPC 2006) exactly as its C reference,
// UTS 1.1, does, and counts them sequentially or as an lb task.
//
// A node's state is a 20-byte SHA-1 digest. The root's is SHA-1 of 16 zero
// bytes and the big-endian 32-bit seed r; child i's is SHA-1 of its parent's
// state and the big-endian 32-bit i (computed g times when the granularity
// -g asks for extra work). A node draws one uniform number u in [0, 1) from
// its own state, bytes 16–19 as a big-endian integer masked to 31 bits over
// 2³¹, and its number of children follows from u, its depth and the tree's
// Params: binomial trees give m children when u < q; geometric trees take
// ⌊ln(1−u)/ln(1−p)⌋ with p = 1/(1+b_i) and b_i from the shape function, at
// most MaxChildren. The tree is therefore the same on every machine and in
// every implementation, and the reference's sample trees (Samples) have
// published sizes, depths and leaf counts.
//
// The child counts must match the C reference bit for bit. The binomial
// test is exact in integers. A geometric node's count is a step function of
// its 31-bit number, so the tree keeps, per depth, the least number giving
// each count (thresholds found once by bisection), and a node compares
// instead of taking a logarithm. The per-depth constants (pow, sin, log in
// the reference) and the logarithms at the steps are computed correctly
// rounded, as glibc's functions are in all but rare cases; the tests check
// the thresholds of the sample trees against digests of those the C
// formula gives under glibc.
//
// Children are hashed sixteen at a time with AVX-512, or eight at a time
// with AVX2, where the processor has them (crypto/sha1 otherwise; see
// Kernel): a Search takes the pending children of the nodes at the top of
// its depth-first stack in batches.
//
// The tests count the sample trees T1–T5 and 272 other trees against the
// reference's statistics. The environment variable UTS_SAMPLES adds larger
// sample trees: "large" for T1L, T2L and T3L (about 100 million nodes each),
// "all" for every one up to T2XXL (19 billion nodes in all, tens of
// minutes), or a comma-separated list of names.
package tree

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math"
)

// State is a node's 20-byte SHA-1 state as five big-endian 32-bit words,
// the words SHA-1 itself computes with.
type State [5]uint32

// Bytes returns the state as the reference's 20 bytes.
func (s State) Bytes() [20]byte {
	var b [20]byte
	for i, w := range s {
		binary.BigEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// stateOf converts 20 digest bytes to a State.
func stateOf(b []byte) State {
	var s State
	for i := range s {
		s[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return s
}

// Rand returns the node's 31-bit random number: bytes 16–19 of the state,
// big-endian, masked to 31 bits. The node's uniform number is Rand()/2³¹.
func (s State) Rand() uint32 { return s[4] & 0x7fffffff }

// RootState returns the state of the root for seed r: SHA-1 of 16 zero
// bytes and r as a big-endian 32-bit two's-complement integer.
func RootState(r int) State {
	var b [20]byte
	binary.BigEndian.PutUint32(b[16:], uint32(int32(r)))
	d := sha1.Sum(b[:])
	return stateOf(d[:])
}

// ChildState returns the state of child i of a node with state s: SHA-1 of
// the 20 state bytes and i as a big-endian 32-bit integer.
func ChildState(s State, i int) State {
	var b [24]byte
	for j, w := range s {
		binary.BigEndian.PutUint32(b[4*j:], w)
	}
	binary.BigEndian.PutUint32(b[20:], uint32(i))
	d := sha1.Sum(b[:])
	return stateOf(d[:])
}

// Tree is a UTS tree: its parameters and what a node needs to know its
// number of children. It is immutable after New and safe for concurrent
// use.
type Tree struct {
	p         Params
	root      State
	rootCount int32   // Binomial: ⌊b⌋; Balanced: (int)b; else unused
	m         int32   // Binomial, Hybrid: min(M, MaxChildren)
	qScaled   float64 // q·2³¹: a node is a non-leaf iff its Rand() < qScaled (exact)
	geoDepth  int     // Hybrid: depths below it are geometric (the reference's height < f·d)
	bal       int32   // Balanced: (int)b children above Depth
	geo       geometric
}

// New returns the tree of valid parameters p.
func New(p Params) (*Tree, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	t := &Tree{p: p, root: RootState(p.Root)}
	t.rootCount = cInt(math.Floor(p.B))
	t.bal = cInt(p.B)
	t.m = int32(min(p.M, MaxChildren))
	t.qScaled = p.Q * (1 << 31)
	if p.Type == Hybrid {
		// The reference compares height < f·d in doubles: count those
		// heights (none when f·d ≤ 0).
		lim := p.Shift * float64(int32(p.Depth))
		switch {
		case !(lim > 0):
			t.geoDepth = 0
		case lim > 1<<31:
			// Every height (an int32) is below it; math.MaxInt rather
			// than 1<<31 so that 32-bit platforms build.
			t.geoDepth = math.MaxInt
		default:
			t.geoDepth = int(math.Ceil(lim))
		}
	}
	if p.Type == Geometric || p.Type == Hybrid {
		maxDepth := math.MaxInt32
		if p.Type == Hybrid {
			maxDepth = t.geoDepth
		}
		if maxDepth > 0 {
			t.geo.init(p, maxDepth)
		}
	}
	return t, nil
}

// MustNew is New for parameters known to be valid; it panics on invalid
// ones.
func MustNew(p Params) *Tree {
	t, err := New(p)
	if err != nil {
		panic(err)
	}
	return t
}

// Params returns the tree's parameters.
func (t *Tree) Params() Params { return t.p }

// Root returns the state of the root.
func (t *Tree) Root() State { return t.root }

// cInt is C's (int) conversion of a double on x86-64: truncation toward
// zero, and INT_MIN for NaN and values outside the 32-bit range.
func cInt(x float64) int32 {
	if !(x > -(1<<31)-1 && x < 1<<31) {
		return math.MinInt32
	}
	return int32(x)
}

// Children returns the number of children of the node of state s at the
// given height (the root has height 0), as the reference computes it; 0
// for a leaf (the reference's count may then be negative).
func (t *Tree) Children(s State, height int) int {
	return int(max(t.children(s.Rand(), height), 0))
}

// children is Children from the node's random number; it may return a
// negative count for a leaf.
func (t *Tree) children(h uint32, height int) int32 {
	switch t.p.Type {
	case Binomial:
		if height == 0 {
			return t.rootCount // the root is exempt from the cap
		}
		return t.bin(h)
	case Geometric:
		return t.geo.count(h, height)
	case Hybrid:
		if height < t.geoDepth {
			return t.geo.count(h, height)
		}
		return t.bin(h)
	default: // Balanced, no cap
		if height < t.p.Depth {
			return t.bal
		}
		return 0
	}
}

// bin is the binomial rule below the root: min(m, MaxChildren) children
// with probability q. The reference's test u < q with u = h/2³¹ is exactly
// h < q·2³¹, the scaling by a power of two being exact.
func (t *Tree) bin(h uint32) int32 {
	if float64(h) < t.qScaled {
		return t.m
	}
	return 0
}

// String describes the tree in the reference's flags.
func (t *Tree) String() string { return fmt.Sprintf("UTS %v (%v)", t.p.Type, t.p) }
