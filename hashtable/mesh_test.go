package hashtable

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/treelb/treelb/mpi"
)

// TestMeshRoute: the dimension-order path from a to b on a k × k mesh runs
// along the row, then the column, one link at a time from the node it is
// at, and has |Δx| + |Δy| links; over all k⁴ ordered pairs (a = b allowed)
// the mean length is (2/3)(k − 1/k), the seed's average distance of a
// random message (§5).
func TestMeshRoute(t *testing.T) {
	for k := 1; k <= 7; k++ {
		sum := 0
		for a := range k * k {
			for b := range k * k {
				x, y := a%k, a/k
				turned := false
				n := meshRoute(k, a, b, func(l int) {
					node, d := l/4, l%4
					if node != y*k+x {
						t.Fatalf("k=%d %d→%d: link %d leaves node %d, the path is at %d", k, a, b, l, node, y*k+x)
					}
					switch d {
					case meshEast, meshWest:
						if turned {
							t.Fatalf("k=%d %d→%d: a row link after a column link", k, a, b)
						}
						if d == meshEast {
							x++
						} else {
							x--
						}
					default:
						turned = true
						if d == meshSouth {
							y++
						} else {
							y--
						}
					}
					if x < 0 || x >= k || y < 0 || y >= k {
						t.Fatalf("k=%d %d→%d: the path leaves the mesh", k, a, b)
					}
				})
				if y*k+x != b {
					t.Fatalf("k=%d %d→%d: the path ends at %d", k, a, b, y*k+x)
				}
				dx, dy := a%k-b%k, a/k-b/k
				if n != max(dx, -dx)+max(dy, -dy) {
					t.Fatalf("k=%d %d→%d: %d hops", k, a, b, n)
				}
				sum += n
			}
		}
		if got, want := float64(sum)/float64(k*k*k*k), MeanHopsUniform(k); math.Abs(got-want) > 1e-12 {
			t.Errorf("k=%d: mean hops %v, (2/3)(k − 1/k) = %v", k, got, want)
		}
	}
}

// TestBusiestLinkUniform: when every rank sends one message to every rank,
// each link carries exactly its expected load for uniform destinations
// with n = p messages per rank, and the busiest carries
// BusiestLinkUniform(k, p).
func TestBusiestLinkUniform(t *testing.T) {
	for k := 1; k <= 9; k++ {
		p := k * k
		load := make([]int, 4*p)
		for a := range p {
			for b := range p {
				meshRoute(k, a, b, func(l int) { load[l]++ })
			}
		}
		if got, want := float64(slices.Max(load)), BusiestLinkUniform(k, float64(p)); got != want {
			t.Errorf("k=%d: busiest link %v, want %v", k, got, want)
		}
	}
}

