//go:build !mpi

package mpi_test

import (
	"fmt"

	"github.com/treelb/treelb/mpi"
)

// A world of four goroutine ranks: each rank passes a number to its
// clockwise neighbour round a ring, then all ranks sum what they received
// with one reduction. Built with -tags mpi and started by mpirun, the same
// rank function runs on MPI processes.
func Example() {
	err := mpi.Run(4, func(c *mpi.Comm) error {
		rank, size := c.Rank(), c.Size()
		next, prev := (rank+1)%size, (rank+size-1)%size

		// Post the send without waiting, receive, then complete the send:
		// no rank blocks in a send while its neighbour blocks in one too.
		out := []byte{byte(10 * rank)}
		req, err := c.Isend(out, next, 0)
		if err != nil {
			return err
		}
		in := make([]byte, 1)
		st, err := c.Recv(in, prev, 0)
		if err != nil {
			return err
		}
		if _, err := req.Wait(); err != nil {
			return err
		}

		// Every rank gets the sum of the numbers received.
		sum := make([]int64, 1)
		if err := mpi.Allreduce(c, []int64{int64(in[0])}, sum, mpi.Sum); err != nil {
			return err
		}
		if rank == 0 {
			fmt.Printf("rank 0 of %d got %d from rank %d; the ring's sum is %d\n", size, in[0], st.Source, sum[0])
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// rank 0 of 4 got 30 from rank 3; the ring's sum is 60
}
