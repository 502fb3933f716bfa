package hashtable

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// refOps drives a Local and a Go map with the same random operations on a
// small key universe (so that hits, updates and deletions are common) and
// compares every answer and, at the end, the whole contents.
func refOps[K Key](t *testing.T, key func(uint64) K, m int) {
	tab, err := NewLocal[K](m, 0)
	if err != nil {
		t.Fatal(err)
	}
	ref := map[K]uint64{}
	rng := NewRand(uint64(m))
	for i := range 60000 {
		k := key(rng.Below(3000))
		v := rng.Uint64()
		switch rng.Below(3) {
		case 0:
			_, had := ref[k]
			if got := tab.Insert(k, v); got == had {
				t.Fatalf("op %d: Insert(%v) = %v, key present before: %v", i, k, got, had)
			}
			ref[k] = v
		case 1:
			want, had := ref[k]
			if got, ok := tab.Search(k); ok != had || got != want {
				t.Fatalf("op %d: Search(%v) = %d, %v; want %d, %v", i, k, got, ok, want, had)
			}
		case 2:
			_, had := ref[k]
			if got := tab.Delete(k); got != had {
				t.Fatalf("op %d: Delete(%v) = %v, want %v", i, k, got, had)
			}
			delete(ref, k)
		}
		if tab.Len() != len(ref) {
			t.Fatalf("op %d: Len %d, want %d", i, tab.Len(), len(ref))
		}
	}
	checkContents(t, tab, ref)
}

func checkContents[K Key](t *testing.T, tab *Local[K], ref map[K]uint64) {
	t.Helper()
	seen := 0
	occ := 0
	for j := range tab.Buckets() {
		occ += tab.Occupancy(j)
	}
	for k, v := range tab.All() {
		seen++
		if w, ok := ref[k]; !ok || w != v {
			t.Fatalf("table holds %v=%d, reference %d (%v)", k, v, w, ok)
		}
	}
	if seen != len(ref) || occ != len(ref) {
		t.Fatalf("table iterates %d elements with occupancy %d, reference has %d", seen, occ, len(ref))
	}
}

func TestLocalUint64(t *testing.T) {
	for _, m := range []int{1, 7, 1024} {
		t.Run(fmt.Sprint(m), func(t *testing.T) {
			refOps(t, func(x uint64) uint64 { return Mix64(x) }, m)
		})
	}
}

func TestLocalString(t *testing.T) {
	for _, m := range []int{1, 7, 1024} {
		t.Run(fmt.Sprint(m), func(t *testing.T) {
			refOps(t, func(x uint64) string {
				if x%50 == 0 {
					return "" // the empty key is a key like any other
				}
				return "k" + strconv.FormatUint(x, 10) + string(make([]byte, x%40))
			}, m)
		})
	}
}

// TestLocalArenaCompaction deletes most of many long string keys, which
// compacts the arena, and checks the survivors.
func TestLocalArenaCompaction(t *testing.T) {
	tab, _ := NewLocal[string](256, 0)
	ref := map[string]uint64{}
	long := string(make([]byte, 200))
	for i := range 5000 {
		k := strconv.Itoa(i) + long
		tab.Insert(k, uint64(i))
		ref[k] = uint64(i)
	}
	for i := range 5000 {
		if i%10 != 0 {
			k := strconv.Itoa(i) + long
			tab.Delete(k)
			delete(ref, k)
		}
	}
	if tab.garbage > tab.live+chunkSize {
		t.Errorf("arena not compacted: %d bytes of garbage, %d live", tab.garbage, tab.live)
	}
	checkContents(t, tab, ref)
	big := string(make([]byte, 3*chunkSize)) + "x"
	tab.Insert(big, 1)
	if v, ok := tab.Search(big); !ok || v != 1 {
		t.Error("large key lost")
	}
}

