package hashtable

import (
	"strconv"
	"testing"
)

// Single-rank throughput of the chained table against Go's built-in map on
// the same keys. Every iteration inserts (into an emptied table) or looks up
// all n keys, n = 4096 (cache-resident) or 2^20 (memory-bound); the table
// has m = n buckets (load factor 1) and the map is made for n elements.
// Variants: "chained" calls Insert/Search per key, "chained-batch" calls
// InsertBatch/SearchBatch once, "map" indexes a map per key. The metric to
// compare is Mops/s.

var benchSizes = []int{1 << 12, 1 << 20}

func benchKeys(n int) []uint64 {
	r := NewRand(42)
	k := make([]uint64, n)
	for i := range k {
		k[i] = r.Uint64()
	}
	return k
}

func benchStrings(n int) []string {
	r := NewRand(43)
	k := make([]string, n)
	for i := range k {
		k[i] = "key-" + strconv.FormatUint(r.Uint64(), 36)
	}
	return k
}

func reportMops(b *testing.B, n int) {
	b.ReportMetric(float64(b.N)*float64(n)/b.Elapsed().Seconds()/1e6, "Mops/s")
	b.ReportMetric(0, "ns/op")
}

func benchLocal[K Key](b *testing.B, keys []K) {
	n := len(keys)
	vals := make([]uint64, n)
	b.Run("insert/chained", func(b *testing.B) {
		t, _ := NewLocal[K](n, n)
		for b.Loop() {
			t.Reset()
			for i, k := range keys {
				t.Insert(k, uint64(i))
			}
		}
		reportMops(b, n)
	})
	b.Run("insert/chained-batch", func(b *testing.B) {
		t, _ := NewLocal[K](n, n)
		for b.Loop() {
			t.Reset()
			t.InsertBatch(keys, vals, nil)
		}
		reportMops(b, n)
	})
	b.Run("insert/map", func(b *testing.B) {
		m := make(map[K]uint64, n)
		for b.Loop() {
			clear(m)
			for i, k := range keys {
				m[k] = uint64(i)
			}
		}
		reportMops(b, n)
	})
	b.Run("search/chained", func(b *testing.B) {
		t, _ := NewLocal[K](n, n)
		t.InsertBatch(keys, vals, nil)
		var s uint64
		for b.Loop() {
			for _, k := range keys {
				v, _ := t.Search(k)
				s += v
			}
		}
		sink = s
		reportMops(b, n)
	})
	b.Run("search/chained-batch", func(b *testing.B) {
		t, _ := NewLocal[K](n, n)
		t.InsertBatch(keys, vals, nil)
		for b.Loop() {
			t.SearchBatch(keys, vals, nil)
		}
		reportMops(b, n)
	})
	b.Run("search/map", func(b *testing.B) {
		m := make(map[K]uint64, n)
		for i, k := range keys {
			m[k] = uint64(i)
		}
		var s uint64
		for b.Loop() {
			for _, k := range keys {
				s += m[k]
			}
		}
		sink = s
		reportMops(b, n)
	})
}

func BenchmarkLocal(b *testing.B) {
	for _, n := range benchSizes {
		b.Run("uint64/n="+strconv.Itoa(n), func(b *testing.B) { benchLocal(b, benchKeys(n)) })
		b.Run("string/n="+strconv.Itoa(n), func(b *testing.B) { benchLocal(b, benchStrings(n)) })
	}
}

var sink uint64
