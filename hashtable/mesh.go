package hashtable

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"text/tabwriter"
)

// The mesh model of seed 004 §5: the dispatch phase of a round on a
// √p × √p mesh. The seed argues from averages: a random message travels
// (2/3)(√p − 1/√p) hops, so the Σ G_i ≈ p·q·β messages of length L carry
// about (2/3)p^(3/2)·q·β·L of traffic (distance × length) against a
// capacity of 2√p(√p − 1) channels of bandwidth 1/t_w, and the dispatch
// takes at least traffic/capacity ≈ (1/3)√p·q·β·L·t_w = Θ(√p·q), which
// grows faster than the T(1)/p = Θ(q) of the other phases; a message's
// zero-load latency is t_s + t_h·D + t_w·L.
//
// MeshDispatch replays that phase message by message: the elements are
// those Runner.Round generates (the same streams, Revisit = 0), each sent
// alone from its generating rank to its bucket's owner (Layout.Owner of its
// hash), rank r sitting at column r mod √p, row r div √p. A message is
// routed along its row, then its column (dimension order), and every
// directed link's load is counted. Its times follow lb.Machine's mesh: the
// sender spends OverheadNS per message (so its messages leave one per
// OverheadNS), the head enters the mesh LatencyNS later and takes HopNS per
// hop; each link it crosses is busy for Bytes·ByteNS (with Contention, a
// message waits for a link reserved by one sent before it: first come,
// first served in the order of sending); the tail arrives Bytes·ByteNS
// after the head (cut-through), or every hop forwards the whole message
// (StoreForward). The receiver spends OverheadNS on each message in the
// order they arrive. An element whose owner is its own rank is no message.

// MeshParams configures MeshDispatch. The zero value is invalid.
type MeshParams struct {
	Q      int     // buckets per rank
	Beta   float64 // load factor of the new elements: G_i ~ Poisson(q·β)
	Alloc  Alloc
	Seed   uint64
	Rounds int // rounds (independent samples) per point
	// Bytes is the length of an element's message on the wire, L (an
	// 8-byte key and lb's 16-byte envelope: 24).
	Bytes int
	// OverheadNS is the CPU time to send, and to receive, one message
	// (LogP's o); LatencyNS the fixed delay; HopNS the time per hop; ByteNS
	// the time per byte on a link (t_w per byte). The seed's start-up time
	// is t_s = 2·OverheadNS + LatencyNS, its t_h = HopNS and t_w·L =
	// Bytes·ByteNS.
	OverheadNS, LatencyNS, HopNS, ByteNS float64
	// StoreForward makes every hop receive the whole message before
	// passing it on; otherwise messages cut through.
	StoreForward bool
	// Contention makes each directed link carry one message at a time;
	// without it links are never busy (every message meets zero load).
	Contention bool
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Results do
	// not depend on it.
	Workers int
	// Progress, if set, is called about every ProgressEvery (and once at
	// the end) with the rounds done and the rounds in all.
	Progress func(done, total int)
}

// MaxMeshP is the largest p MeshDispatch accepts: 256 × 256 ranks.
const MaxMeshP = 1 << 16

