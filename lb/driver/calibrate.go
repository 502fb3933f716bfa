package driver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

// tagCalibrate tags the messages of Calibrate's benchmarks, tagMark its
// marks and acknowledgements.
const (
	tagCalibrate = lb.NumKinds + 2
	tagMark      = lb.NumKinds + 3
)

// Calibrate measures on c what the driver's loop pays for communication, as
// the simulator's machine model charges it (lb.Machine), with micro-
// benchmarks of the loop's own calls between ranks 0 and 1 (rank 0 with
// itself on one rank):
//
//   - PollNS: an Iprobe that finds no message, as after every work slice;
//   - SendNS: an Isend of a short message and the Test that sees it
//     complete, as flush does;
//   - RecvNS: the Iprobe that finds a waiting message, its buffer and its
//     Recv, as receive does;
//   - LatencyNS: half a round trip of a short message through blocking
//     Probe and Recv (an idle rank's wait), less SendNS and RecvNS;
//   - ByteNS: the growth of half a round trip per byte, from 16 bytes to
//     64 KiB;
//   - PauseNS and MaxPauseNS: request throttling as the driver would do it
//     on c (a tick, 20 µs or a 1024th of the longest pause, up to a pause
//     that grows with the ranks per core), 0 when
//     the ranks do not outnumber the cores.
//
// OverheadNS and GapNS stay 0: the loop's costs stand for them. Each
// measurement runs for about d (at least a few hundred repetitions). It is
// collective, and returns the same model on every rank.
func Calibrate(c *mpi.Comm, d time.Duration) (lb.Machine, error) {
	var m lb.Machine
	if throttles(c) {
		m.PauseNS = float64(tickFor(c.Size(), throttleCores()).Nanoseconds())
		m.MaxPauseNS = float64(maxPauseFor(c.Size(), throttleCores()).Nanoseconds())
	}
	peer := 0
	if c.Size() > 1 {
		peer = 1
	}
	var vals [5]float64
	if err := c.Barrier(); err != nil {
		return m, fmt.Errorf("calibrating: %w", err)
	}
	if c.Rank() <= 1 {
		var err error
		if vals, err = measure(c, peer, d); err != nil {
			return m, fmt.Errorf("calibrating: %w", err)
		}
	}
	// Rank 0's figures for everyone.
	buf := make([]byte, 0, 8*len(vals))
	if c.Rank() == 0 {
		for _, v := range vals {
			buf = appendFloat(buf, v)
		}
	}
	buf, err := Bcast(c, buf, 0)
	if err != nil {
		return m, err
	}
	for i := range vals {
		vals[i] = readFloat(buf[8*i:])
	}
	m.PollNS, m.SendNS, m.RecvNS, m.LatencyNS, m.ByteNS = vals[0], vals[1], vals[2], vals[3], vals[4]
	return m, nil
}

