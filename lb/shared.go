package lb

import (
	"fmt"
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
func fastInitPiece(root Task, rank, size int) Task {
	t := root
	for j := bits.Len(uint(size-1)) - 1; j >= 0 && t != nil; j-- {
		// The ranks that agree on the bits above j hold the same t; its
		// lower half (bit j = 0) keeps it, its upper half takes the piece.
		mask := 1 << j
		if rank&^(mask<<1-1)|mask >= size {
			continue // no upper half: keep all
		}
		if piece := t.Split(); rank&mask != 0 {
			t = piece
		}
	}
	return t
}

// sharedPerm returns the same pseudo-random permutation of 0..n-1 on every
// rank of a run; O(n) time and memory.
func sharedPerm(seed uint64, n int) []int {
	return rand.New(rand.NewPCG(seed, 0x10ca1)).Perm(n)
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
// header followed by the task's encoding.
func (c *core) sendTask(to int, header []byte, t Task) {
	data, err := t.AppendBinary(header)
	if err != nil {
		panic(fmt.Sprintf("lb: rank %d: packing a task: %v", c.rank, err)) // the app's bug
	}
	c.stats.TasksSent++
	c.send(to, KWork, data)
}

// unpack decodes a task received from another rank of the same run.
func (c *core) unpack(data []byte) Task {
	t, err := c.env.App.Unmarshal(data)
	if err != nil {
		panic(fmt.Sprintf("lb: rank %d: a task from another rank does not decode: %v", c.rank, err)) // tasks come from the same binary
	}
	return t
}
