package tree

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
)

// schedule runs the tree on a tiny scheduler: a bag of encoded tasks, each
// step decoding a random one on a random rank's App, working a random
// slice, splitting at random and putting the parts back as bytes. It
// returns the combined counts and the sum of Work's returns.
func schedule(t *testing.T, tr *Tree, ranks int, seed uint64) (Counts, int64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	apps := make([]*App, ranks)
	for i := range apps {
		apps[i] = NewApp(tr)
	}
	enc := func(x lb.Task) []byte {
		b, err := x.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	bag := [][]byte{enc(apps[r.IntN(ranks)].Root())}
	var worked int64
	for len(bag) > 0 {
		i := r.IntN(len(bag))
		b := bag[i]
		bag[i] = bag[len(bag)-1]
		bag = bag[:len(bag)-1]
		a := apps[r.IntN(ranks)]
		x, err := a.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if again := enc(x); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding changed the task: %d bytes, then %d", len(b), len(again))
		}
		for range 1 + r.IntN(3) {
			if x.Empty() {
				break
			}
			worked += x.Work(1 + r.Int64N(3000))
			if r.IntN(2) == 0 {
				if o := x.Split(); o != nil {
					if o.Empty() {
						t.Fatal("split gave an empty task")
					}
					bag = append(bag, enc(o))
				}
			}
		}
		if !x.Empty() {
			bag = append(bag, enc(x))
		}
	}
	var c Counts
	for _, a := range apps {
		c = a.Combine(c, a.Result())
	}
	return c, worked
}

// TestScheduled checks that any schedule of slices, splits and transfers
// between ranks counts exactly the sequential tree.
func TestScheduled(t *testing.T) {
	trees := []string{"T1", "T3"}
	if testing.Short() {
		trees = nil
	}
	type tc struct {
		name  string
		p     Params
		ranks int
	}
	var cases []tc
	for _, n := range trees {
		s, _ := SampleNamed(n)
		cases = append(cases, tc{n, s.Params(), 3})
	}
	for _, args := range []string{"-t 1 -a 1 -d 6 -b 4 -r 0", "-t 3 -b 4 -d 8 -r 3", "-t 2 -a 2 -d 12 -b 5 -q 0.24 -m 4 -f 0.6 -r 9", "-t 0 -b 30 -q 0.3 -m 3 -r 77", "-t 1 -a 3 -d 3 -b 60 -r 1", "-t 1 -a 0 -d 7 -b 3 -r 123456789"} {
		p, _ := ParseArgs(strings.Fields(args))
		cases = append(cases, tc{args, p, 1}, tc{args, p, 7})
	}
	for i, c := range cases {
		tr := MustNew(c.p)
		want := tr.Count()
		got, worked := schedule(t, tr, c.ranks, uint64(i))
		if got != want || worked != want.Nodes {
			t.Errorf("%s on %d ranks: %+v, Work returned %d in all; sequential %+v", c.name, c.ranks, got, worked, want)
		}
	}
}

// pendingTotal is the number of children a search has still to generate.
func pendingTotal(s *Search) int64 {
	var n int64
	for i := range s.stack {
		n += s.stack[i].pending()
	}
	return n
}

// TestSplitHalves checks that a split moves pending children, never loses
// or duplicates one, and gives about half of them when there are many.
func TestSplitHalves(t *testing.T) {
	s, _ := SampleNamed("T3")
	tr := MustNew(s.Params())
	var c Counts
	x := tr.NewSearch(&c)
	// The fresh search splits before any work: half of the root's 2000
	// children each way, the root itself counted by the part kept.
	if o := x.split(); o == nil || pendingTotal(x) != 1000 || pendingTotal(o) != 1000 || !x.root || o.root {
		t.Fatalf("the fresh search split into %+v and %+v", x, o)
	}
	x = tr.NewSearch(&c)
	x.Work(1) // the root alone
	if x.root || pendingTotal(x) != 2000 || c.Nodes != 1 {
		t.Fatalf("after the root: %d pending, %d nodes", pendingTotal(x), c.Nodes)
	}
	x.Work(1) // the first batch: 1984 of 2000 children pending
	if x.stack[0].pending() != 1984 || c.Nodes != 17 {
		t.Fatalf("after the first batch: %d of the root's children pending, %d nodes", x.stack[0].pending(), c.Nodes)
	}
	for _, n := range []int64{0, 1000, 50000} {
		x.Work(n)
		before := pendingTotal(x)
		o := x.split()
		if o == nil {
			t.Fatalf("after %d nodes: no split", n)
		}
		kept, given := pendingTotal(x), pendingTotal(o)
		if kept+given != before || given < before/3 || kept < before/3 {
			t.Errorf("after %d nodes: %d pending split into %d kept and %d given", n, before, kept, given)
		}
	}
	// A single pending child is not given away.
	one := &Search{t: tr, c: &c, stack: []entry{{s: tr.Root(), n: 5, next: 4, step: 1}}}
	if one.split() != nil {
		t.Error("split gave away the only pending child")
	}
	two := &Search{t: tr, c: &c, stack: []entry{{s: tr.Root(), n: 5, next: 3, step: 1}}}
	if o := two.split(); o == nil || pendingTotal(o) != 1 || pendingTotal(two) != 1 {
		t.Error("two pending children were not shared")
	}
}

