package lb

import (
	"math/bits"
	"math/rand/v2"
)

// This file holds what several balancers share: placing the pieces of the
// root, shared permutations, choosing a rank to ask, and moving tasks.

// fastInitPiece splits root ⌈log2 P⌉ times following the bits of rank, from
// the highest, keeping the given-away part where the bit is 1 (seed 002,
// §4.3). Where a group of ranks has no upper half (P not a power of two),
// its lower half keeps the whole task. Every rank computes its piece alone;
// the pieces are disjoint and cover the tree.
//
// cuts, when not nil, counts the splits made.
func fastInitPiece(root Task, rank, size int, cuts *int64) Task {
	t := root
	for j := bits.Len(uint(size-1)) - 1; j >= 0 && t != nil; j-- {
		// The ranks that agree on the bits above j hold the same t; its
		// lower half (bit j = 0) keeps it, its upper half takes the piece.
		mask := 1 << j
		if rank&^(mask<<1-1)|mask >= size {
			continue // no upper half: keep all
		}
		t = halve(t, rank&mask != 0, cuts)
	}
	return t
}

// halve returns the part of t that Split gives away when give is true,
// what it keeps otherwise, in place when t is a Halver; nil when give is
// true and Split gives nothing. It counts the split in cuts when cuts is
// not nil.
func halve(t Task, give bool, cuts *int64) Task {
	if cuts != nil {
		*cuts++
	}
	if h, ok := t.(Halver); ok {
		if !h.Halve(give) && give {
			return nil
		}
		return t
	}
	if piece := t.Split(); give {
		return piece
	}
	return t
}

// rankPerm is a pseudo-random permutation of the ranks 0..n-1 that every
// rank of a run computes alike from the run's seed: a twelve-round Feistel
// network on the 2h-bit words, 4^h the smallest power of four ≥ n, walked
// in cycles until it lands in 0..n-1 (Black and Rogaway's cycle walking).
// Twelve rounds, not Luby and Rackoff's four, because the halves are tiny
// for small n (2 bits for n ≤ 16), where four rounds leave the pairs
// (π(s), π(t)) far from uniform over the seeds and eight still visibly so
// (TestPollShuffleLemma13). at and inv cost O(1) expected time (fewer than
// four passes of walking on average, as 4^h < 4n) and the permutation O(1)
// memory, so no rank builds an O(P) table. The zero value is not usable;
// make one with newRankPerm.
type rankPerm struct {
	n    uint64
	half uint   // h, the bits of a half
	mask uint64 // 2^h − 1
	keys [12]uint64
}

// newRankPerm returns the permutation of 0..n-1 drawn from seed and salt.
func newRankPerm(seed, salt uint64, n int) rankPerm {
	h := uint(1)
	for uint64(1)<<(2*h) < uint64(n) {
		h++
	}
	p := rankPerm{n: uint64(n), half: h, mask: 1<<h - 1}
	rng := rand.New(rand.NewPCG(seed, salt))
	for i := range p.keys {
		p.keys[i] = rng.Uint64()
	}
	return p
}

// round is the Feistel round function of key k: the SplitMix64 finalizer
// of x ⊕ k, whose every output bit depends on every input bit. (A single
// multiply-xorshift let the low output bits depend almost affinely on the
// few bits of x, which made the permutations of small n nearly affine over
// GF(2): for n = 16, π(0) ⊕ π(1) took one value for 94% of the seeds.)
func (p *rankPerm) round(x, k uint64) uint64 {
	x ^= k
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x & p.mask
}

// at returns π(i).
func (p *rankPerm) at(i int) int {
	x := uint64(i)
	for {
		l, r := x>>p.half, x&p.mask
		for _, k := range p.keys {
			l, r = r, l^p.round(r, k)
		}
		if x = l<<p.half | r; x < p.n {
			return int(x)
		}
	}
}

// inv returns π⁻¹(j).
func (p *rankPerm) inv(j int) int {
	x := uint64(j)
	for {
		l, r := x>>p.half, x&p.mask
		for i := len(p.keys) - 1; i >= 0; i-- {
			l, r = r^p.round(l, p.keys[i]), l
		}
		if x = l<<p.half | r; x < p.n {
			return int(x)
		}
	}
}

// otherRank returns a rank of first..end-1 other than self, uniformly at
// random; the range must hold at least two ranks and self.
func otherRank(rng *rand.Rand, self, first, end int) int {
	r := first + rng.IntN(end-first-1)
	if r >= self {
		r++
	}
	return r
}

// sendTask queues task t for rank to as a KWork message whose data is
// header followed by the task's encoding. When the task does not encode,
// nothing is sent and the rank fails with the app's error (taskError).
func (c *core) sendTask(to int, header []byte, t Task) {
	data, err := t.AppendBinary(header)
	if err != nil {
		c.failTask(RankErrorf(c.rank, "encoding a task for rank %d: %w", to, err))
		return
	}
	c.stats.TasksSent++
	c.send(to, KWork, data)
}

// unpack decodes a task received from rank from; when it does not decode,
// it returns nil and the rank fails with the app's error (taskError).
func (c *core) unpack(from int, data []byte) Task {
	t, err := c.env.App.Unmarshal(data)
	if err != nil {
		c.failTask(RankErrorf(c.rank, "a task from rank %d does not decode: %w", from, err))
		return nil
	}
	if t == nil {
		c.failTask(RankErrorf(c.rank, "a task from rank %d decodes to nil", from))
	}
	return t
}

// failTask records the first error of the app's encoding, which ends the
// run: Rank.Outbox reports it.
func (c *core) failTask(err error) {
	if c.taskErr == nil {
		c.taskErr = err
	}
}

// taskError returns the first error of the app's encoding on this rank.
func (c *core) taskError() error { return c.taskErr }

// taskFailer is a balancer that reports its app's encoding errors (every
// balancer built on core).
type taskFailer interface{ taskError() error }
