package lb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Paper tests of seed 002 (Sanders, "Randomized receiver initiated load
// balancing algorithms for tree shaped computations"): the four-counter
// termination detection of §4 (never early, and within two waves of the
// last message), the broadcast-and-split initialisation of §4.3 and the
// bound on message exchanges of basic random polling it cites, and the
// localized neighbour sets of §6.2.

// rangeApp is a tree-shaped computation for the paper tests: the nodes
// lo..hi-1 of a range, one node per unit of work, split in halves, so it
// splits as often as it holds nodes.
type rangeApp struct{ n uint64 }

type rangeTask struct{ lo, hi uint64 }

func (a rangeApp) Root() Task { return &rangeTask{0, a.n} }
func (rangeApp) Unmarshal(b []byte) (Task, error) {
	if len(b) != 16 {
		return nil, errors.New("range: bad task")
	}
	return &rangeTask{binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])}, nil
}
func (t *rangeTask) Work(budget int64) int64 {
	n := min(uint64(budget), t.hi-t.lo)
	t.lo += n
	return int64(n)
}
func (t *rangeTask) Empty() bool { return t.lo >= t.hi }
func (t *rangeTask) Split() Task {
	if t.hi-t.lo < 2 {
		return nil
	}
	mid := t.lo + (t.hi-t.lo)/2
	o := &rangeTask{mid, t.hi}
	t.hi = mid
	return o
}
func (t *rangeTask) AppendBinary(b []byte) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, t.lo), t.hi), nil
}

// cored is a balancer whose shared machinery the tests inspect.
type cored interface {
	Balancer
	Progresser
	base() *core
}

func (c *core) base() *core { return c }

// network is an asynchronous network under the test's control: a FIFO
// queue per ordered pair of ranks, delivered in an order the test's random
// source picks (MPI keeps order only per pair).
type network struct {
	p     int
	q     map[[2]int][]Msg
	pairs [][2]int // pairs with messages, in no particular order
}

func newNetwork(p int) *network { return &network{p: p, q: map[[2]int][]Msg{}} }

func (n *network) send(ms []Msg) {
	for _, m := range ms {
		k := [2]int{m.From, m.To}
		if len(n.q[k]) == 0 {
			n.pairs = append(n.pairs, k)
		}
		n.q[k] = append(n.q[k], m)
	}
}

// take removes the oldest message of a random pair.
func (n *network) take(rng *rand.Rand) Msg {
	i := rng.IntN(len(n.pairs))
	k := n.pairs[i]
	m := n.q[k][0]
	n.q[k] = n.q[k][1:]
	if len(n.q[k]) == 0 {
		n.pairs[i] = n.pairs[len(n.pairs)-1]
		n.pairs = n.pairs[:len(n.pairs)-1]
	}
	return m
}

// countedInFlight returns the messages in flight that termination
// detection counts.
func (n *network) countedInFlight() int {
	c := 0
	for _, ms := range n.q {
		for _, m := range ms {
			if counted(m.Kind) {
				c++
			}
		}
	}
	return c
}

// TestFourCounterTermination (seed 002 §4, the four counter method of
// Mattern adapted to a tree reduction): on random asynchronous schedules,
// termination is never detected while work is left anywhere, on a rank or
// in transit; and once the last counted message has arrived and every rank
// is idle, rank 0 detects it within two further waves. Every asynchronous
// balancer (they share the detector), P = 1..33, many seeds.
func TestFourCounterTermination(t *testing.T) {
	async := []string{"rp", "rp-local", "static", "hybrid", "koso", "koso-star"}
	seeds := 40
	if testing.Short() {
		seeds = 10
	}
	for _, name := range async {
		info, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, p := range []int{1, 2, 3, 5, 8, 13, 33} {
				for seed := range uint64(seeds) {
					if err := checkTermination(info, nil, p, seed, nil); err != nil {
						t.Fatalf("P=%d seed %d: %v", p, seed, err)
					}
				}
			}
		})
	}
}

