package mpi_test

// The conformance suite: the same tests run on the embedded world (plain
// go test, many world sizes) and on the MPI world (-tags mpi, under mpirun,
// at the size mpirun gives).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/mpi/mpitest"
)

// forSizes runs f on every test world size and fails t on any error.
func forSizes(t *testing.T, f func(c *mpi.Comm) error) {
	t.Helper()
	mpitest.ForSizes(t, testSizes, f)
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

func TestPointToPointOrder(t *testing.T) {
	const k = 200
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		for dst := range p {
			if dst == me {
				continue
			}
			for i := range k {
				if err := c.Send(u64(uint64(me)<<32|uint64(i)), dst, i%3); err != nil {
					return err
				}
			}
		}
		// Receive tag 2 first from each source, then the rest with wildcards:
		// within one source and tag, and within one source, order is FIFO.
		next := make([]int, p)
		buf := make([]byte, 8)
		for src := range p {
			if src == me {
				continue
			}
			last := -1
			for i := 2; i < k; i += 3 {
				st, err := c.Recv(buf, src, 2)
				if err != nil {
					return err
				}
				v := binary.LittleEndian.Uint64(buf)
				if st.Source != src || st.Tag != 2 || int(v>>32) != src || int(uint32(v)) <= last || st.Count != 8 {
					return fmt.Errorf("tag-2 message %d from %d: status %+v value %x", i, src, st, v)
				}
				last = int(uint32(v))
			}
		}
		for range (p - 1) * (k - k/3) {
			st, err := c.Recv(buf, mpi.AnySource, mpi.AnyTag)
			if err != nil {
				return err
			}
			v := binary.LittleEndian.Uint64(buf)
			src, seq := int(v>>32), int(uint32(v))
			if st.Source != src || st.Tag == 2 || seq%3 != st.Tag {
				return fmt.Errorf("status %+v for value %x", st, v)
			}
			if seq%3 == 2 {
				return fmt.Errorf("tag-2 message %d from %d received twice", seq, src)
			}
			if seq < next[src] {
				return fmt.Errorf("from %d: message %d after %d", src, seq, next[src])
			}
			next[src] = seq + 1
		}
		return c.Barrier()
	})
}

func TestAnySource(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		if c.Rank() != 0 {
			return c.Send(u64(uint64(c.Rank())), 0, 7)
		}
		seen := make([]bool, c.Size())
		buf := make([]byte, 8)
		for range c.Size() - 1 {
			st, err := c.Recv(buf, mpi.AnySource, 7)
			if err != nil {
				return err
			}
			if int(binary.LittleEndian.Uint64(buf)) != st.Source || seen[st.Source] || st.Source == 0 {
				return fmt.Errorf("bad any-source receive %+v", st)
			}
			seen[st.Source] = true
		}
		return nil
	})
}

func TestProbe(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		if _, ok, err := c.Iprobe(mpi.AnySource, 99); err != nil || ok {
			return fmt.Errorf("Iprobe on an empty queue: %v %v", ok, err)
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		msg := bytes.Repeat([]byte{byte(me)}, 10+me)
		if err := c.Send(msg, (me+1)%p, 5); err != nil {
			return err
		}
		from := (me - 1 + p) % p
		st, err := c.Probe(mpi.AnySource, 5)
		if err != nil {
			return err
		}
		if st.Source != from || st.Tag != 5 || st.Count != 10+from {
			return fmt.Errorf("Probe status %+v", st)
		}
		st2, ok, err := c.Iprobe(from, mpi.AnyTag)
		if err != nil || !ok || st2 != st {
			return fmt.Errorf("Iprobe after Probe: %+v %v %v", st2, ok, err)
		}
		buf := make([]byte, st.Count)
		if _, err := c.Recv(buf, st.Source, st.Tag); err != nil {
			return err
		}
		if !bytes.Equal(buf, bytes.Repeat([]byte{byte(from)}, 10+from)) {
			return fmt.Errorf("payload %v", buf)
		}
		if _, ok, _ := c.Iprobe(mpi.AnySource, 5); ok {
			return fmt.Errorf("Iprobe found a received message")
		}
		return c.Barrier()
	})
}

