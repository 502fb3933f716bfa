package cert

import (
	"math/rand/v2"
	"testing"
)

// TestOrderIndependent: the sum of the leaves' hashes, split among ranks
// in any way and combined in any order, is the sequential sum, and so is
// the certificate.
func TestOrderIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	leaves := make([]uint64, 1000)
	var want uint64
	for i := range leaves {
		leaves[i] = Mix(uint64(i))
		want += leaves[i]
	}
	for trial := range 20 {
		rng.Shuffle(len(leaves), func(i, j int) { leaves[i], leaves[j] = leaves[j], leaves[i] })
		ranks := make([]uint64, 1+trial)
		for _, h := range leaves {
			ranks[rng.IntN(len(ranks))] += h
		}
		var got uint64
		for _, s := range ranks {
			got += s
		}
		if got != want || New("x", 1000, got) != New("x", 1000, want) {
			t.Fatalf("trial %d: sum %#x, sequential %#x", trial, got, want)
		}
	}
}

// TestDistinguishes: another instance, node count, sum or extra value
// gives another certificate, and a lost or duplicated leaf another sum.
func TestDistinguishes(t *testing.T) {
	base := New("golomb --count 72 11", 16172332, 42, 2)
	seen := map[Certificate]string{base: "base"}
	for name, c := range map[string]Certificate{
		"instance":   New("golomb --count 72 12", 16172332, 42, 2),
		"nodes":      New("golomb --count 72 11", 16172333, 42, 2),
		"sum":        New("golomb --count 72 11", 16172332, 43, 2),
		"more":       New("golomb --count 72 11", 16172332, 42, 3),
		"more count": New("golomb --count 72 11", 16172332, 42, 2, 0),
		"no more":    New("golomb --count 72 11", 16172332, 42),
		"boundary":   New("golomb --count 72 1", 116172332, 42, 2),
	} {
		if other, ok := seen[c]; ok {
			t.Errorf("%s: the same certificate %v as %s", name, c, other)
		}
		seen[c] = name
	}
	if New("a", 1, 2, 3) != New("a", 1, 2, 3) {
		t.Error("not deterministic")
	}
	var s uint64
	for i := range uint64(100) {
		s += Mix(i)
	}
	if s-Mix(7) == s || s+Mix(7) == s {
		t.Error("a lost or duplicated leaf leaves the sum unchanged")
	}
}

// TestMix: Mix is SplitMix64's finalizer (its first output for seed 0 is
// Mix of the golden-ratio increment) and a bijection on a sample.
func TestMix(t *testing.T) {
	// SplitMix64 seeded with 0: the first output is 0xe220a8397b1dcdaf.
	if got := Mix(0x9e3779b97f4a7c15); got != 0xe220a8397b1dcdaf {
		t.Fatalf("Mix(golden) = %#x", got)
	}
	seen := map[uint64]bool{}
	for i := range uint64(1 << 16) {
		h := Mix(i)
		if seen[h] {
			t.Fatalf("Mix collides at %d", i)
		}
		seen[h] = true
	}
	if got := Certificate(0x0123456789abcdef).String(); got != "0123456789abcdef" {
		t.Fatalf("String = %q", got)
	}
}
