//go:build !mpi

package driver

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestWakeHeap: the pool's heap of wake-ups pops them in time order, ties
// and all, as pushes and pops interleave.
func TestWakeHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h wakeHeap
	var want []time.Duration // what is in the heap, sorted
	for i := range 5000 {
		if len(want) == 0 || rng.IntN(3) > 0 {
			at := time.Duration(rng.IntN(200))
			h.push(wake{at: at, rank: int32(i)})
			k, _ := slices.BinarySearch(want, at)
			want = slices.Insert(want, k, at)
			continue
		}
		if w := h.pop(); w.at != want[0] {
			t.Fatalf("pop %d: got the wake-up at %v, want %v", i, w.at, want[0])
		}
		want = want[1:]
	}
	for len(want) > 0 {
		if w := h.pop(); w.at != want[0] {
			t.Fatalf("draining: got %v, want %v", w.at, want[0])
		}
		want = want[1:]
	}
	if len(h) != 0 {
		t.Fatalf("%d wake-ups left", len(h))
	}
}
