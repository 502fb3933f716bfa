package sim_test

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/sim"
)

// chain is an app of one task that never splits: n nodes worked in order.
type chain struct{ n int64 }

type chainTask struct{ left int64 }

func (a *chain) Root() lb.Task { return &chainTask{a.n} }

func (a *chain) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) != 8 {
		return nil, errors.New("chain: bad task")
	}
	return &chainTask{int64(binary.LittleEndian.Uint64(b))}, nil
}

func (a *chain) Combine(x, y int64) int64 { return x + y }
func (a *chain) Result() int64            { return 0 }

func (t *chainTask) Work(budget int64) int64 {
	n := min(budget, t.left)
	t.left -= n
	return n
}
func (t *chainTask) Empty() bool    { return t.left == 0 }
func (t *chainTask) Split() lb.Task { return nil }
func (t *chainTask) AppendBinary(b []byte) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(b, uint64(t.left)), nil
}

// TestSimThrottleWholePause: under throttling a rank whose request was
// rejected holds the next one back for its whole pause, counted from the
// rejection, as the driver's loop does (lb/driver's pace.advance after
// every slice and message). Rank 1 asks rank 0, whose one task never
// splits, again and again for 120 ms of 1-ms slices: its k-th rejection in
// a row holds the next request at least (p−1) ticks, p = min(2^k, the
// longest pause), and every answer waits for the end of a slice, which
// bounds the requests the run has time for. The simulator used to tell a
// rank its ticks only on a tick's wake-up, so a hold that began long after
// the last one counted the time before it: rank 1 sent 66 requests where
// 65 at most fit (47 now; the simulation is deterministic).
func TestSimThrottleWholePause(t *testing.T) {
	const pauseNS, maxPauseNS, latencyNS = 20000, 2e6, 1000
	m := lb.Machine{NodeNS: 10, LatencyNS: latencyNS, PauseNS: pauseNS, MaxPauseNS: maxPauseNS}
	w, err := sim.New(2, sim.Config{Machine: m})
	if err != nil {
		t.Fatal(err)
	}
	info, err := lb.Lookup("rp")
	if err != nil {
		t.Fatal(err)
	}
	cfg := lb.Config{Balancer: info.New, Budget: 100000, RankStats: true} // slices of 1 ms
	_, out, err := lb.Run(w, cfg, func() lb.Reducer[int64] { return &chain{12_000_000} })
	if err != nil {
		t.Fatal(err)
	}
	var asked int64
	for _, s := range out.Ranks {
		if s.Rank == 1 {
			asked = s.RequestsSent
		}
	}
	// Rank 0 answers at the ends of its slices, every millisecond; after
	// its k-th rejection rank 1 holds its next request at least (p−1)
	// ticks. So each answer comes at the first slice end after the last
	// one plus a round trip and that hold: a bound on the answers the run
	// has time for, and so on the requests (one more, the last, answered by
	// the end of the search; one more for slack).
	const slice = 1e6 // ns
	most := int64(1)
	for at, k := slice, int64(0); at <= out.Seconds*1e9; k++ {
		p := min(float64(int64(1)<<min(k, 40)), maxPauseNS/pauseNS)
		at = (math.Floor((at+2*latencyNS+(p-1)*pauseNS)/slice) + 1) * slice
		most++
	}
	if asked < 10 || asked > most+1 {
		t.Errorf("rank 1 sent %d requests; whole pauses leave time for %d at most", asked, most+1)
	}
	t.Logf("rank 1: %d requests in %.0f µs, at most %d with whole pauses", asked, out.Seconds*1e6, most+1)
}
