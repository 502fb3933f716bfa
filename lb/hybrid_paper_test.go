package lb

import "testing"

// TestHybridClusters (seed 000 §5.1, seed 001 §6: static placement, then
// random polling within clusters of ranks): with Clusters C, rank r asks
// only ranks of its own cluster, the block of consecutive ranks r' with
// ⌊r'·C/P⌋ = ⌊r·C/P⌋, never itself, every rank of the cluster in time;
// a rank alone in its cluster asks no one.
func TestHybridClusters(t *testing.T) {
	for _, c := range []struct{ p, clusters int }{{16, 4}, {13, 3}, {16, 1}, {5, 5}, {7, 64}} {
		for r := range c.p {
			b, err := newHybrid(Env{Rank: r, Size: c.p, Rand: NewRand(9, r), Options: HybridOptions{Clusters: c.clusters}})
			if err != nil {
				t.Fatal(err)
			}
			rp := b.(*randomPolling)
			k := min(c.clusters, c.p)
			mine := r * k / c.p
			size := 0
			for q := range c.p {
				if q*k/c.p == mine {
					size++
				}
			}
			if !rp.canAsk {
				if size != 1 {
					t.Errorf("P=%d C=%d: rank %d asks no one, in a cluster of %d", c.p, c.clusters, r, size)
				}
				continue
			}
			seen := map[int]bool{}
			for range 64 * size {
				q := rp.requestFrom()
				if q == r || q < 0 || q >= c.p || q*k/c.p != mine {
					t.Fatalf("P=%d C=%d: rank %d (cluster %d) asks rank %d (cluster %d)", c.p, c.clusters, r, mine, q, q*k/c.p)
				}
				seen[q] = true
			}
			if len(seen) != size-1 {
				t.Errorf("P=%d C=%d: rank %d asked %d of the %d other ranks of its cluster", c.p, c.clusters, r, len(seen), size-1)
			}
		}
	}
}
