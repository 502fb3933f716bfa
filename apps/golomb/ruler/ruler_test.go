package ruler

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// optimal returns the known optimal lengths by number of marks.
func optimal(t testing.TB) map[int]int {
	known, err := Known()
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]int{}
	for n, r := range known[1:] {
		m[n+1] = r[n]
	}
	return m
}

// TestKnown: the embedded table holds 28 valid rulers with the lengths of
// OEIS A003022.
func TestKnown(t *testing.T) {
	known, err := Known()
	if err != nil {
		t.Fatal(err)
	}
	a003022 := []int{0, 1, 3, 6, 11, 17, 25, 34, 44, 55, 72, 85, 106, 127, 151, 177, 199, 216, 246, 283, 333, 356, 372, 425, 480, 492, 553, 585}
	if len(known) != 29 {
		t.Fatalf("%d rulers", len(known)-1)
	}
	for n, l := range a003022 {
		if got := known[n+1][n]; got != l {
			t.Errorf("%d marks: length %d, A003022 says %d", n+1, got, l)
		}
	}
}

func TestSolve(t *testing.T) {
	want := optimal(t)
	top := 11
	if testing.Short() {
		top = 9
	}
	steps, err := Solve(top)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if l := s.Ruler[len(s.Ruler)-1]; l != want[s.Marks] || !Valid(s.Ruler) {
			t.Errorf("%d marks: %v (length %d), want length %d", s.Marks, s.Ruler, l, want[s.Marks])
		}
		t.Logf("%d marks: %v nodes %d", s.Marks, s.Ruler, s.Nodes)
	}
}

// TestDiverReused: a diver taken from divers again after dives of other
// sizes (larger and smaller, as ranks of several searches share them) gives
// each dive's bound and nodes as a fresh one does.
func TestDiverReused(t *testing.T) {
	want := optimal(t)
	g := make([]int, 14)
	for m := 1; m < len(g); m++ {
		g[m] = want[m]
	}
	d := new(diver)
	for _, m := range []int{12, 3, 9, 13, 2, 7, 12} {
		bound, nodes, err := d.dive(m, g)
		if err != nil {
			t.Fatal(err)
		}
		fb, fn, err := Dive(m, g)
		if err != nil {
			t.Fatal(err)
		}
		if bound != fb || nodes != fn {
			t.Errorf("%d marks: a reused diver found bound %d in %d nodes, a fresh one %d in %d", m, bound, nodes, fb, fn)
		}
		if bound < want[m] {
			t.Errorf("%d marks: bound %d below the optimal length %d", m, bound, want[m])
		}
	}
}

// BenchmarkSolve measures the sequential solver; n=12 and n=13 are the
// figures of results/compare (go test -bench 'Solve/n=1[23]' -benchtime 1x).
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{10, 11, 12, 13} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			var nodes int64
			for range b.N {
				steps, err := Solve(n)
				if err != nil {
					b.Fatal(err)
				}
				nodes = 0
				for _, s := range steps {
					nodes += s.Nodes
				}
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(nodes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
		})
	}
}

// TestAlternate: alternate keeps the distances with an even number of
// smaller ones, as picking every other distance in order does.
func TestAlternate(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		var b bitset
		for w := range b {
			b[w] = r.Uint64() & r.Uint64() // sparse and dense words
			if r.IntN(4) == 0 {
				b[w] = 0
			}
		}
		var want bitset
		odd := false
		for d := uint(0); d < 256; d++ {
			if b.has(d) {
				if !odd {
					want.set(d)
				}
				odd = !odd
			}
		}
		if got := b.alternate(); got != want {
			t.Fatalf("alternate(%x) = %x, want %x", b, got, want)
		}
	}
}

// TestCountDigest: a count's solutions and digest are those of the rulers
// it counts, enumerated by brute force: every n-mark Golomb ruler of length
// at most maxLen whose first difference is smaller than its last (one of
// each mirror pair), its Hash summed; KnownBounds gives the bounds of the
// table. Another length gives another digest.
func TestCountDigest(t *testing.T) {
	for _, c := range []struct{ n, maxLen int }{{5, 14}, {6, 22}, {7, 28}} {
		var want, rulers uint64
		marks := make([]int, c.n)
		var place func(k int)
		place = func(k int) {
			if k == c.n {
				if marks[1]-marks[0] < marks[c.n-1]-marks[c.n-2] && Valid(marks) {
					want += Hash(marks)
					rulers++
				}
				return
			}
			for m := marks[k-1] + 1; m <= c.maxLen-(c.n-1-k); m++ {
				marks[k] = m
				place(k + 1)
			}
		}
		place(1)
		g, err := KnownBounds(c.n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := CountRulers(c.n, g, c.maxLen)
		if err != nil {
			t.Fatal(err)
		}
		if uint64(got.Solutions) != rulers || got.Digest != want || rulers == 0 {
			t.Errorf("%d marks up to %d: %d rulers digest %#x; brute force %d, %#x", c.n, c.maxLen, got.Solutions, got.Digest, rulers, want)
		}
		if other, _ := CountRulers(c.n, g, c.maxLen+1); other.Digest == got.Digest {
			t.Errorf("%d marks: the same digest up to %d and %d", c.n, c.maxLen, c.maxLen+1)
		}
	}
	if _, err := KnownBounds(MaxMarks + 1); err == nil {
		t.Error("KnownBounds beyond MaxMarks")
	}
}

// TestValid: Valid accepts Golomb rulers and refuses repeated, zero and
// negative distances, below 256 (its bit set) and above (its map).
func TestValid(t *testing.T) {
	for _, c := range []struct {
		marks []int
		want  bool
	}{
		{[]int{0}, true},
		{[]int{0, 1, 4, 6}, true},
		{[]int{0, 1, 2}, false},        // 1 twice
		{[]int{0, 2, 2}, false},        // 0
		{[]int{0, 3, 1}, false},        // negative
		{[]int{1, 2, 4}, false},        // not from 0
		{nil, false},                   //
		{[]int{0, 300, 700}, true},     // 300, 400, 700
		{[]int{0, 300, 600}, false},    // 300 twice
		{[]int{0, 1, 301, 601}, false}, // 300 twice, above the bit set
		{[]int{0, 255, 510}, false},    // 255 twice, the bit set's last
	} {
		if got := Valid(c.marks); got != c.want {
			t.Errorf("Valid(%v) = %v, want %v", c.marks, got, c.want)
		}
	}
}