// TestMeshElementsAreRounds: the elements the mesh model dispatches are the
// ones Runner.Round generates and dispatches (Revisit = 0): the same number
// per rank, in the same order, each to the owner of its bucket.
func TestMeshElementsAreRounds(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("compares with rounds on its own embedded worlds")
	}
	for _, a := range []Alloc{Block, Modular} {
		for _, p := range []int{4, 9} {
			mp := MeshParams{Q: 5, Beta: 3, Alloc: a, Seed: 77}
			var mu sync.Mutex
			owners := make([][][]int32, 2) // [round][rank]
			for i := range owners {
				owners[i] = make([][]int32, p)
			}
			err := mpi.Run(p, func(c *mpi.Comm) error {
				r, err := NewRunner(c, RoundParams{Q: mp.Q, Alpha: 2, Beta: mp.Beta, Alloc: a, Seed: mp.Seed})
				if err != nil {
					return err
				}
				for round := range 2 {
					if _, err := r.Round(round); err != nil {
						return err
					}
					var own []int32
					for _, key := range r.Generated() {
						own = append(own, int32(r.New().Layout().Owner(Hash(key))))
					}
					mu.Lock()
					owners[round][c.Rank()] = own
					mu.Unlock()
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for round := range 2 {
				dst, off := meshGen(p, mp.Q, round, mp)
				for i := range p {
					if !slices.Equal(dst[off[i]:off[i+1]], owners[round][i]) {
						t.Errorf("%v p=%d round %d rank %d: the model dispatches %v, the round %v", a, p, round, i, dst[off[i]:off[i+1]], owners[round][i])
					}
				}
			}
		}
	}
}

// gcelMesh is the GCel's parameters of lb's machine catalogue (overhead 20
// µs, latency 10 µs, 5 µs a hop, 550 ns a byte) on 24-byte messages.
func gcelMesh() MeshParams {
	return MeshParams{Q: 1, Beta: 4, Seed: 1, Rounds: 1, Bytes: 24, OverheadNS: 20000, LatencyNS: 10000, HopNS: 5000, ByteNS: 550, Contention: true}
}

// TestMeshReplayTimes checks the timing rules on hand-made dispatches of a
// 2 × 2 mesh: a lone message takes the zero-load latency t_s + t_h·D +
// t_w·L (t_s = 2o + latency), and (D−1)·t_w·L more when stored and
// forwarded; two messages that share a link leave it one transfer apart,
// the first sent first (ties by rank); a receiver takes o per message; and
// with contention off nobody waits.
func TestMeshReplayTimes(t *testing.T) {
	mp := gcelMesh()
	o, lat, hop, xfer := mp.OverheadNS, mp.LatencyNS, mp.HopNS, float64(mp.Bytes)*mp.ByteNS
	// Rank 0 → 3 (east, then south: 2 hops).
	lone := meshReplay(2, []int32{3}, []int{0, 1, 1, 1, 1}, mp)
	if got, want := lone.dispatch, 2*o+lat+2*hop+xfer; got != want || lone.latency+2*o != want {
		t.Errorf("lone message: %v ns, latency %v, want %v", got, lone.latency+2*o, want)
	}
	sf := mp
	sf.StoreForward = true
	if got, want := meshReplay(2, []int32{3}, []int{0, 1, 1, 1, 1}, sf).dispatch, 2*o+lat+2*(hop+xfer); got != want {
		t.Errorf("lone message, store and forward: %v ns, want %v", got, want)
	}
	// Rank 0 → 3 and rank 1 → 3 share the link south from rank 1. Rank 0's
	// is routed first (same leaving time, lower rank): it holds the link
	// from o+lat+hop for xfer; rank 1's, there at o+lat, waits for it.
	r := meshReplay(2, []int32{3, 3}, []int{0, 1, 2, 2, 2}, mp)
	first := o + lat + 2*hop + xfer
	second := o + lat + hop + xfer + hop + xfer
	recv := func(a, b float64) float64 { // rank 3 handles them in order of arrival
		a, b = min(a, b), max(a, b)
		return max(a+o, b) + o
	}
	if want := recv(first, second); r.dispatch != want || r.maxLink != 2 {
		t.Errorf("two messages: %v ns (busiest link %d), want %v", r.dispatch, r.maxLink, want)
	}
	free := mp
	free.Contention = false
	if got, want := meshReplay(2, []int32{3, 3}, []int{0, 1, 2, 2, 2}, free).dispatch, recv(first, o+lat+hop+xfer); got != want {
		t.Errorf("two messages without contention: %v ns, want %v", got, want)
	}
	// A rank's own elements are no messages.
	if r := meshReplay(2, []int32{0, 0}, []int{0, 2, 2, 2, 2}, mp); r.dispatch != 0 || r.messages != 0 || r.hops != 0 || r.elements != 2 {
		t.Errorf("local elements: %+v", r)
	}
}

// TestMeshPaperClaims (seed 004 §5) on the dispatch of real rounds of the
// table: the mean distance of a message is (2/3)(√p − 1/√p) and the traffic
// (2/3)p^(3/2)·q·β·L up to the factor 1 − 1/p of its asymptotic form; the
// busiest link carries at least its expected ⌊k/2⌋⌈k/2⌉q·β/k messages, so
// that the dispatch, which never ends before the busiest link's load,
// the senders' and the receivers' overheads or the longest zero-load
// latency, grows like √p·q: with the GCel's links, from p = 64 to 1024
// (√p ×4) the busiest link's time per element grows by 3.5 to 4.5 and the
// dispatch time per element by more than 3; and a message's mean latency
// under that load is at least its zero-load latency, by a factor that more
// than doubles. Block and modular allocation give the same figures up to
// noise, as the destinations are uniform in both.
func TestMeshPaperClaims(t *testing.T) {
	var perElement [2][2]float64 // [alloc][p]
	for ai, a := range []Alloc{Block, Modular} {
		mp := gcelMesh()
		mp.Alloc, mp.Rounds = a, 2
		cs := []PQ{{64, 8, ""}, {1024, 8, ""}}
		pts, err := MeshDispatch(cs, mp)
		if err != nil {
			t.Fatal(err)
		}
		for pi, pt := range pts {
			name := fmt.Sprintf("%v p=%d q=%d", a, pt.P, pt.Q)
			if math.Abs(pt.MeanHops/pt.MeanHopsPaper-1) > 0.02 {
				t.Errorf("%s: mean hops %.3f, the seed's %.3f", name, pt.MeanHops, pt.MeanHopsPaper)
			}
			// E(traffic) = E(Σ G_i)·(2/3)(k − 1/k)·L = (1 − 1/p)·(2/3)p^(3/2)qβL.
			if r := pt.Traffic / (pt.TrafficPaper * (1 - 1/float64(pt.P))); math.Abs(r-1) > 0.03 {
				t.Errorf("%s: traffic %.4g, %.3f of (1 − 1/p) times the seed's", name, pt.Traffic, r)
			}
			if pt.MaxLink < 0.95*pt.BusiestTheory {
				t.Errorf("%s: busiest link %.0f bytes, below the expected %.0f of the middle links", name, pt.MaxLink, pt.BusiestTheory)
			}
			for _, lb := range []struct {
				what string
				v    float64
			}{{"busiest link", pt.TimeLink}, {"sending", pt.TimeSend}, {"receiving", pt.TimeRecv}, {"zero-load latency", pt.ZeroLoadMax},
				{"capacity", pt.TimeCapacity}} {
				if pt.Dispatch < lb.v*(1-1e-9) {
					t.Errorf("%s: dispatch %.4g ns below its %s bound %.4g ns", name, pt.Dispatch, lb.what, lb.v)
				}
			}
			if pt.LatencyMean < pt.ZeroLoadMean*(1-1e-9) {
				t.Errorf("%s: mean latency %.4g ns under load below the zero-load %.4g ns", name, pt.LatencyMean, pt.ZeroLoadMean)
			}
			t.Logf("%s: hops %.2f (seed %.2f), busiest link %.0f B (expected %.0f), dispatch %.3g ms, link %.3g ms, send %.3g ms, M/C %.3g ms, latency %.3g ms (zero-load %.3g ms)",
				name, pt.MeanHops, pt.MeanHopsPaper, pt.MaxLink, pt.BusiestTheory, pt.Dispatch/1e6, pt.TimeLink/1e6, pt.TimeSend/1e6, pt.TimeCapacityPaper/1e6,
				pt.LatencyMean/1e6, pt.ZeroLoadMean/1e6)
			perElement[ai][pi] = pt.Dispatch / (float64(pt.Q) * mp.Beta)
		}
		link := pts[1].TimeLink / pts[0].TimeLink
		if link < 3.5 || link > 4.5 {
			t.Errorf("%v: the busiest link's time grows %.2f× from p = 64 to 1024, want about √(1024/64) = 4", a, link)
		}
		if g := perElement[ai][1] / perElement[ai][0]; g < 3 {
			t.Errorf("%v: the dispatch time per element grows only %.2f× from p = 64 to 1024", a, g)
		}
		// With links of constant bandwidth, a message's latency under the
		// load of random traffic moves away from the zero-load latency as p
		// grows (the seed: the bandwidth must grow like √p to keep it
		// within a constant factor).
		r0, r1 := pts[0].LatencyMean/pts[0].ZeroLoadMean, pts[1].LatencyMean/pts[1].ZeroLoadMean
		if r1 < 2*r0 {
			t.Errorf("%v: latency under load / zero-load latency %.2f at p = 64, only %.2f at p = 1024", a, r0, r1)
		}
	}
	for pi := range 2 {
		if r := perElement[0][pi] / perElement[1][pi]; math.Abs(r-1) > 0.1 {
			t.Errorf("p index %d: block and modular dispatch times differ by %.1f%%", pi, 100*(r-1))
		}
	}
}

// TestMeshParamsValidate: bad parameters and meshes that are not square
// are errors.
func TestMeshParamsValidate(t *testing.T) {
	good := gcelMesh()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(*MeshParams){
		func(m *MeshParams) { m.Q = 0 }, func(m *MeshParams) { m.Beta = 0 }, func(m *MeshParams) { m.Beta = math.NaN() },
		func(m *MeshParams) { m.Rounds = 0 }, func(m *MeshParams) { m.Bytes = 0 }, func(m *MeshParams) { m.HopNS = -1 },
		func(m *MeshParams) { m.ByteNS = math.Inf(1) }, func(m *MeshParams) { m.Alloc = 7 }, func(m *MeshParams) { m.Workers = -1 },
	} {
		m := good
		f(&m)
		if m.Validate() == nil {
			t.Errorf("%+v accepted", m)
		}
	}
	for _, p := range []int{0, 2, 8, 12, MaxMeshP * 4} {
		if _, err := MeshDispatch([]PQ{{p, 1, ""}}, good); err == nil {
			t.Errorf("p = %d accepted", p)
		}
	}
}