func TestLocalBatches(t *testing.T) {
	tab, _ := NewLocal[uint64](100, 0)
	one, _ := NewLocal[uint64](100, 0)
	rng := NewRand(9)
	keys := make([]uint64, 1000)
	vals := make([]uint64, len(keys))
	for i := range keys {
		keys[i], vals[i] = rng.Below(700), uint64(i)
	}
	ins := make([]bool, len(keys))
	added, work := tab.InsertBatch(keys, vals, ins)
	var wantWork int64
	wantAdded := 0
	for i, k := range keys {
		ok, w := one.InsertWork(k, vals[i])
		wantWork += int64(w)
		if ok {
			wantAdded++
		}
		if ok != ins[i] {
			t.Fatalf("key %d: batch inserted %v, single %v", i, ins[i], ok)
		}
	}
	if added != wantAdded || work != wantWork {
		t.Fatalf("InsertBatch added %d work %d, single inserts %d work %d", added, work, wantAdded, wantWork)
	}
	found := make([]bool, len(keys))
	got := make([]uint64, len(keys))
	probe := make([]uint64, len(keys))
	for i := range probe {
		probe[i] = rng.Below(1400)
	}
	work = tab.SearchBatch(probe, got, found)
	wantWork = 0
	for i, k := range probe {
		v, ok, w := one.SearchWork(k)
		wantWork += int64(w)
		if v != got[i] || ok != found[i] {
			t.Fatalf("probe %d: batch %d,%v single %d,%v", i, got[i], found[i], v, ok)
		}
	}
	if work != wantWork {
		t.Fatalf("SearchBatch work %d, single searches %d", work, wantWork)
	}
}

// TestEssentialWorkFormulas: the work counters of SearchWork and InsertWork
// equal the formulas of seed 004 §4.2 computed from the bucket occupancies:
// Σ_j (A_j+1)·B_j for searching B_j absent keys in buckets of A_j elements,
// and Σ_j B_j(B_j+1)/2 for inserting them into an empty table.
func TestEssentialWorkFormulas(t *testing.T) {
	const m = 64
	old, _ := NewLocal[uint64](m, 0)
	nw, _ := NewLocal[uint64](m, 0)
	rng := NewRand(5)
	for range 4 * m {
		old.Insert(rng.Uint64(), 0)
	}
	keys := make([]uint64, 4*m)
	for i := range keys {
		keys[i] = rng.Uint64()
	}
	search := old.SearchBatch(keys, nil, nil)
	_, insert := nw.InsertBatch(keys, nil, nil)
	var fs, fi int64
	for j := range m {
		a, b := int64(old.Occupancy(j)), int64(nw.Occupancy(j))
		fs += (a + 1) * b
		fi += b * (b + 1) / 2
	}
	if search != fs || insert != fi {
		t.Errorf("search work %d, formula %d; insert work %d, formula %d", search, fs, insert, fi)
	}
}

func TestNewLocalBadInput(t *testing.T) {
	if _, err := NewLocal[uint64](0, 0); err == nil {
		t.Error("0 buckets accepted")
	}
	if _, err := NewLocal[uint64](4, -1); err == nil {
		t.Error("negative capacity accepted")
	}
}

func TestPoisson(t *testing.T) {
	for _, lambda := range []float64{0.5, 4, 9.9, 10, 48, 6912} {
		r := NewRand(uint64(lambda * 10))
		const n = 40000
		var s, s2 float64
		for range n {
			x := float64(r.Poisson(lambda))
			s += x
			s2 += x * x
		}
		mean := s / n
		vr := s2/n - mean*mean
		// Mean and variance of a Poisson variable are both lambda; allow
		// five standard errors.
		if math.Abs(mean-lambda) > 5*math.Sqrt(lambda/n) || math.Abs(vr-lambda) > 5*lambda*math.Sqrt(2.0/n)+0.01 {
			t.Errorf("Poisson(%g): mean %.4f variance %.4f", lambda, mean, vr)
		}
	}
}

// TestLocalResetReusesArena: Reset reuses the string arena unless All has
// handed out keys, and exposed keys never change.
func TestLocalResetReusesArena(t *testing.T) {
	tab, _ := NewLocal[string](64, 0)
	keys := map[string][]string{}
	for _, tag := range []string{"a", "b", "c", "d"} {
		for i := range 10000 {
			keys[tag] = append(keys[tag], tag+strconv.Itoa(i))
		}
	}
	fill := func(tag string) {
		tab.Reset()
		for i, k := range keys[tag] {
			tab.Insert(k, uint64(i))
		}
	}
	fill("a")
	var kept []string
	for k := range tab.All() {
		kept = append(kept, k)
	}
	fill("b") // must not overwrite kept
	fill("c") // may reuse b's chunks
	for _, k := range kept {
		if k[0] != 'a' {
			t.Fatalf("exposed key changed to %q", k)
		}
	}
	if v, ok := tab.Search("c9999"); !ok || v != 9999 || tab.Len() != 10000 {
		t.Fatal("table wrong after arena reuse")
	}
	allocs := testing.AllocsPerRun(5, func() { fill("d") })
	if allocs > 1 {
		t.Errorf("refilling allocates %.0f times", allocs)
	}
}
