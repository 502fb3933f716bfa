package mpi_test

// Benchmarks of both worlds. In the MPI world run them under mpirun -np 2
// with -test.benchtime=Nx, so that every rank agrees on b.N:
//
//	go test -c -tags mpi -o mpi.test ./mpi
//	mpirun -np 2 ./mpi.test -test.run '^$' -test.bench . -test.benchtime 20000x -quiet-ranks
//
// scripts/mpi-bench.sh prints them beside the same measurements in C.

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/mpi/mpitest"
)

// errTooFew skips a benchmark that needs two ranks.
var errTooFew = errors.New("needs at least 2 ranks")

// benchRun runs f on a world of benchSize ranks (mpirun's size under MPI).
// Only rank 0 touches b's timer and metrics.
func benchRun(b *testing.B, f func(c *mpi.Comm) error) {
	b.Helper()
	if err := mpi.Run(benchSize, func(c *mpi.Comm) error {
		if c.Size() < 2 {
			return errTooFew
		}
		if err := mpitest.AgreeN(c, b.N); err != nil {
			return err
		}
		return f(c)
	}); errors.Is(err, errTooFew) {
		b.Skip("needs at least 2 ranks: run under mpirun -np 2")
	} else if err != nil {
		b.Fatal(err)
	}
}

// timed runs body on ranks 0 and 1 after a warm-up of up to 100 rounds,
// with b's timer covering the b.N rounds on rank 0, and returns the
// elapsed time on rank 0. Every rank takes part in the barriers.
func timed(b *testing.B, c *mpi.Comm, body func(n int) error) (time.Duration, error) {
	me := c.Rank()
	if me < 2 {
		if err := body(min(b.N, 100)); err != nil {
			return 0, err
		}
	}
	if err := c.Barrier(); err != nil {
		return 0, err
	}
	var start time.Time
	if me == 0 {
		b.ResetTimer()
		start = time.Now()
	}
	if me < 2 {
		if err := body(b.N); err != nil {
			return 0, err
		}
	}
	var d time.Duration
	if me == 0 {
		d = time.Since(start)
		b.StopTimer()
	}
	return d, c.Barrier()
}

// benchPingPong: round trips of size bytes; with within > 0 each receive
// waits first in ProbeWithin(within).
func benchPingPong(b *testing.B, size int, within time.Duration) {
	b.SetBytes(int64(2 * size))
	benchRun(b, func(c *mpi.Comm) error {
		buf := make([]byte, size)
		me := c.Rank()
		recv := func(src int) error {
			if within > 0 {
				if _, ok, err := c.ProbeWithin(src, 0, within); err != nil || !ok {
					return fmt.Errorf("ProbeWithin(%v): found %v, %v", within, ok, err)
				}
			}
			_, err := c.Recv(buf, src, 0)
			return err
		}
		d, err := timed(b, c, func(n int) error {
			for range n {
				if me == 0 {
					if err := c.Send(buf, 1, 0); err != nil {
						return err
					}
					if err := recv(1); err != nil {
						return err
					}
				} else {
					if err := recv(0); err != nil {
						return err
					}
					if err := c.Send(buf, 0, 0); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if me == 0 {
			b.ReportMetric(float64(d.Nanoseconds())/float64(2*b.N), "ns/oneway")
		}
		return err
	})
}

// BenchmarkPingPong8: one op is a round trip of 8 bytes between ranks 0
// and 1; ns/oneway is half of it.
func BenchmarkPingPong8(b *testing.B) { benchPingPong(b, 8, 0) }

// BenchmarkPingPong64K: the same with 64 KiB messages.
func BenchmarkPingPong64K(b *testing.B) { benchPingPong(b, 64<<10, 0) }

// BenchmarkPingPongWithin8: BenchmarkPingPong8 with each receive waiting
// first in ProbeWithin with a deadline of a second, as an idle rank of lb's
// driver waits when it has a deadline of its own (the stall watchdog, rank
// 0's progress and checkpoint polls); its ns/oneway against PingPong8's is
// what that wait adds to a message's latency.
func BenchmarkPingPongWithin8(b *testing.B) { benchPingPong(b, 8, time.Second) }

// BenchmarkIprobeEmpty: one op is an Iprobe on rank 0 that finds nothing.
func BenchmarkIprobeEmpty(b *testing.B) {
	benchRun(b, func(c *mpi.Comm) error {
		_, err := timed(b, c, func(n int) error {
			if c.Rank() != 0 {
				return nil
			}
			for range n {
				_, ok, err := c.Iprobe(mpi.AnySource, mpi.AnyTag)
				if err != nil {
					return err
				}
				if ok {
					return errors.New("Iprobe found a message")
				}
			}
			return nil
		})
		return err
	})
}

// BenchmarkAllreduceInt64: one op is an Allreduce of one int64 (sum) over
// all ranks.
func BenchmarkAllreduceInt64(b *testing.B) {
	benchRun(b, func(c *mpi.Comm) error {
		send, recv := []int64{int64(c.Rank())}, make([]int64, 1)
		want := int64(c.Size() * (c.Size() - 1) / 2)
		allreduce := func(n int) error {
			for range n {
				if err := mpi.Allreduce(c, send, recv, mpi.Sum); err != nil {
					return err
				}
			}
			if recv[0] != want {
				return errors.New("wrong Allreduce sum")
			}
			return nil
		}
		// Every rank takes part: time the loop on all of them.
		if err := allreduce(min(b.N, 100)); err != nil {
			return err
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.ResetTimer()
		}
		if err := allreduce(b.N); err != nil {
			return err
		}
		if c.Rank() == 0 {
			b.StopTimer()
		}
		return nil
	})
}
