package hashtable

import (
	"strconv"
	"testing"

	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/mpi/mpitest"
)

// BenchmarkDispatch measures the all-to-all dispatch of batches of keys
// between two ranks (benchRanks; under MPI, mpirun's size) with Route: pack
// by owner, exchange counts, exchange elements, unpack. The metric is
// elements per second summed over the ranks; every rank sends a batch.
func BenchmarkDispatch(b *testing.B) {
	for _, batch := range []int{1 << 10, 1 << 16} {
		b.Run("uint64/batch="+strconv.Itoa(batch), func(b *testing.B) {
			keys := benchKeys(batch * 4)
			benchWorld(b, batch, func(c *mpi.Comm) error {
				tab, err := New[uint64](c, Config{Q: 1024})
				if err != nil {
					return err
				}
				mine := keys[c.Rank()%4*batch : (c.Rank()%4+1)*batch]
				for range b.N {
					if _, err := tab.Route(mine); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
	b.Run("string/batch=65536", func(b *testing.B) {
		const batch = 1 << 16
		keys := benchStrings(batch * 4)
		benchWorld(b, batch, func(c *mpi.Comm) error {
			tab, err := New[string](c, Config{Q: 1024})
			if err != nil {
				return err
			}
			mine := keys[c.Rank()%4*batch : (c.Rank()%4+1)*batch]
			for range b.N {
				if _, err := tab.Route(mine); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// BenchmarkDistributedOps measures complete batched operations between two
// ranks: dispatch, apply in the owner's subtable and, for Search, the reply.
func BenchmarkDistributedOps(b *testing.B) {
	const batch = 1 << 16
	keys := benchKeys(batch * 4)
	for _, name := range []string{"insert", "search"} {
		b.Run(name, func(b *testing.B) {
			benchWorld(b, batch, func(c *mpi.Comm) error {
				tab, err := New[uint64](c, Config{Q: batch, Capacity: batch})
				if err != nil {
					return err
				}
				mine := keys[c.Rank()%4*batch : (c.Rank()%4+1)*batch]
				vals := make([]uint64, batch)
				found := make([]bool, batch)
				if err := tab.Insert(mine, vals, nil); err != nil {
					return err
				}
				for range b.N {
					if name == "insert" {
						tab.Reset()
						err = tab.Insert(mine, vals, nil)
					} else {
						err = tab.Search(mine, vals, found)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// benchWorld runs f on benchRanks ranks and reports elements/s in total.
// Under MPI every rank picks b.N itself, so run with -test.benchtime=Nx
// (for example mpirun -np 2 ./hashtable.test -test.run '^$' -test.bench
// Dispatch -test.benchtime 2000x); a disagreement is reported, not
// deadlocked on.
func benchWorld(b *testing.B, batch int, f func(c *mpi.Comm) error) {
	b.Helper()
	b.ResetTimer()
	p := 0
	err := mpi.Run(benchRanks, func(c *mpi.Comm) error {
		if err := mpitest.AgreeN(c, b.N); err != nil {
			return err
		}
		if c.Rank() == 0 {
			p = c.Size()
		}
		return f(c)
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*batch*p)/b.Elapsed().Seconds(), "elements/s")
	b.ReportMetric(0, "ns/op")
}