// TestProbeWithin: a timed probe gives up after its time on an empty
// queue, and finds a message that arrives while it waits, or was there.
func TestProbeWithin(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		t0 := time.Now()
		if _, ok, err := c.ProbeWithin(mpi.AnySource, 77, 20*time.Millisecond); err != nil || ok {
			return fmt.Errorf("ProbeWithin on an empty queue: %v %v", ok, err)
		}
		if d := time.Since(t0); d < 20*time.Millisecond {
			return fmt.Errorf("ProbeWithin gave up after %v, before its 20 ms", d)
		}
		if err := c.Barrier(); err != nil {
			return err
		}
		// Rank me sends to me+1 after a pause; the receiver waits for it
		// with a deadline far away.
		from := (me - 1 + p) % p
		if me%2 == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		if err := c.Send([]byte{byte(me)}, (me+1)%p, 77); err != nil {
			return err
		}
		st, ok, err := c.ProbeWithin(from, 77, time.Minute)
		if err != nil || !ok || st.Source != from || st.Tag != 77 || st.Count != 1 {
			return fmt.Errorf("ProbeWithin: %+v %v %v", st, ok, err)
		}
		buf := make([]byte, 1)
		if _, err := c.Recv(buf, from, 77); err != nil {
			return err
		}
		return c.Barrier()
	})
}

func TestNonBlocking(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		to, from := (me+1)%p, (me-1+p)%p
		// Nothing was sent yet when p = 1; a receive posted first gets the first message, even though a later
		// blocking receive with the same wildcards is waiting too.
		a, b := make([]byte, 64<<10), make([]byte, 64<<10)
		ra, err := c.Irecv(a, from, mpi.AnyTag)
		if err != nil {
			return err
		}
		if _, done, err := ra.Test(); err != nil || (done && p == 1) {
			return fmt.Errorf("Test before any send: done=%v err=%v", done, err)
		}
		big := bytes.Repeat([]byte{1, 2, 3}, 20000)
		s1, err := c.Isend(big, to, 1)
		if err != nil {
			return err
		}
		s2, err := c.Isend([]byte("second"), to, 2)
		if err != nil {
			return err
		}
		st, err := c.Recv(b, from, mpi.AnyTag)
		if err != nil {
			return err
		}
		if st.Tag != 2 || string(b[:st.Count]) != "second" {
			return fmt.Errorf("blocking receive got %+v", st)
		}
		st, err = ra.Wait()
		if err != nil {
			return err
		}
		if st.Tag != 1 || st.Count != len(big) || !bytes.Equal(a[:st.Count], big) {
			return fmt.Errorf("posted receive got %+v", st)
		}
		for _, r := range []*mpi.Request{s1, s2} {
			if _, err := r.Wait(); err != nil {
				return err
			}
		}
		// Test polls to completion.
		r, err := c.Irecv(b, from, 3)
		if err != nil {
			return err
		}
		if err := c.Send([]byte("x"), to, 3); err != nil {
			return err
		}
		for {
			st, done, err := r.Test()
			if err != nil {
				return err
			}
			if done {
				if st.Count != 1 || st.Source != from {
					return fmt.Errorf("Test status %+v", st)
				}
				break
			}
		}
		return c.Barrier()
	})
}

func TestBcast(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		for root := range c.Size() {
			buf := make([]byte, 100)
			if c.Rank() == root {
				for i := range buf {
					buf[i] = byte(root + i)
				}
			}
			if err := c.Bcast(buf, root); err != nil {
				return err
			}
			for i := range buf {
				if buf[i] != byte(root+i) {
					return fmt.Errorf("root %d: byte %d is %d", root, i, buf[i])
				}
			}
		}
		return nil
	})
}