// Validate reports the first invalid parameter, named by the flag of the
// dht command that sets it.
func (mp MeshParams) Validate() error {
	ns := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 3.6e12 {
			return fmt.Errorf("--%s %g: need a finite time from 0 to an hour", name, v)
		}
		return nil
	}
	switch {
	case mp.Q < 1:
		return fmt.Errorf("-Q (--buckets-per-rank) %d: need at least 1 bucket per rank", mp.Q)
	case !(mp.Beta > 0 && mp.Beta <= 1000):
		return fmt.Errorf("--beta %g: need a load factor above 0, at most 1000", mp.Beta)
	case mp.Alloc < Block || mp.Alloc > Balanced:
		return fmt.Errorf("unknown allocation %d", int(mp.Alloc))
	case mp.Rounds < 1:
		return fmt.Errorf("--rounds %d: need at least 1", mp.Rounds)
	case mp.Bytes < 1 || mp.Bytes > 1<<30:
		return fmt.Errorf("--bytes %d: need 1 to 2^30 bytes per message", mp.Bytes)
	case mp.Workers < 0 || mp.Workers > MaxWorkers:
		return fmt.Errorf("--workers %d: need 0 (GOMAXPROCS) to %d goroutines", mp.Workers, MaxWorkers)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"overhead-ns", mp.OverheadNS}, {"latency-ns", mp.LatencyNS}, {"hop-ns", mp.HopNS}, {"byte-ns", mp.ByteNS}} {
		if err := ns(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}

// MeshSide returns √p when p is a perfect square (the seed's square
// meshes), and an error otherwise.
func MeshSide(p int) (int, error) {
	if p < 1 || p > MaxMeshP {
		return 0, fmt.Errorf("p = %d ranks, need 1 to %d", p, MaxMeshP)
	}
	k := int(math.Round(math.Sqrt(float64(p))))
	if k*k != p {
		return 0, fmt.Errorf("p = %d is not a perfect square: the mesh is √p × √p", p)
	}
	return k, nil
}

// Directions of a mesh link leaving a node; link 4·r + d leaves rank r in
// direction d.
const (
	meshEast = iota
	meshWest
	meshSouth
	meshNorth
)

// meshRoute calls visit with every directed link of the dimension-order
// path from rank a to rank b on a k × k mesh, in order: along the row
// first, then along the column. It returns the number of hops, |Δx| + |Δy|.
func meshRoute(k, a, b int, visit func(link int)) int {
	x, y, tx, ty := a%k, a/k, b%k, b/k
	hops := 0
	for x != tx {
		d := meshEast
		if x > tx {
			d = meshWest
		}
		if visit != nil {
			visit(4*(y*k+x) + d)
		}
		if d == meshEast {
			x++
		} else {
			x--
		}
		hops++
	}
	for y != ty {
		d := meshSouth
		if y > ty {
			d = meshNorth
		}
		if visit != nil {
			visit(4*(y*k+x) + d)
		}
		if d == meshSouth {
			y++
		} else {
			y--
		}
		hops++
	}
	return hops
}

// MeanHopsUniform returns the mean length (2/3)(k − 1/k) of a
// dimension-order path between two ranks drawn independently and
// uniformly (possibly equal) on a k × k mesh (seed 004 §5): E|X − X'| =
// (k² − 1)/(3k) per dimension. O(1).
func MeanHopsUniform(k int) float64 {
	fk := float64(k)
	return 2 * (fk*fk - 1) / (3 * fk)
}

// BusiestLinkUniform returns the largest expected number of messages on
// one directed link of a k × k mesh under dimension-order routing when each
// of the k² ranks sends n messages to destinations drawn uniformly: ⌊k/2⌋·
// ⌈k/2⌉·n/k, carried by the links that cross the middle of a row (or of a
// column). O(1).
func BusiestLinkUniform(k int, n float64) float64 {
	return float64(k/2) * float64((k+1)/2) * n / float64(k)
}

// MeshPoint is the dispatch phase of one (p, q, allocation), averaged over
// the rounds. Times are in ns; loads and traffic in bytes.
type MeshPoint struct {
	P      int     `json:"p"`
	Side   int     `json:"side"`
	Q      int     `json:"q"`
	QLabel string  `json:"q_label"`
	Alloc  string  `json:"alloc"`
	Beta   float64 `json:"beta"`
	Rounds int     `json:"rounds"`
	Bytes  int     `json:"bytes"`
	// The machine: OverheadNS, LatencyNS, HopNS and ByteNS of MeshParams.
	OverheadNS float64 `json:"overhead_ns"`
	LatencyNS  float64 `json:"latency_ns"`
	HopNS      float64 `json:"hop_ns"`
	ByteNS     float64 `json:"byte_ns"`
	// Routing is "cut-through" or "store-forward"; Contention whether links
	// carry one message at a time.
	Routing    string `json:"routing"`
	Contention bool   `json:"contention"`

	// Elements is Σ_i G_i, Messages the elements sent to another rank.
	Elements float64 `json:"elements"`
	Messages float64 `json:"messages"`
	// MeanHops is the mean path length over all elements (0 for those kept
	// at home), MeanHopsPaper the seed's (2/3)(√p − 1/√p), Diameter 2(√p − 1).
	MeanHops      float64 `json:"mean_hops"`
	MeanHopsPaper float64 `json:"mean_hops_paper"`
	Diameter      int     `json:"diameter"`
	// Traffic is Σ hops·L over the elements; TrafficPaper the seed's
	// (2/3)p^(3/2)·q·β·L.
	Traffic      float64 `json:"traffic_bytes"`
	TrafficPaper float64 `json:"traffic_paper_bytes"`
	// Links is the number of directed links, 4√p(√p − 1); ChannelsPaper the
	// seed's capacity count 2√p(√p − 1) (one channel per pair of
	// neighbours).
	Links         int `json:"links"`
	ChannelsPaper int `json:"channels_paper"`
	// MaxLink is the load of the busiest directed link (mean over rounds,
	// MaxLinkSD its standard deviation); BusiestTheory the largest expected
	// load of a link for uniform destinations (BusiestLinkUniform).
	MaxLink       float64 `json:"max_link_bytes"`
	MaxLinkSD     float64 `json:"max_link_sd_bytes"`
	BusiestTheory float64 `json:"busiest_theory_bytes"`
	// Lower bounds on the dispatch time: TimeCapacity = Traffic/(directed
	// links)·ByteNS, TimeCapacityPaper = Traffic/ChannelsPaper·ByteNS (the
	// seed's M/C), TimeLink = MaxLink·ByteNS (the busiest link),
	// TimeSend = max_i (messages sent by i)·OverheadNS and TimeRecv the same
	// for the messages received.
	TimeCapacity      float64 `json:"time_capacity_ns"`
	TimeCapacityPaper float64 `json:"time_capacity_paper_ns"`
	TimeLink          float64 `json:"time_link_ns"`
	TimeSend          float64 `json:"time_send_ns"`
	TimeRecv          float64 `json:"time_recv_ns"`
	// ZeroLoadMean and ZeroLoadMax are the zero-load latency t_s + t_h·D +
	// t_w·L (with store-and-forward, (D−1)·t_w·L more) at the mean and at
	// the largest D of the messages sent.
	ZeroLoadMean float64 `json:"zero_load_mean_ns"`
	ZeroLoadMax  float64 `json:"zero_load_max_ns"`
	// LatencyMean is the mean latency of a message under the load of the
	// dispatch: from the start of its sending to its arrival, plus the
	// receiver's overhead (2o + the time in the network), to compare with
	// ZeroLoadMean.
	LatencyMean float64 `json:"latency_mean_ns"`
	// Dispatch is the simulated time until the last message is received
	// (mean over rounds; DispatchSD its standard deviation).
	Dispatch   float64 `json:"dispatch_ns"`
	DispatchSD float64 `json:"dispatch_sd_ns"`
	// LinkUtilisation is TimeLink/Dispatch: the share of the dispatch during
	// which the busiest link carries data.
	LinkUtilisation float64 `json:"link_utilisation"`
}

// meshRound is what one round of one point measured.
type meshRound struct {
	elements, messages, hops, maxHops int64
	maxLink, maxSend, maxRecv         int64
	dispatch                          float64
	latency                           float64 // Σ over the messages of arrival − sending
}

// MeshConfigs returns the configurations of the study: p = 4, 16, …, maxP
// and q ∈ {1, lg p, lg² p} as in Fig. 1.
func MeshConfigs(maxP int) []PQ {
	var cs []PQ
	for p := 4; p <= maxP; p *= 4 {
		l := bits.Len(uint(p)) - 1
		cs = append(cs, PQ{p, 1, "1"}, PQ{p, l, "lg p"}, PQ{p, l * l, "lg^2 p"})
	}
	return cs
}

// MeshDispatch runs mp.Rounds rounds of the dispatch of every configuration
// on its mesh (p must be a perfect square; mp.Q is ignored, each
// configuration's q is used) and returns one point per configuration, in
// the order of cs. Safe for concurrent use. A round costs O(p·q·β·√p) time
// and O(p·q·β) memory.
func MeshDispatch(cs []PQ, mp MeshParams) ([]MeshPoint, error) {
	mp.Q = 1 // checked per configuration
	if err := mp.Validate(); err != nil {
		return nil, fmt.Errorf("hashtable: mesh: %w", err)
	}
	for _, c := range cs {
		if _, err := MeshSide(c.P); err != nil {
			return nil, fmt.Errorf("hashtable: mesh: %w", err)
		}
		if c.Q < 1 || float64(c.P)*float64(c.Q)*mp.Beta > 1<<28 {
			return nil, fmt.Errorf("hashtable: mesh: p = %d, q = %d, beta = %g: need q ≥ 1 and p·q·β ≤ 2^28 elements", c.P, c.Q, mp.Beta)
		}
		if _, err := NewLayout(c.P, c.P*c.Q, mp.Alloc); err != nil {
			return nil, fmt.Errorf("hashtable: mesh: %w", err)
		}
	}
	rounds := make([][]meshRound, len(cs))
	for i := range rounds {
		rounds[i] = make([]meshRound, mp.Rounds)
	}
	runJobs(len(cs), mp.Rounds, mp.Workers, mp.Progress, func() func(i, r int) {
		return func(i, r int) { rounds[i][r] = meshRun(cs[i].P, cs[i].Q, r, mp) }
	})
	pts := make([]MeshPoint, len(cs))
	for i, c := range cs {
		pts[i] = meshSummary(c, mp, rounds[i])
	}
	return pts, nil
}

// meshGen returns, for round `round`, the owner of every element each rank
// generates, exactly as Runner.Round generates and dispatches them with
// Revisit = 0: G_i ~ Poisson(q·β) keys from the rank's stream, owner =
// Layout.Owner(Hash(key)). dst[off[i]:off[i+1]] are rank i's, in order.
func meshGen(p, q int, round int, mp MeshParams) (dst []int32, off []int) {
	lay, _ := NewLayout(p, p*q, mp.Alloc) // checked by MeshDispatch
	off = make([]int, p+1)
	for i := range p {
		rng := NewRand(StreamSeed(mp.Seed, uint64(round), uint64(i), streamNew))
		g := rng.Poisson(float64(q) * mp.Beta)
		for range g {
			dst = append(dst, int32(lay.Owner(Hash(rng.Uint64()))))
		}
		off[i+1] = len(dst)
	}
	return dst, off
}

// meshRun simulates the dispatch of one round.
func meshRun(p, q, round int, mp MeshParams) meshRound {
	k, _ := MeshSide(p)
	dst, off := meshGen(p, q, round, mp)
	return meshReplay(k, dst, off, mp)
}

// meshReplay counts the loads of the elements dst[off[i]:off[i+1]] of
// every rank i of a k × k mesh and simulates their dispatch.
func meshReplay(k int, dst []int32, off []int, mp MeshParams) meshRound {
	p := k * k
	var mr meshRound
	mr.elements = int64(len(dst))

	// Loads and the per-rank counts.
	load := make([]int64, 4*p)
	sends := make([]int64, p)
	recvs := make([]int64, p)
	for i := range p {
		for _, d := range dst[off[i]:off[i+1]] {
			if int(d) == i {
				continue
			}
			h := int64(meshRoute(k, i, int(d), func(l int) { load[l]++ }))
			mr.hops += h
			mr.maxHops = max(mr.maxHops, h)
			sends[i]++
			recvs[d]++
		}
	}
	for i := range p {
		mr.messages += sends[i]
		mr.maxSend = max(mr.maxSend, sends[i])
		mr.maxRecv = max(mr.maxRecv, recvs[i])
	}
	mr.maxLink = slices.Max(load)

	// The timed replay: every sender's j-th message leaves at j·o (j ≥ 1);
	// messages are routed in the order they leave, ties by rank.
	xfer := float64(mp.Bytes) * mp.ByteNS
	free := make([]float64, 4*p) // a link is free from this time on
	recvOff := make([]int, p+1)
	for i := range p {
		recvOff[i+1] = recvOff[i] + int(recvs[i])
	}
	arrivals := make([]float64, recvOff[p])
	fill := slices.Clone(recvOff[:p])
	cursor := slices.Clone(off[:p])
	sent := make([]int64, p)
	for more := true; more; {
		more = false
		for i := range p {
			// Rank i's next message to another rank, if any.
			c := cursor[i]
			for c < off[i+1] && int(dst[c]) == i {
				c++
			}
			if c == off[i+1] {
				cursor[i] = c
				continue
			}
			cursor[i], more = c+1, true
			sent[i]++
			d := int(dst[c])
			sentAt := float64(sent[i]) * mp.OverheadNS
			t := sentAt + mp.LatencyNS
			meshRoute(k, i, d, func(l int) {
				start := t
				if mp.Contention {
					start = max(t, free[l])
					free[l] = start + xfer
				}
				t = start + mp.HopNS
				if mp.StoreForward {
					t += xfer
				}
			})
			if !mp.StoreForward {
				t += xfer // the tail follows the head
			}
			arrivals[fill[d]] = t
			fill[d]++
			mr.latency += t - sentAt
		}
	}
	for i := range p {
		a := arrivals[recvOff[i]:recvOff[i+1]]
		slices.Sort(a)
		c := 0.0
		for _, t := range a {
			c = max(c, t) + mp.OverheadNS
		}
		mr.dispatch = max(mr.dispatch, c)
	}
	return mr
}

// meshSummary averages the rounds of one configuration.
func meshSummary(c PQ, mp MeshParams, rs []meshRound) MeshPoint {
	k, _ := MeshSide(c.P)
	pt := MeshPoint{P: c.P, Side: k, Q: c.Q, QLabel: c.QLabel, Alloc: mp.Alloc.String(), Beta: mp.Beta,
		Rounds: len(rs), Bytes: mp.Bytes, Routing: "cut-through", Contention: mp.Contention,
		OverheadNS: mp.OverheadNS, LatencyNS: mp.LatencyNS, HopNS: mp.HopNS, ByteNS: mp.ByteNS,
		MeanHopsPaper: MeanHopsUniform(k), Diameter: 2 * (k - 1), Links: 4 * k * (k - 1), ChannelsPaper: 2 * k * (k - 1)}
	if mp.StoreForward {
		pt.Routing = "store-forward"
	}
	L := float64(mp.Bytes)
	var links, dispatch []float64
	var hops, maxHops, elements, messages, send, recv, latency float64
	for _, r := range rs {
		latency += r.latency
		elements += float64(r.elements)
		messages += float64(r.messages)
		hops += float64(r.hops)
		maxHops = max(maxHops, float64(r.maxHops))
		send += float64(r.maxSend)
		recv += float64(r.maxRecv)
		links = append(links, float64(r.maxLink)*L)
		dispatch = append(dispatch, r.dispatch)
	}
	n := float64(len(rs))
	pt.Elements, pt.Messages = elements/n, messages/n
	pt.MeanHops = hops / elements
	pt.Traffic = hops / n * L
	pt.TrafficPaper = 2.0 / 3 * math.Pow(float64(c.P), 1.5) * float64(c.Q) * mp.Beta * L
	pt.MaxLink, pt.MaxLinkSD = meanSDn(links)
	pt.BusiestTheory = BusiestLinkUniform(k, float64(c.Q)*mp.Beta) * L
	if pt.Links > 0 {
		pt.TimeCapacity = pt.Traffic / float64(pt.Links) * mp.ByteNS
		pt.TimeCapacityPaper = pt.Traffic / float64(pt.ChannelsPaper) * mp.ByteNS
	}
	pt.TimeLink = pt.MaxLink * mp.ByteNS
	pt.TimeSend = send / n * mp.OverheadNS
	pt.TimeRecv = recv / n * mp.OverheadNS
	xfer := L * mp.ByteNS
	zero := func(d float64) float64 {
		t := 2*mp.OverheadNS + mp.LatencyNS + mp.HopNS*d + xfer
		if mp.StoreForward && d > 1 {
			t += (d - 1) * xfer
		}
		return t
	}
	if messages > 0 {
		pt.ZeroLoadMean = zero(hops / messages)
		pt.ZeroLoadMax = zero(maxHops)
		pt.LatencyMean = latency/messages + 2*mp.OverheadNS
	}
	pt.Dispatch, pt.DispatchSD = meanSDn(dispatch)
	if pt.Dispatch > 0 {
		pt.LinkUtilisation = pt.TimeLink / pt.Dispatch
	}
	return pt
}

// meanSDn returns the mean and the sample standard deviation (0 for one
// value).
func meanSDn(xs []float64) (mean, sd float64) {
	if len(xs) < 2 {
		return xs[0], 0
	}
	return meanSD(xs)
}

// meshColumns are the CSV columns of a MeshPoint, with their values.
func meshColumns(pt MeshPoint) ([]string, []string) {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 7, 64) }
	cols := []struct {
		name, v string
	}{
		{"p", strconv.Itoa(pt.P)}, {"side", strconv.Itoa(pt.Side)}, {"q", strconv.Itoa(pt.Q)}, {"q_label", pt.QLabel},
		{"alloc", pt.Alloc}, {"beta", f(pt.Beta)}, {"rounds", strconv.Itoa(pt.Rounds)}, {"bytes", strconv.Itoa(pt.Bytes)},
		{"overhead_ns", f(pt.OverheadNS)}, {"latency_ns", f(pt.LatencyNS)}, {"hop_ns", f(pt.HopNS)}, {"byte_ns", f(pt.ByteNS)},
		{"routing", pt.Routing}, {"contention", strconv.FormatBool(pt.Contention)},
		{"elements", f(pt.Elements)}, {"messages", f(pt.Messages)},
		{"mean_hops", f(pt.MeanHops)}, {"mean_hops_paper", f(pt.MeanHopsPaper)}, {"diameter", strconv.Itoa(pt.Diameter)},
		{"traffic_bytes", f(pt.Traffic)}, {"traffic_paper_bytes", f(pt.TrafficPaper)},
		{"links", strconv.Itoa(pt.Links)}, {"channels_paper", strconv.Itoa(pt.ChannelsPaper)},
		{"max_link_bytes", f(pt.MaxLink)}, {"max_link_sd_bytes", f(pt.MaxLinkSD)}, {"busiest_theory_bytes", f(pt.BusiestTheory)},
		{"time_capacity_ns", f(pt.TimeCapacity)}, {"time_capacity_paper_ns", f(pt.TimeCapacityPaper)},
		{"time_link_ns", f(pt.TimeLink)}, {"time_send_ns", f(pt.TimeSend)}, {"time_recv_ns", f(pt.TimeRecv)},
		{"zero_load_mean_ns", f(pt.ZeroLoadMean)}, {"zero_load_max_ns", f(pt.ZeroLoadMax)}, {"latency_mean_ns", f(pt.LatencyMean)},
		{"dispatch_ns", f(pt.Dispatch)}, {"dispatch_sd_ns", f(pt.DispatchSD)}, {"link_utilisation", f(pt.LinkUtilisation)},
	}
	names, vals := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], vals[i] = c.name, c.v
	}
	return names, vals
}