// measure runs the micro-benchmarks on rank 0 against peer (rank 1, or
// itself), and plays rank 1's part there.
func measure(c *mpi.Comm, peer int, d time.Duration) ([5]float64, error) {
	var out [5]float64
	me := c.Rank()
	small := make([]byte, 16)
	// Poll: every rank alone.
	if me == 0 {
		n, t0 := 0, time.Now()
		for n < 200 || time.Since(t0) < d {
			for range 100 {
				if _, ok, err := c.Iprobe(mpi.AnySource, tagCalibrate); err != nil {
					return out, err
				} else if ok {
					return out, fmt.Errorf("a stray message during the poll benchmark")
				}
			}
			n += 100
		}
		out[0] = float64(time.Since(t0).Nanoseconds()) / float64(n)
	}
	// Send and receive: rank 0 sends a batch to the peer and marks its
	// end ([1]; [0] ends the rounds); the peer, once the mark is there,
	// times taking the batch, and acknowledges it.
	const batch = 1000
	var sendNS, recvNS float64
	rounds := 0
	take := func() error {
		r0 := time.Now()
		for range batch {
			st, ok, err := c.Iprobe(mpi.AnySource, tagCalibrate)
			if err == nil && !ok { // not here yet after all: wait for it
				st, err = c.Probe(mpi.AnySource, tagCalibrate)
			}
			if err != nil {
				return err
			}
			buf := make([]byte, st.Count)
			if _, err := c.Recv(buf, st.Source, st.Tag); err != nil {
				return err
			}
		}
		recvNS += float64(time.Since(r0).Nanoseconds())
		return nil
	}
	if me == 0 {
		for t0 := time.Now(); rounds < 3 || time.Since(t0) < d && rounds < 50; rounds++ {
			s0 := time.Now()
			pending := make([]*mpi.Request, 0, batch)
			for range batch {
				r, err := c.Isend(small, peer, tagCalibrate)
				if err != nil {
					return out, err
				}
				if _, done, err := r.Test(); err != nil {
					return out, err
				} else if !done {
					pending = append(pending, r)
				}
			}
			sendNS += float64(time.Since(s0).Nanoseconds())
			if peer == me {
				// Alone: take the batch before waiting for its sends, which
				// MPI may not complete before they are received (MPICH on
				// one rank waited for ever).
				if err := take(); err != nil {
					return out, err
				}
			}
			for _, r := range pending {
				if _, err := r.Wait(); err != nil {
					return out, err
				}
			}
			if peer == me {
				continue
			}
			if err := c.Send([]byte{1}, peer, tagMark); err != nil {
				return out, err
			}
			if _, err := c.Recv(make([]byte, 8), peer, tagMark); err != nil {
				return out, err
			}
		}
		out[1], out[2] = sendNS/float64(rounds*batch), recvNS/float64(rounds*batch)
		if peer != me {
			if err := c.Send([]byte{0}, peer, tagMark); err != nil {
				return out, err
			}
			b := make([]byte, 8)
			if _, err := c.Recv(b, peer, tagMark); err != nil {
				return out, err
			}
			out[2] = readFloat(b)
		}
	} else {
		for {
			mark := make([]byte, 1)
			if _, err := c.Recv(mark, 0, tagMark); err != nil {
				return out, err
			}
			if mark[0] == 0 {
				break
			}
			if err := take(); err != nil {
				return out, err
			}
			rounds++
			if err := c.Send(make([]byte, 8), 0, tagMark); err != nil {
				return out, err
			}
		}
		if err := c.Send(appendFloat(nil, recvNS/float64(max(rounds, 1)*batch)), 0, tagMark); err != nil {
			return out, err
		}
	}
	// Latency and bandwidth: ping-pong, as many rounds as rank 0 says.
	half := func(size int) (float64, error) {
		data := make([]byte, size)
		n := 50
		if me == 0 && peer != 0 {
			// A trial sets the rounds that last about d/2.
			t0 := time.Now()
			for range 10 {
				if err := pingPong(c, peer, data); err != nil {
					return 0, err
				}
			}
			per := time.Since(t0) / 10
			n = max(50, min(100000, int(d/2/max(per, 1))))
			if err := c.Send(appendFloat(nil, float64(n)), peer, tagMark); err != nil {
				return 0, err
			}
		} else if peer != 0 {
			for range 10 {
				if err := pingPong(c, peer, data); err != nil {
					return 0, err
				}
			}
			b := make([]byte, 8)
			if _, err := c.Recv(b, 0, tagMark); err != nil {
				return 0, err
			}
			n = int(readFloat(b))
		}
		t0 := time.Now()
		for range n {
			if err := pingPong(c, peer, data); err != nil {
				return 0, err
			}
		}
		return float64(time.Since(t0).Nanoseconds()) / float64(2*n), nil
	}
	hs, err := half(len(small))
	if err != nil {
		return out, err
	}
	const big = 64 << 10
	hb, err := half(big)
	if err != nil {
		return out, err
	}
	out[3] = max(hs-out[1]-out[2], 0)
	out[4] = max((hb-hs)/float64(big-len(small)), 0)
	return out, nil
}

// pingPong sends data from rank 0 to peer and back; peer echoes. On one
// rank (peer 0) it sends data to itself twice.
func pingPong(c *mpi.Comm, peer int, data []byte) error {
	if peer == 0 {
		for range 2 {
			r, err := c.Isend(data, peer, tagCalibrate)
			if err != nil {
				return err
			}
			st, err := c.Probe(peer, tagCalibrate)
			if err != nil {
				return err
			}
			if _, err := c.Recv(make([]byte, st.Count), peer, tagCalibrate); err != nil {
				return err
			}
			if _, err := r.Wait(); err != nil {
				return err
			}
		}
		return nil
	}
	if c.Rank() == 0 {
		if err := c.Send(data, peer, tagCalibrate); err != nil {
			return err
		}
		st, err := c.Probe(peer, tagCalibrate)
		if err != nil {
			return err
		}
		_, err = c.Recv(make([]byte, st.Count), peer, tagCalibrate)
		return err
	}
	st, err := c.Probe(0, tagCalibrate)
	if err != nil {
		return err
	}
	buf := make([]byte, st.Count)
	if _, err := c.Recv(buf, 0, tagCalibrate); err != nil {
		return err
	}
	return c.Send(buf, 0, tagCalibrate)
}

func appendFloat(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

func readFloat(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

// Alone runs job on the calling rank of c as the only rank of its search:
// the engine of one rank (lb.Rank) and this package's loop, which polls c
// for messages after every work slice (Iprobe) as every rank of a real run
// does: the code of a run of one rank, without the barrier before it and
// the reduction after it. It serves to time the loop (runner's
// --calibrate measures the cost of a work slice with it): the other ranks
// of c must send this rank nothing while it runs. It returns the rank's
// statistics; a job that resumes a search is an error.
func Alone(c *mpi.Comm, job lb.Job) (lb.Stats, error) {
	if job.Config.Resume != nil {
		return lb.Stats{}, errors.New("lb: a rank alone cannot resume a search")
	}
	r, err := lb.NewRank(job, lb.RankConfig{Rank: 0, Size: 1, DueEvery: max(int(duePoll/minTick), 1)})
	if err != nil {
		return lb.Stats{}, err
	}
	d := loop{c: c, pace: pace{r: r, tick: minTick}}
	if err := d.run(nil); err != nil {
		return lb.Stats{}, fmt.Errorf("lb: rank %d alone: %w", c.Rank(), err)
	}
	return *r.Stats(), nil
}