func TestReduce(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		ints := []int64{int64(me), int64(me * me), -int64(me)}
		floats := []float64{float64(me) / 3, math.Sqrt(float64(me)), -1.5 * float64(me)}
		// Local computation of the expected results.
		var wantI [3][3]int64 // [op][elem]
		var wantF [3][3]float64
		for r := range p {
			ri := []int64{int64(r), int64(r * r), -int64(r)}
			rf := []float64{float64(r) / 3, math.Sqrt(float64(r)), -1.5 * float64(r)}
			for e := range 3 {
				wantI[mpi.Sum][e] += ri[e]
				wantF[mpi.Sum][e] += rf[e]
				if r == 0 {
					wantI[mpi.Min][e], wantI[mpi.Max][e] = ri[e], ri[e]
					wantF[mpi.Min][e], wantF[mpi.Max][e] = rf[e], rf[e]
				}
				wantI[mpi.Min][e], wantI[mpi.Max][e] = min(wantI[mpi.Min][e], ri[e]), max(wantI[mpi.Max][e], ri[e])
				wantF[mpi.Min][e], wantF[mpi.Max][e] = min(wantF[mpi.Min][e], rf[e]), max(wantF[mpi.Max][e], rf[e])
			}
		}
		closeTo := func(a, b []float64) bool {
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-9*(1+math.Abs(b[i])) {
					return false
				}
			}
			return true
		}
		for _, op := range []mpi.Op{mpi.Sum, mpi.Min, mpi.Max} {
			gi, gf := make([]int64, 3), make([]float64, 3)
			if err := mpi.Allreduce(c, ints, gi, op); err != nil {
				return err
			}
			if err := mpi.Allreduce(c, floats, gf, op); err != nil {
				return err
			}
			if !slices.Equal(gi, wantI[op][:]) || !closeTo(gf, wantF[op][:]) {
				return fmt.Errorf("Allreduce op %d: %v %v, want %v %v", op, gi, gf, wantI[op], wantF[op])
			}
			for root := range p {
				gi, gf := make([]int64, 3), make([]float64, 3)
				if err := mpi.Reduce(c, ints, gi, op, root); err != nil {
					return err
				}
				if err := mpi.Reduce(c, floats, gf, op, root); err != nil {
					return err
				}
				if me == root && (!slices.Equal(gi, wantI[op][:]) || !closeTo(gf, wantF[op][:])) {
					return fmt.Errorf("Reduce op %d root %d: %v %v", op, root, gi, gf)
				}
			}
		}
		// A user-defined combine: element-wise maximum of bytes and a sum.
		send := []byte{byte(me), byte(p - me), 0, 0}
		binary.LittleEndian.PutUint16(send[2:], uint16(me+1))
		combine := func(inout, in []byte) {
			inout[0], inout[1] = max(inout[0], in[0]), max(inout[1], in[1])
			binary.LittleEndian.PutUint16(inout[2:], binary.LittleEndian.Uint16(inout[2:])+binary.LittleEndian.Uint16(in[2:]))
		}
		recv := make([]byte, 4)
		if err := c.AllreduceFunc(send, recv, combine); err != nil {
			return err
		}
		want := []byte{byte(p - 1), byte(p), 0, 0}
		binary.LittleEndian.PutUint16(want[2:], uint16(p*(p+1)/2))
		if !bytes.Equal(recv, want) {
			return fmt.Errorf("AllreduceFunc: %v, want %v", recv, want)
		}
		recv = make([]byte, 4)
		if err := c.ReduceFunc(send, recv, p-1, combine); err != nil {
			return err
		}
		if me == p-1 && !bytes.Equal(recv, want) {
			return fmt.Errorf("ReduceFunc: %v, want %v", recv, want)
		}
		return nil
	})
}

func TestGatherAlltoall(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		recv := make([]byte, 8*p)
		if err := c.Gather(u64(uint64(me*11)), recv, p/2); err != nil {
			return err
		}
		if me == p/2 {
			for r := range p {
				if v := binary.LittleEndian.Uint64(recv[8*r:]); v != uint64(r*11) {
					return fmt.Errorf("Gather block %d = %d", r, v)
				}
			}
		}
		// Alltoallv: rank me sends (me+r)%4 bytes of value me*16+r to rank r.
		scounts, sdispls := make([]int, p), make([]int, p)
		rcounts, rdispls := make([]int, p), make([]int, p)
		var send []byte
		rn := 0
		for r := range p {
			scounts[r], sdispls[r] = (me+r)%4, len(send)
			send = append(send, bytes.Repeat([]byte{byte(me*16 + r)}, scounts[r])...)
			rcounts[r], rdispls[r] = (r+me)%4, rn
			rn += rcounts[r]
		}
		rbuf := make([]byte, rn)
		if err := c.Alltoallv(send, scounts, sdispls, rbuf, rcounts, rdispls); err != nil {
			return err
		}
		for r := range p {
			if got, want := rbuf[rdispls[r]:rdispls[r]+rcounts[r]], bytes.Repeat([]byte{byte(r*16 + me)}, rcounts[r]); !bytes.Equal(got, want) {
				return fmt.Errorf("Alltoallv from %d: %v, want %v", r, got, want)
			}
		}
		all := make([]byte, 8*p)
		for r := range p {
			binary.LittleEndian.PutUint64(all[8*r:], uint64(me*1000+r))
		}
		got := make([]byte, 8*p)
		if err := c.Alltoall(all, got); err != nil {
			return err
		}
		for r := range p {
			if v := binary.LittleEndian.Uint64(got[8*r:]); v != uint64(r*1000+me) {
				return fmt.Errorf("Alltoall from %d: %d", r, v)
			}
		}
		return c.Barrier()
	})
}

