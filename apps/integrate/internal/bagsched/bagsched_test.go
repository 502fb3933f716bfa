package bagsched

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// ranges returns p Range apps of n nodes, one per rank, as apps.
func ranges(p int, n uint64) ([]App, []*lbtest.Range) {
	apps := make([]App, p)
	rs := make([]*lbtest.Range, p)
	for i := range apps {
		rs[i] = lbtest.NewRange(n)
		apps[i] = rs[i]
	}
	return apps, rs
}

// TestRunCovers: Run works every node of the computation exactly once,
// spread over the ranks, whatever the seed, number of ranks and slice; and
// the same seed gives the same schedule.
func TestRunCovers(t *testing.T) {
	const n = 5000
	for _, p := range []int{1, 2, 7} {
		for seed := range uint64(4) {
			apps, rs := ranges(p, n)
			nodes, err := Run(seed, apps, 1+int(seed)*40)
			if err != nil || nodes != n {
				t.Fatalf("P=%d seed %d: %d nodes (%v), want %d", p, seed, nodes, err, n)
			}
			var per []int64
			var sum int64
			for _, r := range rs {
				per = append(per, r.Result())
				sum += r.Result()
			}
			if sum != n {
				t.Fatalf("P=%d seed %d: the ranks worked %v nodes, %d in all", p, seed, per, sum)
			}
			if p > 1 && slices.Max(per) == n {
				t.Fatalf("P=%d seed %d: one rank worked everything (%v)", p, seed, per)
			}
			apps2, rs2 := ranges(p, n)
			if _, err := Run(seed, apps2, 1+int(seed)*40); err != nil {
				t.Fatal(err)
			}
			for i := range rs {
				if rs[i].Result() != rs2[i].Result() {
					t.Fatalf("P=%d seed %d: two runs differ on rank %d: %d and %d nodes", p, seed, i, rs[i].Result(), rs2[i].Result())
				}
			}
		}
	}
}

// broken is a Range app whose tasks misbehave as fault says.
type broken struct {
	*lbtest.Range
	fault string
}

type brokenTask struct {
	lb.Task
	fault string
}

func (a broken) Root() lb.Task { return brokenTask{a.Range.Root(), a.fault} }

func (a broken) Unmarshal(b []byte) (lb.Task, error) {
	if a.fault == "decode" {
		return nil, errors.New("no")
	}
	t, err := a.Range.Unmarshal(b)
	return brokenTask{t, a.fault}, err
}

func (t brokenTask) Work(budget int64) int64 {
	n := t.Task.Work(budget)
	if t.fault == "overwork" && n > 0 {
		return budget + 1
	}
	return n
}

func (t brokenTask) Split() lb.Task {
	p := t.Task.Split()
	if t.fault == "empty piece" && p != nil {
		p.Work(1 << 40)
	}
	if p == nil {
		return nil
	}
	return brokenTask{p, t.fault}
}

func (t brokenTask) AppendBinary(b []byte) ([]byte, error) {
	if t.fault == "encode" {
		return nil, errors.New("no")
	}
	return t.Task.AppendBinary(b)
}

// TestRunFails: Run reports a task that works more than its budget, splits
// off an empty piece, or does not encode or decode.
func TestRunFails(t *testing.T) {
	for fault, want := range map[string]string{
		"overwork":    "Work(",
		"empty piece": "empty piece",
		"encode":      "encoding",
		"decode":      "decoding",
	} {
		apps := []App{broken{lbtest.NewRange(1000), fault}, broken{lbtest.NewRange(1000), fault}}
		if _, err := Run(3, apps, 50); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error about %q", fault, err, want)
		}
	}
}

// TestReduce: every part is combined exactly once, in an order set by the
// seed (concatenation shows the order), and sums do not depend on it.
func TestReduce(t *testing.T) {
	parts := []string{"a", "b", "c", "d", "e", "f", "g"}
	orders := map[string]bool{}
	for seed := range uint64(20) {
		got := Reduce(seed, slices.Clone(parts), func(x, y string) string { return x + y })
		sorted := strings.Split(got, "")
		slices.Sort(sorted)
		if strings.Join(sorted, "") != "abcdefg" {
			t.Fatalf("seed %d: %q combines %v", seed, got, parts)
		}
		if again := Reduce(seed, slices.Clone(parts), func(x, y string) string { return x + y }); again != got {
			t.Fatalf("seed %d: %q, then %q", seed, got, again)
		}
		orders[got] = true
		if sum := Reduce(seed, []int{1, 2, 3, 4, 5, 6, 7}, func(x, y int) int { return x + y }); sum != 28 {
			t.Fatalf("seed %d: sum %d", seed, sum)
		}
	}
	if len(orders) < 10 {
		t.Fatalf("20 seeds gave %d orders", len(orders))
	}
	if got := Reduce(1, []int{5}, func(x, y int) int { return 0 }); got != 5 {
		t.Fatalf("one part: %d", got)
	}
}

// TestSeedsAndChecks: Seeds gives encodings of real tasks, each of which
// passes CheckDecoded; bytes that do not decode pass too (the decoder
// refused them), and a task whose encoding does not round-trip fails
// RoundTrip.
func TestSeedsAndChecks(t *testing.T) {
	app := lbtest.NewRange(1000)
	seeds := Seeds(app)
	if len(seeds) != 4 {
		t.Fatalf("%d seeds, want the root, the worked root, a piece and an empty task", len(seeds))
	}
	for _, b := range seeds {
		if _, err := app.Unmarshal(b); err != nil {
			t.Fatalf("seed %x: %v", b, err)
		}
		if err := CheckDecoded(app, b, 0); err != nil {
			t.Fatalf("seed %x: %v", b, err)
		}
	}
	if err := CheckDecoded(app, []byte{1, 2, 3}, 0); err != nil {
		t.Fatalf("undecodable bytes: %v", err)
	}
	if err := RoundTrip(lbtest.NewRange(10), app.Root()); err == nil {
		t.Fatal("a task outside the decoding app's range round-trips")
	}
	if err := RoundTrip(app, brokenTask{app.Root(), "encode"}); err == nil {
		t.Fatal("a task that does not encode round-trips")
	}
}

// TestEmbedded: f runs on every rank of an embedded world of the given
// size.
func TestEmbedded(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("the embedded world only")
	}
	ranks := make(chan int, 5)
	Embedded(t, 5, func(w lb.World) error {
		if w.Size() != 5 {
			return errors.New("wrong size")
		}
		ranks <- w.Rank()
		return nil
	})
	close(ranks)
	var got []int
	for r := range ranks {
		got = append(got, r)
	}
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("ranks %v", got)
	}
}
