// Package alphatree generates the synthetic trees of seed 003 §4.1 as a
// tree-shaped computation for package lb: a node at level l spawns two
// children with probability α^l and is a leaf otherwise, the root at level
// 0 (so the root always spawns). Trees are bushy near the root and die out
// gradually; α close to 1 gives large trees (the seed uses α = 0.96, 0.965
// and 0.97; ExpectedNodes gives the mean size).
//
// A tree is a fixed function of α and a seed, whichever rank expands which
// node: each node carries a 64-bit hash, the root's derived from the seed
// and each child's from its parent's hash and its side, and the node spawns
// iff its uniform number u = ⌊hash/2^11⌋·2^−53 ∈ [0, 1) is below α^l. The
// powers α^l are products α·α·…·α rounded after every multiplication, the
// same on every machine. So the node count, the leaf count and the height
// are exactly the same under every balancer, rank count and schedule, and
// the sum of the nodes' hashes (Result.Digest) checks that the very same
// nodes were visited.
package alphatree

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/treelb/treelb/apps/integrate/internal/nodestack"
	"github.com/treelb/treelb/hashtable"
	"github.com/treelb/treelb/internal/wire"
)

// SeedAlphas returns seed 003's values of α (§4.1), a new slice on every
// call: 0.96, 0.965 and 0.97.
func SeedAlphas() []float64 { return []float64{0.96, 0.965, 0.97} }

// MaxLevel is the deepest level of a tree: a node there is a leaf whatever
// its number. No tree that could be expanded reaches it: the expected
// number of nodes at level l, 2^l·α^(l(l−1)/2), bounds the probability
// that the level is reached, and it is below 10^−1000 at l = 65535 for
// every α ≤ 0.9999; for larger α the expected tree has more than 10^1000
// nodes.
const MaxLevel = 1<<16 - 1

// golden is 2^64/φ, the increment of SplitMix64.
const golden = 0x9e3779b97f4a7c15

// Problem is an α-tree: α and the seed. It is immutable and safe for
// concurrent use; each rank has its own App.
type Problem struct {
	alpha float64
	seed  uint64
}

// New returns the α-tree for α ∈ (0, 1) and seed.
func New(alpha float64, seed uint64) (*Problem, error) {
	if !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("alphatree: α = %v: need 0 < α < 1", alpha)
	}
	return &Problem{alpha: alpha, seed: seed}, nil
}

// Alpha returns α.
func (p *Problem) Alpha() float64 { return p.alpha }

// Seed returns the seed.
func (p *Problem) Seed() uint64 { return p.seed }

// rootHash is the root's hash: the seed mixed (SplitMix64's first output
// for that seed).
func (p *Problem) rootHash() uint64 { return hashtable.Mix64(p.seed + golden) }

// childHash returns the hash of the child on side 0 (left) or 1 (right) of
// a node with hash h: the next two SplitMix64 outputs after h.
func childHash(h, side uint64) uint64 { return hashtable.Mix64(h + (side+1)*golden) }

// uniform maps a hash to [0, 1) in steps of 2^−53.
func uniform(h uint64) float64 { return float64(h>>11) * 0x1p-53 }

// Solve expands the whole tree on one core, the sequential baseline.
func (p *Problem) Solve() Result {
	app := NewApp(p)
	nodestack.Drain(app.root())
	return app.Result()
}

// ExpectedNodes returns the mean number of nodes of an α-tree,
// Σ_l 2^l·∏_{k<l} α^k = Σ_l 2^l·α^(l(l−1)/2), summed until the terms are
// negligible; +Inf for α ≥ 1 and where it exceeds the float64 range. For
// the seed's α it is 6.3·10³ (α = 0.96), 1.6·10⁴ (0.965) and 5.4·10⁴
// (0.97); it is 3.6·10⁶ at α = 0.98, 2.3·10⁸ at 0.985 and 8.5·10¹¹ at 0.99.
func ExpectedNodes(alpha float64) float64 {
	if alpha >= 1 {
		return math.Inf(1)
	}
	if alpha <= 0 {
		return 1
	}
	la := math.Log(alpha)
	peak := math.Ln2 / -la // the terms grow up to about this level
	var sum float64
	for l := 0.0; l <= MaxLevel; l++ {
		term := math.Exp(l*math.Ln2 + l*(l-1)/2*la)
		sum += term
		if l > peak && term < sum*1e-17 {
			break
		}
	}
	return sum
}