func TestErrors(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		p, me := c.Size(), c.Rank()
		expect := func(what string, err, class error) error {
			var e *mpi.Error
			if !errors.Is(err, class) || !errors.As(err, &e) || e.Func == "" || e.Msg == "" {
				return fmt.Errorf("%s: got %v, want class %v", what, err, class)
			}
			return nil
		}
		if err := expect("send to rank Size", c.Send(nil, p, 0), mpi.ErrRank); err != nil {
			return err
		}
		if err := expect("send to rank -3", c.Send(nil, -3, 0), mpi.ErrRank); err != nil {
			return err
		}
		if err := expect("send with tag -5", c.Send(nil, 0, -5), mpi.ErrTag); err != nil {
			return err
		}
		_, err := c.Recv(nil, mpi.AnySource, -7)
		if err := expect("receive with tag -7", err, mpi.ErrTag); err != nil {
			return err
		}
		if err := expect("bcast from root Size", c.Bcast(nil, p), mpi.ErrRoot); err != nil {
			return err
		}
		// Truncation: 16 bytes into an 8-byte buffer.
		s, err := c.Isend(make([]byte, 16), me, 4)
		if err != nil {
			return err
		}
		_, err = c.Recv(make([]byte, 8), me, 4)
		if err := expect("truncated receive", err, mpi.ErrTruncate); err != nil {
			return err
		}
		if _, err := s.Wait(); err != nil {
			return err
		}
		// Counts every rank gets wrong alike, so that none waits for the
		// others: a displacement whose sum with its count wraps around
		// (it passed the check and read before the buffer under MPI), and
		// a reduction into a shorter buffer (the embedded world truncated
		// it in silence).
		counts, displs := make([]int, p), make([]int, p)
		counts[0], displs[0] = 1, math.MaxInt
		if err := expect("alltoallv displacement MaxInt", c.Alltoallv(make([]byte, 8), counts, displs, make([]byte, 8*p), counts, displs), mpi.ErrCount); err != nil {
			return err
		}
		sum := func(inout, in []byte) { inout[0] += in[0] }
		if err := expect("allreduce into a short buffer", c.AllreduceFunc(make([]byte, 8), make([]byte, 4), sum), mpi.ErrCount); err != nil {
			return err
		}
		// Aliased buffers: MPICH refuses them, Open MPI let them pass;
		// every build refuses them alike.
		v := []int64{int64(me), 0}
		if err := expect("allreduce in place", mpi.Allreduce(c, v, v, mpi.Max), mpi.ErrBuffer); err != nil {
			return err
		}
		if err := mpi.Allreduce(c, v[:1], v[1:], mpi.Max); err != nil || v[1] != int64(p-1) {
			return fmt.Errorf("allreduce between the halves of one slice: %v, %d", err, v[1])
		}
		// Off the root a Reduce's recv is not used (MPI_Reduce:
		// "significant only at root"): the same slice twice is no error
		// there.
		buf, total := []byte{1, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 8)
		recv := buf
		if me == 0 {
			recv = total
		}
		if err := c.ReduceFunc(buf, recv, 0, sum); err != nil || me == 0 && total[0] != byte(p) {
			return fmt.Errorf("a reduce whose non-root ranks pass send as recv too: %v, %d", err, total[0])
		}
		return c.Barrier()
	})
}

func TestWtime(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		a := c.Wtime()
		if err := c.Barrier(); err != nil {
			return err
		}
		if b := c.Wtime(); b < a {
			return fmt.Errorf("Wtime went back: %v then %v", a, b)
		}
		return nil
	})
}