// WriteMeshCSV writes the points as CSV with a header line.
func WriteMeshCSV(w io.Writer, pts []MeshPoint) error {
	cw := csv.NewWriter(w)
	names, _ := meshColumns(MeshPoint{})
	_ = cw.Write(names)
	for _, pt := range pts {
		_, vals := meshColumns(pt)
		_ = cw.Write(vals)
	}
	cw.Flush()
	return cw.Error()
}

// WriteMeshText writes the points as a table, times in ms: per point the
// hops against the seed's mean, the busiest link against its expectation,
// the lower bounds on the dispatch time, the simulated dispatch, and the
// mean latency of a message at zero load and under the dispatch's load.
func WriteMeshText(w io.Writer, pts []MeshPoint) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "p\tq\talloc\telements\thops\tpaper\ttraffic/paper\tbusiest link KB\texpected\tM/C paper ms\tlink ms\tsend ms\tdispatch ms\tlink busy\tzero-load ms\tlatency ms\t")
	ms := func(ns float64) float64 { return ns / 1e6 }
	for _, pt := range pts {
		ratio := 0.0
		if pt.TrafficPaper > 0 {
			ratio = pt.Traffic / pt.TrafficPaper
		}
		fmt.Fprintf(tw, "%d\t%d\t%s\t%.0f\t%.2f\t%.2f\t%.3f\t%.1f\t%.1f\t%.3g\t%.3g\t%.3g\t%.3g ± %.2g\t%.0f%%\t%.3g\t%.3g\t\n",
			pt.P, pt.Q, pt.Alloc, pt.Elements, pt.MeanHops, pt.MeanHopsPaper, ratio, pt.MaxLink/1e3, pt.BusiestTheory/1e3,
			ms(pt.TimeCapacityPaper), ms(pt.TimeLink), ms(pt.TimeSend), ms(pt.Dispatch), ms(pt.DispatchSD),
			100*pt.LinkUtilisation, ms(pt.ZeroLoadMean), ms(pt.LatencyMean))
	}
	return tw.Flush()
}