func TestDecodeRejects(t *testing.T) {
	s, _ := SampleNamed("T1")
	tr := MustNew(s.Params())
	a := NewApp(tr)
	x := a.Root()
	x.Work(100)
	good, _ := x.AppendBinary(nil)
	if _, err := a.Unmarshal(good); err != nil {
		t.Fatal(err)
	}
	// Corruptions: each must fail to decode.
	bad := map[string][]byte{
		"empty":     {},
		"flag":      append([]byte{8}, good[1:]...),
		"owed 0":    append([]byte{flagOwed, 0}, good[1:]...),
		"owed none": {flagOwed},
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte{}, good...), 0),
		"count":     {0, 200},
	}
	// An entry at depth 10 of T1, where every node is a leaf, or one whose
	// next child is beyond its count.
	leaf := append([]byte{0, 1}, make([]byte, 20)...)
	bad["leaf"] = append(leaf, 10, 0, 1)
	x2 := &Search{t: tr, c: &Counts{}, stack: []entry{{s: tr.Root(), n: tr.children(tr.Root().Rand(), 0), step: 1}}}
	beyond, _ := x2.AppendBinary(nil)
	beyond[len(beyond)-2] = byte(x2.stack[0].n) // next = n
	bad["beyond"] = beyond
	bad["step"] = append(append([]byte{}, beyond[:len(beyond)-2]...), 0, 0)
	for name, b := range bad {
		if _, err := a.Unmarshal(b); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	// The root task round-trips with its flags (the root to count, fresh)
	// and the root's entry.
	r, _ := a.Root().AppendBinary(nil)
	rb := tr.Root().Bytes()
	want := append(append([]byte{flagRoot | flagFresh, 1}, rb[:]...), 0, 0, 1)
	if !bytes.Equal(r, want) {
		t.Errorf("root task encodes as %v, want %v", r, want)
	}
	if d, err := a.Unmarshal(r); err != nil || !d.(*Search).root || !d.(*Search).fresh || d.(*Search).stack[0].n != tr.children(tr.Root().Rand(), 0) {
		t.Errorf("root task decodes as %+v, %v", d, err)
	}
}

// TestHugeFanOut works and splits a node with more than 2³⁰ children,
// where the child numbers and strides approach the 32-bit limit.
func TestHugeFanOut(t *testing.T) {
	p, _ := ParseArgs(strings.Fields("-t 3 -b 2147483647 -d 1"))
	tr := MustNew(p)
	var c Counts
	x := tr.NewSearch(&c)
	x.Work(1)
	var parts []*Search
	for range 40 {
		o := x.split()
		if o == nil {
			break
		}
		parts = append(parts, o)
	}
	total := pendingTotal(x)
	for _, o := range parts {
		total += pendingTotal(o)
		if o.stack[0].step < 1 || o.stack[0].next < 0 {
			t.Fatalf("entry %+v", o.stack[0])
		}
	}
	if want := int64(math.MaxInt32) - c.Nodes + 1; total != want {
		t.Errorf("%d children pending after splits, want %d", total, want)
	}
	// The last part has one child left at most a stride away from the end.
	last := parts[len(parts)-1]
	for !last.Empty() {
		last.Work(1 << 10)
	}
	if len(last.stack) != 0 {
		t.Error("not exhausted")
	}
}

// TestHalveAsSplit checks that halving in place keeps exactly the part
// Split gives away or keeps, at the start of the search (the root still to
// count) and after work, on a geometric and a binomial tree, and that
// Reroot makes a worked search the whole tree again.
func TestHalveAsSplit(t *testing.T) {
	for _, name := range []string{"T1", "T3"} {
		s, _ := SampleNamed(name)
		a := NewApp(MustNew(s.Params()))
		x := a.Root()
		enc := func(t lb.Task) string {
			b, _ := t.AppendBinary(nil)
			return string(b)
		}
		rootEnc := enc(x)
		for _, n := range []int64{0, 1, 100, 5000, 100000} {
			if n > 0 {
				x.Work(n)
			}
			before := enc(x)
			kept, given := x.(*Search), x.Split()
			for _, give := range []bool{false, true} {
				h, err := a.Unmarshal([]byte(before))
				if err != nil {
					t.Fatal(err)
				}
				ok := h.(lb.Halver).Halve(give)
				switch {
				case given == nil && (ok || enc(h) != before):
					t.Errorf("%s after %d more nodes: Split gave nothing, Halve(%v) = %v, %q", name, n, give, ok, enc(h))
				case given != nil && give && (!ok || enc(h) != enc(given)):
					t.Errorf("%s after %d more nodes: Halve(true) kept %x, Split gave %x", name, n, enc(h), enc(given))
				case given != nil && !give && (!ok || enc(h) != enc(kept)):
					t.Errorf("%s after %d more nodes: Halve(false) kept %x, Split kept %x", name, n, enc(h), enc(kept))
				}
			}
		}
		x.(lb.Halver).Reroot()
		if enc(x) != rootEnc {
			t.Errorf("%s: rerooted search %x, the root %x", name, enc(x), rootEnc)
		}
	}
}
