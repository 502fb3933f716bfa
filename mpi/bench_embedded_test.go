//go:build !mpi

package mpi_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/treelb/treelb/mpi"
)

// benchSize is the world size of the benchmarks shared with the MPI world.
const benchSize = 2

// BenchmarkMessageRate: every even rank streams 8-byte messages to the
// next odd rank, which acknowledges every window of 64; a sender runs at
// most two windows ahead, so queues stay bounded. One op is one message per
// pair; msgs/s counts the messages of all pairs.
func BenchmarkMessageRate(b *testing.B) {
	for _, n := range []int{2, 4, 16, 64} {
		b.Run(fmt.Sprintf("ranks=%d", n), func(b *testing.B) {
			var elapsed time.Duration
			err := mpi.Run(n, func(c *mpi.Comm) error {
				if err := c.Barrier(); err != nil {
					return err
				}
				start := time.Now()
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				if err := stream(c, b.N); err != nil {
					return err
				}
				if err := c.Barrier(); err != nil {
					return err
				}
				if c.Rank() == 0 {
					b.StopTimer()
					elapsed = time.Since(start)
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(n/2*b.N)/elapsed.Seconds(), "msgs/s")
		})
	}
}

// stream sends n messages from each even rank to the odd rank after it.
func stream(c *mpi.Comm, n int) error {
	const window = 64
	msg, ack := make([]byte, 8), make([]byte, 1)
	me := c.Rank()
	if me%2 == 1 {
		for i := range n {
			if _, err := c.Recv(msg, me-1, 0); err != nil {
				return err
			}
			if (i+1)%window == 0 {
				if err := c.Send(ack, me-1, 1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if me+1 >= c.Size() {
		return nil
	}
	acked := 0
	for i := range n {
		if err := c.Send(msg, me+1, 0); err != nil {
			return err
		}
		for (i+1)/window-acked >= 2 {
			if _, err := c.Recv(ack, me+1, 1); err != nil {
				return err
			}
			acked++
		}
	}
	for ; acked < n/window; acked++ {
		if _, err := c.Recv(ack, me+1, 1); err != nil {
			return err
		}
	}
	return nil
}