// checkTermination runs the balancer info with options opt (nil: its
// defaults, fast initialisation on half of the seeds) on P ranks over a
// random asynchronous schedule, and checks termination detection; watch,
// when set, sees every message as it is sent.
func checkTermination(info Info, opt Options, p int, seed uint64, watch func(Msg, []cored, *network) error) error {
	rng := rand.New(rand.NewPCG(seed, 77))
	app := rangeApp{n: 2000 + rng.Uint64N(3000)}
	bs := make([]cored, p)
	net := newNetwork(p)
	if opt == nil {
		opt = info.Options
		if rng.IntN(2) == 0 && HasOption(opt, "fast-init") {
			opt, _ = SetOption(opt, "fast-init", "true")
		}
	}
	for r := range bs {
		b, err := NewBalancer(info.New, Env{Rank: r, Size: p, App: app, Rand: NewRand(seed, r), Seed: seed, Options: opt})
		if err != nil {
			return err
		}
		bs[r] = b.(cored)
	}
	var nodes uint64
	quiet := false              // every rank idle and no counted message in flight
	waves, wavesAtQuiet := 0, 0 // waves rank 0 started, in all and until quiet
	detected := false           // rank 0 decided to terminate
	var lastProgress Progress
	var watchErr error
	send := func(ms []Msg) {
		for _, m := range ms {
			if m.From == 0 && m.Kind == KWave && m.To == 1 {
				waves++
			}
			if watch != nil && watchErr == nil {
				watchErr = watch(m, bs, net)
			}
		}
		net.send(ms)
	}
	for _, b := range bs {
		b.Start(app.Root())
		send(b.Outbox())
	}
	for steps := 0; ; steps++ {
		if steps > 1e6 {
			return errors.New("no termination after a million events")
		}
		if watchErr != nil {
			return watchErr
		}
		// Pick an event: a busy rank works a slice, or a message arrives.
		var busy []int
		for r, b := range bs {
			if b.Task() != nil {
				busy = append(busy, r)
			}
		}
		if len(busy) == 0 && len(net.pairs) == 0 {
			break
		}
		if rng.IntN(50) == 0 {
			// Progress reports share the tree and the drain with
			// termination detection.
			bs[0].RequestProgress()
			send(bs[0].Outbox())
			if s, ok := bs[0].Progress(); ok && (s.Nodes > int64(nodes) || s.Nodes < lastProgress.Nodes || s.Busy > p) {
				return fmt.Errorf("progress %+v after %+v with %d nodes worked", s, lastProgress, nodes)
			} else if ok {
				lastProgress = s
			}
		}
		if len(busy) > 0 && (len(net.pairs) == 0 || rng.IntN(3) == 0) {
			r := busy[rng.IntN(len(busy))]
			n := bs[r].Task().Work(1 + rng.Int64N(40))
			nodes += uint64(n)
			bs[r].Tick(n)
			send(bs[r].Outbox())
		} else {
			m := net.take(rng)
			if bs[m.To].Done() {
				return fmt.Errorf("%v from %d reached rank %d after it was done", m.Kind, m.From, m.To)
			}
			bs[m.To].Deliver(m)
			send(bs[m.To].Outbox())
		}
		idle := true // every rank idle, as termination detection sees it
		for _, b := range bs {
			if b.Task() != nil || !b.base().idle() {
				idle = false
			}
		}
		if !quiet && idle && net.countedInFlight() == 0 {
			quiet, wavesAtQuiet = true, waves
		}
		if c := bs[0].base(); c.terminating && !detected {
			detected = true
			if !idle || net.countedInFlight() != 0 {
				return fmt.Errorf("termination detected with work left: idle %v, %d counted messages in flight", idle, net.countedInFlight())
			}
			if waves-wavesAtQuiet > 2 {
				return fmt.Errorf("termination detected %d waves after the last message, want at most 2", waves-wavesAtQuiet)
			}
		}
	}
	if watchErr != nil {
		return watchErr
	}
	for r, b := range bs {
		if !b.Done() {
			return fmt.Errorf("rank %d not done", r)
		}
	}
	if nodes != app.n {
		return fmt.Errorf("%d nodes worked, the tree has %d", nodes, app.n)
	}
	if p > 1 && !detected {
		return errors.New("rank 0 never detected termination")
	}
	return nil
}

