//go:build !mpi

package hashtable_test

import (
	"fmt"

	"github.com/treelb/treelb/hashtable"
	"github.com/treelb/treelb/mpi"
)

// A table shared by four goroutine ranks: each rank inserts a batch of its
// own keys, then rank 0 looks up two keys while the others take part with
// empty batches (every batch operation is collective).
func Example() {
	err := mpi.Run(4, func(c *mpi.Comm) error {
		t, err := hashtable.New[uint64](c, hashtable.Config{Q: 16})
		if err != nil {
			return err
		}
		// Rank r inserts the keys 10r, 10r+1 and 10r+2, each with its square.
		var keys, vals []uint64
		for i := range uint64(3) {
			k := 10*uint64(c.Rank()) + i
			keys, vals = append(keys, k), append(vals, k*k)
		}
		if err := t.Insert(keys, vals, nil); err != nil {
			return err
		}
		n, err := t.GlobalLen()
		if err != nil {
			return err
		}
		var q []uint64
		if c.Rank() == 0 {
			q = []uint64{21, 99} // one that rank 2 inserted, one that nobody did
		}
		found, vs := make([]bool, len(q)), make([]uint64, len(q))
		if err := t.Search(q, vs, found); err != nil {
			return err
		}
		if c.Rank() == 0 {
			fmt.Println("elements:", n)
			for i, k := range q {
				fmt.Printf("key %d: found %v, value %d\n", k, found[i], vs[i])
			}
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// elements: 12
	// key 21: found true, value 441
	// key 99: found false, value 0
}