// Result is the outcome of expanding an α-tree, or one rank's part of it.
type Result struct {
	Nodes  int64  // nodes expanded
	Leaves int64  // nodes that did not spawn (Nodes = 2·Leaves − 1 for a whole tree)
	Height int64  // the deepest level expanded; the root is level 0
	Digest uint64 // the sum of the expanded nodes' hashes, modulo 2^64
}

// MarshalBinary encodes r in 32 bytes (nodes, leaves, height, digest: a
// wire tally), the encoding lb's reductions and checkpoints use.
func (r Result) MarshalBinary() ([]byte, error) {
	b, err := wire.AppendTally(make([]byte, 0, 32), r.Digest, r.Nodes, r.Leaves, r.Height)
	if err != nil {
		return nil, fmt.Errorf("alphatree: result: %w", err)
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary encoded; any other bytes are
// an error.
func (r *Result) UnmarshalBinary(b []byte) error {
	var v Result
	if err := wire.Tally(b, &v.Digest, &v.Nodes, &v.Leaves, &v.Height); err != nil {
		return fmt.Errorf("alphatree: malformed result: %w", err)
	}
	*r = v
	return nil
}

// merge adds o's counts to r; the height is the larger.
func (r *Result) merge(o *Result) {
	r.Nodes += o.Nodes
	r.Leaves += o.Leaves
	r.Height = max(r.Height, o.Height)
	r.Digest += o.Digest
}

// node is an open node: its hash and level.
type node struct {
	hash  uint64
	level int32
}

// Level returns the node's level; the root is level 0.
func (n node) Level() int { return int(n.level) }

// AppendBinary appends the hash (8 bytes little-endian) and the level
// (uvarint).
func (n node) AppendBinary(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, n.hash)
	return binary.AppendUvarint(b, uint64(n.level))
}

// nodeMin is the fewest bytes an encoded node takes.
const nodeMin = 8 + 1

// decodeNode decodes a node from the front of b: any hash, a level up to
// MaxLevel.
func decodeNode(b []byte) (node, int, error) {
	if len(b) < 8 {
		return node{}, 0, errors.New("cut short")
	}
	level, k := binary.Uvarint(b[8:])
	if k <= 0 || level > MaxLevel {
		return node{}, 0, errors.New("bad level")
	}
	return node{binary.LittleEndian.Uint64(b), int32(level)}, 8 + k, nil
}

// leaf reports whether n spawns no children: at MaxLevel, or with
// probability 1 − α^level by its hash.
func (a *App) leaf(n node) bool {
	return n.level >= MaxLevel || uniform(n.hash) >= a.power(int(n.level))
}

// spawn returns n's children as expand pushes them, or nil for a leaf
// (nodestack.Spawn), counting nothing.
func (a *App) spawn(n node) []node {
	if a.leaf(n) {
		return nil
	}
	return []node{{childHash(n.hash, 1), n.level + 1}, {childHash(n.hash, 0), n.level + 1}}
}

// expand is the App's expansion step (nodestack.Expand): it expands up to
// budget nodes from the end of st, depth first and left to right, pushing
// the children of those that spawn, and returns the stack and how many it
// expanded. Once the stack and the table of powers of α have grown to the
// tree's depth it allocates nothing.
func (a *App) expand(st []node, budget int64) ([]node, int64) {
	res := &a.res
	var nodes, leaves int64
	var digest uint64
	height := res.Height
	for nodes < budget && len(st) > 0 {
		n := st[len(st)-1]
		st = st[:len(st)-1]
		nodes++
		digest += n.hash
		height = max(height, int64(n.level))
		if a.leaf(n) {
			leaves++
			continue
		}
		st = append(st, node{childHash(n.hash, 1), n.level + 1}, node{childHash(n.hash, 0), n.level + 1})
	}
	res.Nodes += nodes
	res.Leaves += leaves
	res.Height = height
	res.Digest += digest
	return st, nodes
}