// TestQueueDrain (seed 002 §4.2, the "radical approach" to long request
// queues): with Drain, a rank that meets more requests in one polling
// interval than the queue limit c·√P interrupts the computation until the
// system holds no request. On random asynchronous schedules with a queue
// limit of 1 (drains are frequent): whenever rank 0 resumes the
// computation, no request is in flight and no rank waits for an answer;
// termination detection stays exact (checkTermination), every node is
// worked once, and drains happen.
func TestQueueDrain(t *testing.T) {
	info, err := Lookup("rp")
	if err != nil {
		t.Fatal(err)
	}
	drains := 0
	watch := func(m Msg, bs []cored, net *network) error {
		if m.Kind != KQueueDrain || m.From != 0 || len(m.Data) != 1 || m.Data[0] != drainResume {
			return nil
		}
		if m.To == 1 {
			drains++
		}
		for _, ms := range net.q {
			for _, q := range ms {
				if q.Kind == KRequest {
					return fmt.Errorf("resume with a request from %d to %d in flight", q.From, q.To)
				}
			}
		}
		for r, b := range bs {
			if b.(*randomPolling).waiting {
				return fmt.Errorf("resume while rank %d waits for an answer", r)
			}
		}
		return nil
	}
	for _, p := range []int{2, 3, 8, 13, 33} {
		for seed := range uint64(8) {
			opt := RPOptions{Drain: true, QueueLimit: 1, FastInit: seed%2 == 0}
			if err := checkTermination(info, opt, p, seed, watch); err != nil {
				t.Fatalf("P=%d seed %d: %v", p, seed, err)
			}
		}
	}
	if drains == 0 {
		t.Error("no drain in any run")
	}
}

// TestFastInitialisation (seed 002 §4.3): broadcasting the root and
// splitting it ⌈log₂ P⌉ times along the bits of the rank makes every rank
// busy at once, with no message, each rank doing at most ⌈log₂ P⌉ splits.
// Basic random polling, which starts on rank 0 alone, needs message
// exchanges for that: in the synchronous model the expected number of
// exchanges until all ranks are busy is at most log P + log ln P + 1 (the
// seed's §4.3, citing its [29]); our rp without its queue limit (§4.2), a
// busy rank answering every request of a round, meets it: its mean is
// within two standard errors of the bound (at P = 16, 256 and 1024 it is
// above it by up to 0.1, 6.53 ± 0.21 against 6.47 at P = 16).
func TestFastInitialisation(t *testing.T) {
	for _, p := range []int{2, 16, 64, 256, 1024} {
		app := rangeApp{n: 1 << 40}
		info, _ := Lookup("rp")
		busy := 0
		for r := range p {
			splits := &splitCounter{Task: app.Root()}
			piece := fastInitPiece(splits, r, p, nil)
			if piece != nil && !piece.Empty() {
				busy++
			}
			if splits.n > bits.Len(uint(p-1)) {
				t.Fatalf("P=%d rank %d: %d splits, want at most ⌈log₂ P⌉ = %d", p, r, splits.n, bits.Len(uint(p-1)))
			}
		}
		if busy != p {
			t.Fatalf("P=%d: fast initialisation made %d ranks busy", p, busy)
		}
		// Basic random polling in synchronous rounds: every message sent in
		// round k arrives in round k+1; a round is one slice of work on
		// every busy rank. A message exchange is two rounds (request and
		// reply).
		const trials = 40
		var exchanges, squares float64
		for seed := range uint64(trials) {
			bs := make([]Balancer, p)
			for r := range bs {
				bs[r], _ = NewBalancer(info.New, Env{Rank: r, Size: p, App: app, Rand: NewRand(seed, r), Seed: seed, Options: RPOptions{QueueLimit: p}})
			}
			var inflight []Msg
			for _, b := range bs {
				b.Start(app.Root())
				inflight = append(inflight, b.Outbox()...)
			}
			rounds := 0
			for {
				all := true
				for _, b := range bs {
					if b.Task() == nil {
						all = false
					}
				}
				if all {
					break
				}
				rounds++
				if rounds > 100*p {
					t.Fatalf("P=%d seed %d: not all busy after %d rounds", p, seed, rounds)
				}
				msgs := inflight
				inflight = nil
				for _, m := range msgs {
					bs[m.To].Deliver(m)
				}
				for _, b := range bs {
					if task := b.Task(); task != nil {
						b.Tick(task.Work(1))
					}
					inflight = append(inflight, b.Outbox()...)
				}
			}
			x := float64(rounds) / 2
			exchanges += x
			squares += x * x
		}
		mean := exchanges / trials
		stderr := math.Sqrt((squares/trials - mean*mean) / (trials - 1))
		bound := math.Log2(float64(p)) + math.Log2(math.Log(float64(p))) + 1
		t.Logf("P=%d: %.2f ± %.2f message exchanges until all ranks are busy (bound on the expectation %.2f)", p, mean, stderr, bound)
		// The sample mean may exceed a bound on the expectation by chance:
		// fail only when it does so by more than two standard errors.
		if p > 2 && mean-2*stderr > bound {
			t.Errorf("P=%d: %.2f ± %.2f exchanges on average, above log P + log ln P + 1 = %.2f", p, mean, stderr, bound)
		}
	}
}

