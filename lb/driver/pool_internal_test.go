//go:build !mpi

package driver

import (
	"errors"
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

// TestScheduleBounded: the pool's heap of wake-ups holds at most about
// twice as many entries as ranks however often idle ranks are woken and go
// idle again with new wake-up times (the stall watchdog's deadline moves
// with every piece of news, and before schedule's compaction every idle
// turn left an entry for the whole --stall-timeout), and no rank's wake-up
// is lost: after due(now) every waiting rank whose time has come is queued.
func TestScheduleBounded(t *testing.T) {
	const ranks = 8
	rng := rand.New(rand.NewPCG(3, 4))
	s := &session{slots: make([]slot, ranks), queue: make([]int32, ranks), kick: make(chan struct{}, 1)}
	for i := range s.slots {
		s.slots[i].wakeAt, s.slots[i].pushedAt = -1, -1
		s.slots[i].state = waiting
	}
	inQueue := func(i int) bool {
		for k := range s.qn {
			if int(s.queue[(s.qh+k)%len(s.queue)]) == i {
				return true
			}
		}
		return false
	}
	most := 0
	for now := time.Duration(1); now < 200000; now++ {
		s.due(now)
		for i := range s.slots {
			sl := &s.slots[i]
			if sl.state == waiting && sl.wakeAt >= 0 && sl.wakeAt <= now {
				t.Fatalf("at %d: rank %d waits for its wake-up at %d, not queued", now, i, sl.wakeAt)
			}
			if sl.state == queued && !inQueue(i) {
				t.Fatalf("at %d: rank %d is marked queued but is not in the queue", now, i)
			}
		}
		// A message wakes a waiting rank now and then.
		if i := rng.IntN(ranks); s.slots[i].state == waiting && rng.IntN(2) == 0 {
			s.enqueue(i)
		}
		// Each queued rank takes its turn and waits again.
		for s.qn > 0 {
			i := int(s.queue[s.qh])
			s.qh, s.qn = (s.qh+1)%len(s.queue), s.qn-1
			sl := &s.slots[i]
			switch r := rng.IntN(8); {
			case r < 4: // news: the watchdog's deadline moves
				sl.wakeAt = now + 1000000
			case r < 6: // only a request: the same deadline, come or not
			case r < 7: // a held request leaves soon
				sl.wakeAt = now + time.Duration(1+rng.IntN(50))
			default:
				sl.wakeAt = -1
			}
			sl.state = waiting
			s.schedule(i)
		}
		most = max(most, len(s.wakes))
	}
	if most > 2*ranks+64 {
		t.Errorf("the heap held %d wake-ups for %d ranks", most, ranks)
	}
	t.Logf("at most %d wake-ups in the heap", most)
}

// TestSettleAfterFailure: a rank whose turn ends after its session failed
// hears of it, whether its turn ended well or with an error of its own
// (the world's abort seen by turn, after another worker saw it asleep):
// failLocked leaves the ranks on workers to settle, and a first version of
// that left such a rank's goroutine waiting for ever.
func TestSettleAfterFailure(t *testing.T) {
	for _, turnErr := range []error{nil, errPoolAborted, errors.New("its own error")} {
		s := &session{slots: make([]slot, 2), queue: make([]int32, 2), kick: make(chan struct{}, 1)}
		for i := range s.slots {
			s.slots[i].done = make(chan error, 1)
			s.slots[i].state = running
		}
		s.failLocked(-1, errPoolAborted)
		for i := range s.slots {
			s.settle(i, turnIdle, nil, turnErr)
			select {
			case err := <-s.slots[i].done:
				if !errors.Is(err, errPoolAborted) {
					t.Errorf("turn error %v: rank %d heard %v, want the session's failure", turnErr, i, err)
				}
			default:
				t.Errorf("turn error %v: rank %d heard nothing of its session's failure", turnErr, i)
			}
			if s.slots[i].state != over {
				t.Errorf("turn error %v: rank %d is left in state %d", turnErr, i, s.slots[i].state)
			}
		}
	}
}
