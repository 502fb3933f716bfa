package lb

import "testing"

// spawnApp is the dynamic binary tree of seed 003, Theorem 1: every
// executed task spawns two new tasks, forever.
type spawnApp struct{}

type spawnTask struct{}

func (spawnTask) Work(int64) int64                      { return 1 }
func (spawnTask) Empty() bool                           { return false }
func (spawnTask) Split() Task                           { return spawnTask{} }
func (spawnTask) AppendBinary(b []byte) ([]byte, error) { return b, nil }

func (spawnApp) Root() Task                     { return spawnTask{} }
func (spawnApp) Unmarshal([]byte) (Task, error) { return spawnTask{}, nil }

// stepModel drives the real koso state machines in the synchronous step
// model of seed 003 §2.2: in every step each rank with a non-empty queue
// executes its shallowest task (one node), which spawns; then every message
// of the step is delivered, load reports included, before the next step.
// It returns the load disparity (max − min tasks queued) after each step.
func stepModel(t *testing.T, p int, star bool, steps int) []int {
	bs := make([]*koso, p)
	for r := range bs {
		bs[r] = newRing(Env{Rank: r, Size: p, App: spawnApp{}, Rand: NewRand(1, r)}, star)
	}
	var inflight []Msg
	collect := func() {
		for _, b := range bs {
			inflight = append(inflight, b.Outbox()...)
		}
	}
	deliver := func() {
		for len(inflight) > 0 {
			msgs := inflight
			inflight = nil
			for _, m := range msgs {
				bs[m.To].Deliver(m)
			}
			collect()
		}
	}
	for _, b := range bs {
		b.Start(spawnTask{})
	}
	collect()
	deliver()
	disparity := make([]int, steps+1)
	for n := 1; n <= steps; n++ {
		for _, b := range bs {
			if task := b.Task(); task != nil {
				task.Work(1)
				b.Tick(1)
			}
		}
		collect()
		deliver()
		lo, hi := bs[0].Load(), bs[0].Load()
		for _, b := range bs {
			lo, hi = min(lo, b.Load()), max(hi, b.Load())
		}
		disparity[n] = hi - lo
	}
	return disparity
}

// TestKOSOLoadDisparity checks seed 003, Theorem 1 on the koso and
// koso-star balancers for rings of p = 2..16 ranks: (a) under KOSO the load
// disparity is exactly p−2 after N ≥ p−1 steps; (b) under KOSO* it is
// exactly 1 after N ≥ (p−1)² steps (0 for p = 2, see below).
func TestKOSOLoadDisparity(t *testing.T) {
	for p := 2; p <= 16; p++ {
		steps := (p-1)*(p-1) + 4*p
		d := stepModel(t, p, false, steps)
		for n := p - 1; n <= steps; n++ {
			if d[n] != p-2 {
				t.Fatalf("KOSO p=%d: disparity %d after %d steps, want %d (all: %v)", p, d[n], n, p-2, d)
			}
		}
		// For p = 2 the total load is even after every step (it starts at 2
		// and grows by 2), so a disparity of exactly 1 is impossible: KOSO*
		// balances the pair exactly (disparity 0), the theorem's "at most 1".
		want := 1
		if p == 2 {
			want = 0
		}
		d = stepModel(t, p, true, steps)
		for n := (p - 1) * (p - 1); n <= steps; n++ {
			if d[n] != want {
				t.Fatalf("KOSO* p=%d: disparity %d after %d steps, want %d (all: %v)", p, d[n], n, want, d)
			}
		}
	}
}