// splitCounter counts the splits of a task and of the pieces it keeps.
type splitCounter struct {
	Task
	n int
}

func (s *splitCounter) Split() Task {
	s.n++
	return s.Task.Split()
}

// TestLocalizedNeighbourSets (seed 002 §6.2): an idle rank of rp-local asks
// within a neighbour set of ranks close to it, which starts with 4 ranks and
// doubles after every request; once every rank was reachable the next
// request goes anywhere and the set is back to 4, and so it is after work
// arrives.
func TestLocalizedNeighbourSets(t *testing.T) {
	for _, p := range []int{5, 64, 1000} {
		b, err := newRPLocal(Env{Rank: 3, Size: p, App: rangeApp{n: 10}, Rand: NewRand(1, 3)})
		if err != nil {
			t.Fatal(err)
		}
		l := b.(*rpLocal)
		for round := 0; round < 3; round++ {
			for set := 4; ; set *= 2 {
				if l.set != set {
					t.Fatalf("P=%d: neighbour set %d before a request, want %d", p, l.set, set)
				}
				to := l.pick()
				if to == l.rank || to < 0 || to >= p {
					t.Fatalf("P=%d: asked rank %d", p, to)
				}
				if set >= p {
					if l.set != 4 {
						t.Fatalf("P=%d: set %d after a global request, want 4", p, l.set)
					}
					break
				}
				d := min((to-l.rank+p)%p, (l.rank-to+p)%p)
				if d > max(1, set/2) {
					t.Fatalf("P=%d set %d: asked rank %d at ring distance %d", p, set, to, d)
				}
			}
		}
		l.pick()
		l.pick() // the set is 16 now
		data, _ := (&rangeTask{0, 4}).AppendBinary(nil)
		l.Deliver(Msg{From: 4, To: 3, Kind: KWork, Data: data})
		if l.set != 4 {
			t.Fatalf("P=%d: set %d after work arrived, want 4", p, l.set)
		}
	}
}

