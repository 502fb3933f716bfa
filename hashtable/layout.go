package hashtable

import (
	"fmt"
	"math/bits"
	"strings"
)

// Alloc is a bucket allocation: the map from the m buckets of the table to
// the p subtables (ranks). The zero value is Block.
type Alloc int

// The allocations of seed 004 §2.1, plus the balanced mapping of its
// footnote 1.
const (
	// Block gives rank r the buckets [r·q, (r+1)·q) with q = ⌈m/p⌉. When p
	// does not divide m the last ranks get fewer buckets, or none (m = p+1
	// gives two buckets to each of the first ⌊(p+1)/2⌋ ranks, for even p one
	// to the next, and none to the rest).
	Block Alloc = iota
	// Modular gives bucket b to rank b mod p. Subtables differ by at most
	// one bucket for every m.
	Modular
	// Balanced gives rank r the contiguous buckets [⌊r·m/p⌋, ⌊(r+1)·m/p⌋):
	// block-like locality with subtables that differ by at most one bucket
	// when p does not divide m (the "little more complicated" mapping of
	// footnote 1). It equals Block when p divides m.
	Balanced
)

// String returns the name ParseAlloc accepts.
func (a Alloc) String() string {
	switch a {
	case Block:
		return "block"
	case Modular:
		return "modular"
	case Balanced:
		return "balanced"
	}
	return fmt.Sprintf("Alloc(%d)", int(a))
}

// ParseAlloc returns the allocation named s ("block", "modular" or
// "balanced", case-insensitive).
func ParseAlloc(s string) (Alloc, error) {
	for _, a := range []Alloc{Block, Modular, Balanced} {
		if strings.EqualFold(s, a.String()) {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown allocation %q (want block, modular or balanced)", s)
}

// MarshalText encodes the allocation as its name.
func (a Alloc) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// Layout maps 64-bit hashes to buckets and buckets to (rank, local bucket).
// A hash h goes to bucket ⌊h·m/2^64⌋ (Lemire's multiply-shift, which uses
// the well-mixed high bits and needs no division). The zero value is not a
// valid layout; make one with NewLayout. A Layout is an immutable value,
// safe for concurrent use; every method is O(1).
type Layout struct {
	p, m  uint64
	q     uint64 // Block: ⌈m/p⌉
	alloc Alloc
	fast  bool // Block with m = p·q: split h·p without division
}

// MaxBuckets bounds m·p so that the index arithmetic stays in 63 bits.
const MaxBuckets = 1 << 62

// NewLayout returns the layout of m buckets over p ranks with allocation a.
func NewLayout(p, m int, a Alloc) (Layout, error) {
	switch {
	case p < 1:
		return Layout{}, fmt.Errorf("hashtable: layout: %d ranks, need at least 1", p)
	case m < 1:
		return Layout{}, fmt.Errorf("hashtable: layout: %d buckets, need at least 1", m)
	case a < Block || a > Balanced:
		return Layout{}, fmt.Errorf("hashtable: layout: unknown allocation %d", int(a))
	}
	if hi, lo := bits.Mul64(uint64(m), uint64(p)); hi != 0 || lo > MaxBuckets {
		return Layout{}, fmt.Errorf("hashtable: layout: %d buckets × %d ranks is too large", m, p)
	}
	l := Layout{p: uint64(p), m: uint64(m), q: (uint64(m) + uint64(p) - 1) / uint64(p), alloc: a}
	exact := l.p*l.q == l.m
	if a == Balanced && exact {
		l.alloc = Block // identical map, faster arithmetic
	}
	l.fast = l.alloc == Block && exact
	return l, nil
}

// Ranks returns p.
func (l Layout) Ranks() int { return int(l.p) }

// Buckets returns m, the number of buckets of the whole table.
func (l Layout) Buckets() int { return int(l.m) }

// Alloc returns the allocation; Balanced reports itself as Block when p
// divides m, where the two coincide.
func (l Layout) Alloc() Alloc { return l.alloc }

func mulhi(a, b uint64) (hi, lo uint64) { return bits.Mul64(a, b) }

// Bucket returns the global bucket of hash h, in [0, m).
func (l Layout) Bucket(h uint64) int {
	b, _ := mulhi(h, l.m)
	return int(b)
}

// Owner returns the rank that owns the bucket of hash h.
func (l Layout) Owner(h uint64) int {
	if l.fast {
		r, _ := mulhi(h, l.p)
		return int(r)
	}
	r, _ := l.split(uint64(l.Bucket(h)))
	return int(r)
}

// Locate returns the owner of the bucket of hash h and the bucket's index
// in the owner's subtable.
func (l Layout) Locate(h uint64) (owner, local int) {
	if l.fast {
		// ⌊h·m/2^64⌋ = r·q + j with r = ⌊h·p/2^64⌋ and j = ⌊(h·p mod 2^64)·q/2^64⌋.
		r, lo := mulhi(h, l.p)
		j, _ := mulhi(lo, l.q)
		return int(r), int(j)
	}
	return l.locateSlow(h)
}

func (l Layout) locateSlow(h uint64) (owner, local int) {
	r, j := l.split(uint64(l.Bucket(h)))
	return int(r), int(j)
}

// Place returns the owner of global bucket b and b's index in the owner's
// subtable.
func (l Layout) Place(b int) (owner, local int) {
	r, j := l.split(uint64(b))
	return int(r), int(j)
}

func (l Layout) split(b uint64) (owner, local uint64) {
	switch l.alloc {
	case Block:
		return b / l.q, b % l.q
	case Modular:
		return b % l.p, b / l.p
	default: // Balanced: the largest r with ⌊r·m/p⌋ ≤ b.
		r := ((b+1)*l.p - 1) / l.m
		return r, b - r*l.m/l.p
	}
}

// Global returns the global bucket of local bucket j of rank r; it inverts
// Place.
func (l Layout) Global(r, j int) int {
	ur, uj := uint64(r), uint64(j)
	switch l.alloc {
	case Block:
		return int(ur*l.q + uj)
	case Modular:
		return int(uj*l.p + ur)
	default:
		return int(ur*l.m/l.p + uj)
	}
}

// Size returns the number of buckets in rank r's subtable.
func (l Layout) Size(r int) int {
	ur := uint64(r)
	if ur >= l.p {
		return 0
	}
	switch l.alloc {
	case Block:
		start := min(ur*l.q, l.m)
		return int(min(start+l.q, l.m) - start)
	case Modular:
		if ur >= l.m {
			return 0
		}
		return int((l.m - ur + l.p - 1) / l.p)
	default:
		return int((ur+1)*l.m/l.p - ur*l.m/l.p)
	}
}

// UnmarshalText decodes an allocation name, as ParseAlloc does.
func (a *Alloc) UnmarshalText(b []byte) error {
	x, err := ParseAlloc(string(b))
	if err != nil {
		return err
	}
	*a = x
	return nil
}
