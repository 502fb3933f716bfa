package cert

import (
	"testing"
)

// TestDistinguishes: another instance, node count, sum or extra value
// gives another certificate, and so does a leaf lost while another is
// counted twice (the node count unchanged). That the sum does not depend
// on how the leaves are split among ranks is checked where ranks split
// them: runnertest.Invariant, on every balancer and world.
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
	if a, b := New("a", 1, 2, 3), New("a", 1, 2, 3); a != b {
		t.Error("not deterministic")
	}
	// A leaf lost and another counted twice keep the node count; the sum
	// and so the certificate still change, for every pair of a sample.
	var s uint64
	for i := range uint64(100) {
		s += Mix(i)
	}
	want := New("x", 100, s)
	for i := range uint64(100) {
		for j := range uint64(100) {
			if i != j && New("x", 100, s-Mix(i)+Mix(j)) == want {
				t.Fatalf("leaf %d lost and leaf %d counted twice: the same certificate", i, j)
			}
		}
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
