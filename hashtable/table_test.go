package hashtable

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/treelb/treelb/mpi"
)

// distributedMatchesReference runs a random sequence of batched inserts,
// searches and deletes on a distributed table. Every rank generates the
// whole sequence (all ranks' batches) from the same seed and applies it to a
// Go map in the order the owners apply it (source rank, then batch order),
// so it can check its own results and its own subtable without any other
// communication than the table's.
func distributedMatchesReference[K Key](c *mpi.Comm, cfg Config, key func(uint64) K) error {
	p, me := c.Size(), c.Rank()
	tab, err := New[K](c, cfg)
	if err != nil {
		return err
	}
	ref := map[K]uint64{}
	rng := NewRand(StreamSeed(77, uint64(p), uint64(cfg.Alloc)))
	batches := make([][]K, p)
	vals := make([][]uint64, p)
	for step := range 50 {
		o := op(1 + rng.Below(3))
		for r := range p {
			n := int(rng.Below(50))
			if rng.Below(8) == 0 {
				n = 0
			}
			batches[r], vals[r] = batches[r][:0], vals[r][:0]
			for range n {
				batches[r] = append(batches[r], key(rng.Below(400)))
				vals[r] = append(vals[r], rng.Uint64())
			}
		}
		wantRes := rng.Below(2) == 0 || me%2 == 1 // ranks differ in asking
		mine := batches[me]
		var flags []bool
		if wantRes || o == opSearch {
			flags = make([]bool, len(mine))
		}
		got := make([]uint64, len(mine))
		var expFlags []bool
		var expVals []uint64
		switch o {
		case opInsert:
			if err := tab.Insert(mine, vals[me], flags); err != nil {
				return err
			}
			for r := range p {
				for i, k := range batches[r] {
					_, had := ref[k]
					ref[k] = vals[r][i]
					if r == me {
						expFlags = append(expFlags, !had)
					}
				}
			}
		case opSearch:
			if err := tab.Search(mine, got, flags); err != nil {
				return err
			}
			for _, k := range mine {
				v, ok := ref[k]
				expFlags, expVals = append(expFlags, ok), append(expVals, v)
			}
		case opDelete:
			if err := tab.Delete(mine, flags); err != nil {
				return err
			}
			for r := range p {
				for _, k := range batches[r] {
					_, had := ref[k]
					delete(ref, k)
					if r == me {
						expFlags = append(expFlags, had)
					}
				}
			}
		}
		for i := range flags {
			if flags[i] != expFlags[i] || (o == opSearch && got[i] != expVals[i]) {
				return fmt.Errorf("step %d %v key %v: got %v,%d want %v", step, o, mine[i], flags[i], got[i], expFlags[i])
			}
		}
		// This rank's subtable holds exactly the reference keys it owns.
		owned := 0
		for k, v := range ref {
			if tab.Layout().Owner(Hash(k)) != me {
				continue
			}
			owned++
			if w, ok := tab.Local().Search(k); !ok || w != v {
				return fmt.Errorf("step %d: owned key %v: subtable has %d,%v want %d", step, k, w, ok, v)
			}
		}
		if owned != tab.Len() {
			return fmt.Errorf("step %d: subtable has %d elements, reference %d", step, tab.Len(), owned)
		}
		if n, err := tab.GlobalLen(); err != nil || n != int64(len(ref)) {
			return fmt.Errorf("step %d: GlobalLen %d (%v), reference %d", step, n, err, len(ref))
		}
	}
	return nil
}

func TestDistributedMatchesReference(t *testing.T) {
	u64 := func(x uint64) uint64 { return x * 0x9e3779b97f4a7c15 }
	str := func(x uint64) string { return "s" + strconv.FormatUint(x, 16) + string(make([]byte, x%200)) }
	for _, a := range []Alloc{Block, Modular, Balanced} {
		for _, cfg := range []Config{{Q: 3, Alloc: a}, {Buckets: 17, Alloc: a}} {
			t.Run(fmt.Sprintf("%v/q%d-m%d", a, cfg.Q, cfg.Buckets), func(t *testing.T) {
				forSizes(t, func(c *mpi.Comm) error {
					if err := distributedMatchesReference(c, cfg, u64); err != nil {
						return fmt.Errorf("uint64 keys: %w", err)
					}
					if err := distributedMatchesReference(c, cfg, str); err != nil {
						return fmt.Errorf("string keys: %w", err)
					}
					return nil
				})
			})
		}
	}
}

// TestRoute: every key reaches its owner exactly once, grouped by source.
func TestRoute(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		tab, err := New[uint64](c, Config{Q: 5, Alloc: Modular})
		if err != nil {
			return err
		}
		keys := make([]uint64, 100*(me+1))
		for i := range keys {
			keys[i] = uint64(me)<<32 | uint64(i)
		}
		got, err := tab.Route(keys)
		if err != nil {
			return err
		}
		last := make([]int64, p)
		for i := range last {
			last[i] = -1
		}
		src := 0
		for _, k := range got {
			s, i := int(k>>32), int64(uint32(k))
			if tab.Layout().Owner(Hash(k)) != me || s < src || i <= last[s] {
				return fmt.Errorf("received %x out of order or not owned", k)
			}
			src, last[s] = s, i
		}
		n := []int64{int64(len(got))}
		tot := []int64{0}
		if err := mpi.Allreduce(c, n, tot, mpi.Sum); err != nil {
			return err
		}
		if want := int64(100 * p * (p + 1) / 2); tot[0] != want {
			return fmt.Errorf("%d keys routed, want %d", tot[0], want)
		}
		return nil
	})
}

func TestNewBadInput(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		for _, cfg := range []Config{{}, {Q: -1}, {Q: 2, Alloc: Alloc(9)}, {Q: 2, Capacity: -5}} {
			if _, err := New[uint64](c, cfg); err == nil {
				return fmt.Errorf("New(%+v) succeeded", cfg)
			}
		}
		tab, err := New[string](c, Config{Q: 2})
		if err != nil {
			return err
		}
		// Length mismatches are caught before any communication.
		if err := tab.Insert([]string{"a"}, []uint64{1, 2}, nil); err == nil {
			return errors.New("Insert with 2 values for 1 key succeeded")
		}
		if err := tab.Search([]string{"a"}, nil, make([]bool, 3)); err == nil {
			return errors.New("Search with 3 result slots for 1 key succeeded")
		}
		// An empty slice that is not nil is given, and too short (it
		// panicked in the batch before).
		keys := []string{"a", "b", "c"}
		for name, err := range map[string]error{
			"Insert, empty inserted": tab.Insert(keys, nil, []bool{}),
			"Insert, empty values":   tab.Insert(keys, []uint64{}, nil),
			"Search, empty values":   tab.Search(keys, []uint64{}, nil),
			"Delete, empty deleted":  tab.Delete(keys, []bool{}),
		} {
			if err == nil {
				return fmt.Errorf("%s for 3 keys succeeded", name)
			}
		}
		// Empty batches with empty slices are fine (collectively).
		if err := tab.Insert(nil, []uint64{}, []bool{}); err != nil {
			return fmt.Errorf("an empty batch with empty slices: %w", err)
		}
		return nil
	})
}