// TestLocalizedVariants (seed 002 §6.2): the variants of rp-local that the
// paper reports as slower than global random polling behave as described.
// With a fixed communication radius every request stays within that ring
// distance, however many are sent; with a growth factor g below 2 the
// neighbour set grows from 4 by ⌊g·s⌋ (at least one rank) per request
// until it spans every rank; without the randomized initial placement,
// rank r starts with the fast-initialisation piece r.
func TestLocalizedVariants(t *testing.T) {
	const p = 1000
	b, err := newRPLocal(Env{Rank: 3, Size: p, App: rangeApp{n: 10}, Rand: NewRand(1, 3), Options: RPLocalOptions{Radius: 5}})
	if err != nil {
		t.Fatal(err)
	}
	l := b.(*rpLocal)
	far := 0
	for range 2000 {
		to := l.pick()
		d := min((to-l.rank+p)%p, (l.rank-to+p)%p)
		if to == l.rank || d > 5 {
			t.Fatalf("radius 5: asked rank %d from rank %d", to, l.rank)
		}
		if d == 5 {
			far++
		}
	}
	if far == 0 {
		t.Error("radius 5: never asked at distance 5")
	}
	// A radius that reaches every rank asks any other, on an even and an
	// odd ring, however large (2·radius overflowed from MaxInt/2+1 on,
	// 2^62 on 64 bits, and ranks asked themselves; found by a review of the
	// balancers).
	for _, size := range []int{8, 9} {
		for _, radius := range []int{size / 2, math.MaxInt/2 + 1, math.MaxInt} {
			b, err := newRPLocal(Env{Rank: 3, Size: size, App: rangeApp{n: 10}, Rand: NewRand(1, 3), Options: RPLocalOptions{Radius: radius}})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[int]bool{}
			for range 400 {
				to := b.(*rpLocal).pick()
				if to == 3 || to < 0 || to >= size {
					t.Fatalf("%d ranks, radius %d: rank 3 asked rank %d", size, radius, to)
				}
				seen[to] = true
			}
			if len(seen) != size-1 {
				t.Errorf("%d ranks, radius %d: rank 3 asked only %d other ranks", size, radius, len(seen))
			}
		}
	}

	b, err = newRPLocal(Env{Rank: 3, Size: p, App: rangeApp{n: 10}, Rand: NewRand(1, 3), Options: RPLocalOptions{Growth: 1.5}})
	if err != nil {
		t.Fatal(err)
	}
	l = b.(*rpLocal)
	want := []int{4, 6, 9, 13, 19, 28, 42, 63, 94, 141, 211, 316, 474, 711, 1066, 4}
	for i, w := range want {
		if l.set != w {
			t.Fatalf("growth 1.5: set %d before request %d, want %d", l.set, i, w)
		}
		l.pick()
	}

	app := rangeApp{n: 1 << 20}
	for _, ordered := range []bool{false, true} {
		moved := 0
		for r := range 64 {
			b, err := newRPLocal(Env{Rank: r, Size: 64, App: app, Rand: NewRand(1, r), Seed: 1, Options: RPLocalOptions{OrderedInit: ordered}})
			if err != nil {
				t.Fatal(err)
			}
			got := b.(*rpLocal).initial(app.Root())
			own := fastInitPiece(app.Root(), r, 64, nil)
			if len(got) != 1 {
				t.Fatalf("ordered %v: rank %d starts with %d tasks", ordered, r, len(got))
			}
			if *got[0].(*rangeTask) != *own.(*rangeTask) {
				moved++
			}
		}
		if ordered && moved != 0 {
			t.Errorf("ordered: %d of 64 ranks hold another rank's piece", moved)
		}
		if !ordered && moved < 32 {
			t.Errorf("randomized placement: only %d of 64 ranks hold another rank's piece", moved)
		}
	}

	for _, o := range []RPLocalOptions{{Radius: -1}, {Growth: 1}, {Growth: 0.5}, {Growth: math.NaN()}, {Radius: 3, Growth: 1.5}} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestRPDefaultQueueLimit checks §4.2's default queue limit c·√P with
// c = 2 (RPOptions.QueueLimit 0): 2·⌈√P⌉ requests in one polling interval,
// and that a limit given is kept.
func TestRPDefaultQueueLimit(t *testing.T) {
	for p, want := range map[int]int{1: 2, 2: 4, 4: 4, 5: 6, 16: 8, 17: 10, 1024: 64, 4096: 128} {
		if got := newRP(Env{Rank: 0, Size: p, Rand: NewRand(1, 0)}, 0, false).queueLimit; got != want {
			t.Errorf("P = %d: default queue limit %d, want 2·⌈√P⌉ = %d", p, got, want)
		}
	}
	if got := newRP(Env{Rank: 0, Size: 16, Rand: NewRand(1, 0)}, 3, false).queueLimit; got != 3 {
		t.Errorf("a queue limit of 3 became %d", got)
	}
}

// TestRPQueueLimit (seed 002 §4.2, queue control by local rejection): a
// busy rank answers at most QueueLimit requests of one work slice with a
// piece of its work and rejects the others without splitting; the count
// starts again with the next slice.
func TestRPQueueLimit(t *testing.T) {
	const limit = 3
	app := rangeApp{1 << 20}
	b, err := NewBalancer(newRandomPolling, Env{Rank: 0, Size: 16, App: app, Rand: NewRand(1, 0), Options: RPOptions{QueueLimit: limit}})
	if err != nil {
		t.Fatal(err)
	}
	b.Start(app.Root())
	b.Outbox()
	answers := func(requests int) (pieces, rejections int) {
		for j := 1; j <= requests; j++ {
			b.Deliver(Msg{Kind: KRequest, From: j, To: 0})
		}
		for _, m := range b.Outbox() {
			switch m.Kind {
			case KWork:
				pieces++
			case KReject:
				rejections++
			}
		}
		return pieces, rejections
	}
	if pieces, rejections := answers(limit + 4); pieces != limit || rejections != 4 {
		t.Errorf("%d requests in one slice: %d pieces and %d rejections, want %d and 4", limit+4, pieces, rejections, limit)
	}
	b.Tick(b.Task().Work(100))
	if pieces, rejections := answers(2); pieces != 2 || rejections != 0 {
		t.Errorf("2 requests in the next slice: %d pieces and %d rejections, want 2 and 0", pieces, rejections)
	}
}
