package tree

import (
	"crypto/sha1"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// countWith searches t sequentially, hashing with kernel k.
func countWith(t *Tree, k Kernel) Counts {
	var c Counts
	s := t.NewSearch(&c)
	s.kernel = k
	for !s.Empty() {
		s.Work(1 << 16)
	}
	return c
}

// supportedKernels returns the kernels this machine runs, the best first.
func supportedKernels() []Kernel {
	var ks []Kernel
	for k := AVX512; k >= CryptoSHA1; k-- {
		if k.Supported() {
			ks = append(ks, k)
		}
	}
	return ks
}

func checkCounts(t *testing.T, name string, got Counts, nodes int64, depth int, leaves int64) {
	t.Helper()
	if got.Nodes != nodes || (depth >= 0 && got.Depth != depth) || (leaves >= 0 && got.Leaves != leaves) {
		t.Errorf("%s: %d nodes, depth %d, %d leaves; want %d, %d, %d", name, got.Nodes, got.Depth, got.Leaves, nodes, depth, leaves)
	}
}

// largeSamples returns the sample trees that the environment variable
// UTS_SAMPLES asks for beyond the small ones: "large" for T1L, T2L and
// T3L (about 100 million nodes each, seconds), "all" for every tree up to
// T2XXL (billions of nodes, hours), or a comma-separated list of names.
func largeSamples() []string {
	v := os.Getenv("UTS_SAMPLES")
	switch v {
	case "":
		return nil
	case "large":
		return []string{"T1L", "T2L", "T3L"}
	case "all":
		return []string{"T1L", "T2L", "T3L", "T1XL", "T1XXL", "T3XXL", "T2XXL"}
	}
	return strings.Split(v, ",")
}

// TestSamples counts the small sample trees, T1–T5 (4 million nodes each),
// and checks the published statistics; UTS_SAMPLES adds larger ones.
func TestSamples(t *testing.T) {
	names := append([]string{"T1", "T2", "T3", "T4", "T5"}, largeSamples()...)
	for _, n := range names {
		s, ok := SampleNamed(n)
		if !ok {
			t.Fatalf("no sample tree %q", n)
		}
		start := time.Now()
		c := MustNew(s.Params()).Count()
		sec := time.Since(start).Seconds()
		t.Logf("%s: %d nodes, depth %d, %d leaves; %.2f s, %.1f Mnodes/s (%v)", s.Name, c.Nodes, c.Depth, c.Leaves, sec, float64(c.Nodes)/sec/1e6, BestKernel())
		checkCounts(t, s.Name, c, s.Nodes, s.Depth, s.Leaves)
	}
}

// referenceTrees are other trees with statistics from the reference's
// sequential build (uts_shm.c, gcc 12.2 -O3 -DBRG_RNG, x86-64): the shapes
// and rules that no small sample tree has (expdec, balanced, hybrid with
// other fractions, the cap on m and on geometric counts, granularity,
// negative seeds, a non-integral binomial root).
var referenceTrees = []struct {
	args          string
	nodes, leaves int64
	depth         int
	allKernels    bool // small enough to count with every kernel
}{
	{"-t 1 -a 1 -d 20 -b 6 -r 1", 3910854, 1969473, 55, false},
	{"-t 1 -a 1 -d 6 -b 4 -r 0", 4509, 2319, 17, true},
	{"-t 1", 1732, 1050, 6, true},
	{"-t 3 -b 4 -d 8 -r 3", 87381, 65536, 8, true},
	{"-t 3 -b 3.9 -d 9 -r 7", 29524, 19683, 9, true},
	{"-t 2 -a 1 -d 10 -b 5 -q 0.2 -m 4 -f 0.3 -r 11", 416, 313, 17, true},
	{"-t 2 -a 2 -d 12 -b 5 -q 0.24 -m 4 -f 0.6 -r 9", 30738, 21885, 60, true},
	{"-t 2 -a 3 -d 8 -b 4 -q 0.2 -m 5 -f 0 -r 2", 101, 81, 8, true},
	{"-t 1 -a 2 -d 10 -b 6 -r 4 -g 3", 2578, 1560, 9, true},
	{"-t 0 -b 50 -q 0.009 -m 150 -r 3", 1251, 1238, 5, true},
	{"-t 0 -b 10.7 -q 0.2 -m 4 -r -5", 11, 10, 1, true},
	{"-t 0 -b 30 -q 0.3 -m 3 -r 77", 361, 250, 24, true},
	{"-t 1 -a 3 -d 3 -b 60 -r 1", 246048, 241059, 3, true},
	{"-t 1 -a 2 -d 7 -b 100 -r 3", 86032, 69620, 13, true},
	{"-t 1 -a 0 -d 7 -b 3 -r 123456789", 1, 1, 0, true},
	{"-t 1 -a 3 -d 0 -b 4 -r 1", 9, 8, 1, true},       // the root of a fixed tree has b_0 whatever d
	{"-t 1 -a 3 -d -2 -b 40 -r 7", 101, 100, 1, true}, // a geometric root is capped too
}

func TestReferenceTrees(t *testing.T) {
	for _, c := range referenceTrees {
		p, err := ParseArgs(strings.Fields(c.args))
		if err != nil {
			t.Fatal(err)
		}
		tr := MustNew(p)
		for i, k := range supportedKernels() {
			if i > 0 && !c.allKernels {
				break
			}
			checkCounts(t, c.args+" with "+k.String(), countWith(tr, k), c.nodes, c.depth, c.leaves)
		}
	}
}

// TestKernelsCount counts T1 and T3 with every other kernel as well
// (TestSamples uses the best one).
func TestKernelsCount(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	for _, k := range supportedKernels()[1:] {
		for _, n := range []string{"T1", "T3"} {
			s, _ := SampleNamed(n)
			checkCounts(t, n+" with "+k.String(), countWith(MustNew(s.Params()), k), s.Nodes, s.Depth, s.Leaves)
		}
	}
}

// TestVectorKernels compares the AVX-512 and AVX2 kernels with crypto/sha1
// on random states and child numbers.
func TestVectorKernels(t *testing.T) {
	if !hasAVX512 && !hasAVX2 {
		t.Skip("no AVX2 or AVX-512")
	}
	r := rand.New(rand.NewPCG(1, 2))
	var b batch
	for i := range 2000 {
		for w := range 6 {
			for j := range lanes {
				b.in[w][j] = r.Uint32()
			}
		}
		for _, k := range []Kernel{AVX512, AVX2} {
			if !k.Supported() {
				continue
			}
			b.out = [5][lanes]uint32{}
			x := &Search{kernel: k, b: &b}
			x.hash(lanes - i%2*8) // AVX2: one or both halves
			for j := range lanes - i%2*8 {
				var msg [24]byte
				for w := range 6 {
					binary.BigEndian.PutUint32(msg[4*w:], b.in[w][j])
				}
				want := sha1.Sum(msg[:])
				got := State{b.out[0][j], b.out[1][j], b.out[2][j], b.out[3][j], b.out[4][j]}.Bytes()
				if got != want {
					t.Fatalf("%v, lane %d of %x: %x, want %x", k, j, msg, got, want)
				}
			}
		}
	}
}

func TestStates(t *testing.T) {
	// The root: SHA-1 of 16 zero bytes and the seed, big-endian.
	var msg [20]byte
	msg[19] = 19
	if got, want := RootState(19).Bytes(), sha1.Sum(msg[:]); got != want {
		t.Errorf("root of 19: %x, want %x", got, want)
	}
	binary.BigEndian.PutUint32(msg[16:], 0xfffffffb)
	if got, want := RootState(-5).Bytes(), sha1.Sum(msg[:]); got != want {
		t.Errorf("root of -5: %x, want %x", got, want)
	}
	// Child 3 of the root: SHA-1 of the root's bytes and 3.
	rb := RootState(19).Bytes()
	m := append(slices.Clone(rb[:]), 0, 0, 0, 3)
	if got, want := ChildState(RootState(19), 3).Bytes(), sha1.Sum(m); got != want {
		t.Errorf("child 3: %x, want %x", got, want)
	}
	s := State{1, 2, 3, 4, 0xffffffff}
	if s.Rand() != 0x7fffffff {
		t.Errorf("Rand masks to 31 bits: %x", s.Rand())
	}
}

// TestGeometricSlowPath checks that the tables agree with the count
// computed one node at a time (used below the deepest table).
func TestGeometricSlowPath(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, args := range []string{"-t 1 -a 2 -d 16 -b 6", "-t 1 -a 1 -d 20 -b 6", "-t 1 -a 0 -d 20 -b 4", "-t 1 -a 0 -d 3 -b 1e9"} {
		p, _ := ParseArgs(strings.Fields(args))
		tr := MustNew(p)
		for depth := range min(len(tr.geo.tables), 40) {
			l := tr.geo.logQ(depth)
			for range 300 {
				h := r.Uint32() >> 1
				if i := r.IntN(4); i == 0 {
					// near a step: the most delicate numbers
					s := tr.geo.tables[depth].Load()
					if s == nil {
						tr.children(h, depth)
						s = tr.geo.tables[depth].Load()
					}
					if len(s.at) > 0 {
						h = s.at[r.IntN(len(s.at))] - uint32(r.IntN(2))
					}
				}
				if got, want := tr.children(h, depth), tr.geo.countAt(h, l); got != want {
					t.Fatalf("%s depth %d h %d: table %d, one by one %d", args, depth, h, got, want)
				}
			}
		}
	}
}

func TestKernels(t *testing.T) {
	tr := MustNew(Defaults())
	x := tr.NewSearch(&Counts{})
	if x.kernel != BestKernel() {
		t.Errorf("default kernel %v, best %v", x.kernel, BestKernel())
	}
	for _, k := range []Kernel{CryptoSHA1, AVX2, AVX512} {
		err := x.SetKernel(k)
		if k.Supported() != (err == nil) || (err == nil && x.kernel != k) {
			t.Errorf("%v, supported %v: %v", k, k.Supported(), err)
		}
		if p, err := ParseKernel(k.String()); p != k || err != nil {
			t.Errorf("%v: parsed as %v, %v", k, p, err)
		}
	}
	if _, err := ParseKernel("md5"); err == nil {
		t.Error("md5 accepted")
	}
	if x.SetKernel(Kernel(7)) == nil {
		t.Error("kernel 7 accepted")
	}
	if !CryptoSHA1.Supported() || (hasAVX512 && BestKernel() != AVX512) {
		t.Error(BestKernel())
	}
}

// TestRandomReferenceTrees counts 255 random trees (15 million nodes in
// all) and compares with the reference's statistics in
// testdata/reference_random.txt.
func TestRandomReferenceTrees(t *testing.T) {
	data, err := os.ReadFile("testdata/reference_random.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "|")
		p, err := ParseArgs(strings.Fields(f[0]))
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		nodes, _ := strconv.ParseInt(f[1], 10, 64)
		depth, _ := strconv.Atoi(f[2])
		leaves, _ := strconv.ParseInt(f[3], 10, 64)
		tr, err := New(p)
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		checkCounts(t, f[0], tr.Count(), nodes, depth, leaves)
		n++
	}
	if n != 255 {
		t.Errorf("%d trees, want 255", n)
	}
}

// TestTreeShared counts one tree from several goroutines at once: its
// step tables are built lazily and must be safe to share.
func TestTreeShared(t *testing.T) {
	p, _ := ParseArgs(strings.Fields("-t 1 -a 2 -d 10 -b 6 -r 4"))
	tr := MustNew(p)
	want := MustNew(p).Count()
	done := make(chan Counts)
	for range 4 {
		go func() { done <- tr.Count() }()
	}
	for range 4 {
		if c := <-done; c != want {
			t.Errorf("shared tree: %+v, want %+v", c, want)
		}
	}
}
