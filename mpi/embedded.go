//go:build !mpi

package mpi

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// WorldName names the world this binary was built for: "embedded" or "mpi".
const WorldName = "embedded"

// Implementation names the MPI library this binary runs with
// (LibraryName of LibraryVersion): "embedded" in the embedded world.
func Implementation() string { return "embedded" }

// LibraryVersion returns the MPI library's version string; the embedded
// world has no MPI library and returns "embedded".
func LibraryVersion() string { return "embedded" }

// Contexts separate point-to-point traffic from collective traffic, as MPI
// communicators do.
const (
	ctxP2P = iota
	ctxColl
	nctx
)

// world is the shared state of one Run: a mailbox per rank and context.
type world struct {
	size    int
	boxes   []mailbox // index ctx*size + rank
	wakes   []chan struct{}
	done    chan struct{}
	aborted atomic.Bool
	once    sync.Once
	err     error
	start   time.Time
	local   sync.Map // Comm.Local's values
}

type message struct {
	src, tag int
	data     []byte
}

// mailbox is the matching engine of one rank in one context: the queue of
// unexpected messages in arrival order and the posted receives in post order.
type mailbox struct {
	mu      sync.Mutex
	q       []message
	head    int
	posted  []*Request
	pending atomic.Int32 // unexpected messages queued, for Iprobe's fast path
}

// Comm is one rank's handle on the embedded world. It is not safe for
// concurrent use; each rank's goroutine owns its Comm.
type Comm struct {
	w     *world
	rank  int
	wake  chan struct{}
	timer *time.Timer // ProbeWithin's, made once and reset
}

// Request is a non-blocking operation in flight. Test or Wait it to
// completion; the buffer it was given must not be touched until then.
type Request struct {
	c        *Comm
	mb       *mailbox // where a receive not yet matched is posted
	buf      []byte
	src, tag int
	done     atomic.Bool
	status   Status
	err      error
}

// Init prepares the world; in the embedded world there is nothing to do.
func Init() error { return nil }

// Finalize ends the world; in the embedded world there is nothing to do.
func Finalize() error { return nil }

// Run starts n ranks as goroutines, each calling f with its own *Comm, and
// waits for all of them. The first error or panic of any rank aborts the
// world: every rank blocked in (or later entering) a call gets an error
// matching ErrAborted, and Run returns the first error. n must be at least 1:
// 0, the launcher's size in the MPI build, is an error here, where no
// launcher gives a size (docs/writing-an-app.md: rank counts).
//
// A process started by mpirun or srun as one of several tasks would run the
// job once per task, each on ranks of its own: Run then returns a
// *LaunchError (exit code 2) without running f, as it does for a bad value
// of IdleEnv.
func Run(n int, f func(c *Comm) error) error {
	if n < 1 {
		return fmt.Errorf("mpi: Run: need at least 1 rank, got %d", n)
	}
	if f == nil {
		return errors.New("mpi: Run: f is nil: give the function every rank runs")
	}
	if err := checkLaunch(DetectLauncher(os.Getenv), Implementation(), 1, 0); err != nil {
		return err
	}
	if _, err := envIdle(os.Getenv); err != nil {
		return err
	}
	w := &world{size: n, boxes: make([]mailbox, nctx*n), wakes: make([]chan struct{}, n),
		done: make(chan struct{}), start: time.Now()}
	for r := range n {
		w.wakes[r] = make(chan struct{}, 1)
	}
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &Comm{w: w, rank: r, wake: w.wakes[r]}
			if err := runRank(c, f); err != nil {
				w.fail(nameRank(r, n, err))
			}
		}()
	}
	wg.Wait()
	return w.err
}

// RunWith is Run with options; the embedded world's goroutine ranks all
// start, so it ignores Options.StartupTimeout.
func RunWith(n int, _ Options, f func(c *Comm) error) error { return Run(n, f) }

func runRank(c *Comm, f func(*Comm) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &PanicError{Rank: c.rank, Value: p, Stack: debug.Stack()}
		}
	}()
	return f(c)
}

func (w *world) fail(err error) {
	w.once.Do(func() {
		w.err = err
		w.aborted.Store(true)
		close(w.done)
	})
}

// Rank returns this rank's number, 0 ≤ Rank < Size.
func (c *Comm) Rank() int { return c.rank }

// Local returns the value that the ranks of this embedded world share
// under key, made by newValue at the first call of any rank (newValue may
// run more than once when ranks race; one value is kept). It is not an MPI
// call: goroutine ranks share one process, and a world that runs their
// work on shared goroutines (lb/driver's pool of an oversubscribed world)
// meets there.
func (c *Comm) Local(key any, newValue func() any) any {
	if v, ok := c.w.local.Load(key); ok {
		return v
	}
	v, _ := c.w.local.LoadOrStore(key, newValue())
	return v
}

// Aborted returns a channel that is closed when the world is aborted: a
// rank failed, panicked or called Abort. It is not an MPI call; it lets
// work done for a rank outside its goroutine (Local) stop with the world.
func (c *Comm) Aborted() <-chan struct{} { return c.w.done }

// Size returns the number of ranks.
func (c *Comm) Size() int { return c.w.size }

// SetIdle sets how this rank waits in blocking calls under MPI; goroutine
// ranks block without spinning whatever the policy, and SetIdle does
// nothing in the embedded world.
func (c *Comm) SetIdle(Idle) {}

// Idle returns IdleYield: goroutine ranks block without spinning.
func (c *Comm) Idle() Idle { return IdleYield }

// Wtime returns seconds elapsed since an arbitrary origin fixed per world.
func (c *Comm) Wtime() float64 { return time.Since(c.w.start).Seconds() }

// Abort ends every rank of the world: Run returns an *AbortError with code.
// It returns that error, which the caller should return.
func (c *Comm) Abort(code int) error {
	err := &AbortError{Rank: c.rank, Code: code}
	c.w.fail(err)
	return err
}

func (c *Comm) check(fn string, rank, tag int, wild bool) error {
	if c.w.aborted.Load() {
		return &Error{Func: fn, Class: ClassAborted, Msg: "world aborted"}
	}
	if !(rank >= 0 && rank < c.w.size) && !(wild && rank == AnySource) {
		return &Error{Func: fn, Class: ClassRank, Msg: fmt.Sprintf("invalid rank %d (size %d)", rank, c.w.size)}
	}
	if !(tag >= 0 && tag <= MaxTag) && !(wild && tag == AnyTag) {
		return &Error{Func: fn, Class: ClassTag, Msg: fmt.Sprintf("invalid tag %d", tag)}
	}
	return nil
}

// deliver puts a copy of data into dest's mailbox of context ctx, completing
// the first matching posted receive if there is one.
func (w *world) deliver(ctx, src, dest, tag int, data []byte) {
	mb := &w.boxes[ctx*w.size+dest]
	mb.mu.Lock()
	for i, r := range mb.posted {
		if matches(r.src, r.tag, src, tag) {
			mb.posted = append(mb.posted[:i], mb.posted[i+1:]...)
			r.fill(src, tag, data)
			mb.mu.Unlock()
			signal(w.wakes[dest])
			return
		}
	}
	mb.q = append(mb.q, message{src: src, tag: tag, data: append([]byte(nil), data...)})
	mb.pending.Add(1)
	mb.mu.Unlock()
	signal(w.wakes[dest])
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

func matches(wantSrc, wantTag, src, tag int) bool {
	return (wantSrc == AnySource || wantSrc == src) && (wantTag == AnyTag || wantTag == tag)
}

// fill completes a receive with a message; called with the mailbox locked.
func (r *Request) fill(src, tag int, data []byte) {
	n := copy(r.buf, data)
	r.status = Status{Source: src, Tag: tag, Count: n}
	if len(data) > len(r.buf) {
		r.err = &Error{Func: "MPI_Recv", Class: ClassTruncate,
			Msg: fmt.Sprintf("message of %d bytes from rank %d tag %d into a buffer of %d", len(data), src, tag, len(r.buf))}
	}
	r.done.Store(true)
}

// find returns the index of the first queued message matching src and tag,
// or -1; called with the mailbox locked.
func (mb *mailbox) find(src, tag int) int {
	for i := mb.head; i < len(mb.q); i++ {
		if matches(src, tag, mb.q[i].src, mb.q[i].tag) {
			return i
		}
	}
	return -1
}

// take removes queued message i; called with the mailbox locked.
func (mb *mailbox) take(i int) message {
	m := mb.q[i]
	if i == mb.head {
		mb.q[i] = message{}
		mb.head++
	} else {
		copy(mb.q[i:], mb.q[i+1:])
		mb.q[len(mb.q)-1] = message{}
		mb.q = mb.q[:len(mb.q)-1]
	}
	if mb.head == len(mb.q) {
		mb.q, mb.head = mb.q[:0], 0
	} else if mb.head > 64 && mb.head > len(mb.q)/2 {
		n := copy(mb.q, mb.q[mb.head:])
		clear(mb.q[n:])
		mb.q, mb.head = mb.q[:n], 0
	}
	mb.pending.Add(-1)
	return m
}

// Send sends buf to rank dest with tag. It copies buf and returns at once
// (buffered standard mode).
func (c *Comm) Send(buf []byte, dest, tag int) error {
	if err := c.check("MPI_Send", dest, tag, false); err != nil {
		return err
	}
	c.w.deliver(ctxP2P, c.rank, dest, tag, buf)
	return nil
}

// Isend starts a send of buf to dest with tag. In the embedded world the
// data is copied at once and the request is already complete.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	if err := c.check("MPI_Isend", dest, tag, false); err != nil {
		return nil, err
	}
	if err := c.Send(buf, dest, tag); err != nil {
		return nil, err
	}
	r := &Request{c: c}
	r.status = Status{Source: c.rank, Tag: tag, Count: len(buf)}
	r.done.Store(true)
	return r, nil
}

// Irecv starts a receive into buf of a message from source with tag (either
// may be a wildcard). Receives match messages in the order they were posted.
func (c *Comm) Irecv(buf []byte, source, tag int) (*Request, error) {
	if err := c.check("MPI_Irecv", source, tag, true); err != nil {
		return nil, err
	}
	return c.irecv(ctxP2P, buf, source, tag), nil
}

func (c *Comm) irecv(ctx int, buf []byte, source, tag int) *Request {
	r := &Request{c: c, buf: buf, src: source, tag: tag}
	mb := &c.w.boxes[ctx*c.w.size+c.rank]
	mb.mu.Lock()
	if i := mb.find(source, tag); i >= 0 {
		m := mb.take(i)
		r.fill(m.src, m.tag, m.data)
	} else {
		r.mb = mb
		mb.posted = append(mb.posted, r)
	}
	mb.mu.Unlock()
	return r
}

// withdraw takes a receive that has not completed out of its mailbox, so
// that no message fills its buffer after the caller was told the world
// aborted; it reports false when the receive completed first.
func (r *Request) withdraw() bool {
	if r.mb == nil {
		return !r.done.Load()
	}
	r.mb.mu.Lock()
	defer r.mb.mu.Unlock()
	if r.done.Load() {
		return false
	}
	if i := slices.Index(r.mb.posted, r); i >= 0 {
		r.mb.posted = slices.Delete(r.mb.posted, i, i+1)
	}
	return true
}

// Recv receives into buf a message from source with tag (either may be a
// wildcard) and blocks until it arrives. A message longer than buf is an
// error of class ClassTruncate.
func (c *Comm) Recv(buf []byte, source, tag int) (Status, error) {
	if err := c.check("MPI_Recv", source, tag, true); err != nil {
		return Status{}, err
	}
	return c.irecv(ctxP2P, buf, source, tag).Wait()
}

// Test reports whether the request is complete, with its status and error.
func (r *Request) Test() (Status, bool, error) {
	if !r.done.Load() {
		if r.c.w.aborted.Load() && r.withdraw() {
			return Status{}, false, &Error{Func: "MPI_Test", Class: ClassAborted, Msg: "world aborted"}
		}
		if !r.done.Load() {
			return Status{}, false, nil
		}
	}
	return r.status, true, r.err
}

// Wait blocks until the request is complete and returns its status.
func (r *Request) Wait() (Status, error) {
	c := r.c
	for !r.done.Load() {
		select {
		case <-c.wake:
		case <-c.w.done:
			if r.withdraw() {
				return Status{}, &Error{Func: "MPI_Wait", Class: ClassAborted, Msg: "world aborted"}
			}
		}
	}
	return r.status, r.err
}

// Iprobe reports whether a message from source with tag is waiting, without
// receiving it. It never blocks; with no message queued it costs one atomic
// load.
func (c *Comm) Iprobe(source, tag int) (Status, bool, error) {
	if err := c.check("MPI_Iprobe", source, tag, true); err != nil {
		return Status{}, false, err
	}
	mb := &c.w.boxes[c.rank]
	if mb.pending.Load() == 0 {
		return Status{}, false, nil
	}
	return mb.probe(source, tag)
}

func (mb *mailbox) probe(source, tag int) (Status, bool, error) {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	if i := mb.find(source, tag); i >= 0 {
		m := &mb.q[i]
		return Status{Source: m.src, Tag: m.tag, Count: len(m.data)}, true, nil
	}
	return Status{}, false, nil
}

// Probe blocks until a message from source with tag is waiting and returns
// its status without receiving it.
func (c *Comm) Probe(source, tag int) (Status, error) {
	if err := c.check("MPI_Probe", source, tag, true); err != nil {
		return Status{}, err
	}
	mb := &c.w.boxes[c.rank]
	for {
		if st, ok, _ := mb.probe(source, tag); ok {
			return st, nil
		}
		select {
		case <-c.wake:
		case <-c.w.done:
			return Status{}, &Error{Func: "MPI_Probe", Class: ClassAborted, Msg: "world aborted"}
		}
	}
}

// ProbeWithin is Probe that gives up after d: it reports false when no
// message from source with tag arrived in time. It is not an MPI call but
// what an idle rank needs that waits for messages and for a moment of its
// own (lb's driver holding back a request).
func (c *Comm) ProbeWithin(source, tag int, d time.Duration) (Status, bool, error) {
	if err := c.check("MPI_Iprobe", source, tag, true); err != nil { // the MPI world's name: it polls MPI_Iprobe
		return Status{}, false, err
	}
	mb := &c.w.boxes[c.rank]
	if st, ok, _ := mb.probe(source, tag); ok {
		return st, true, nil
	}
	// One timer per rank, reset for every wait: an idle rank of a large
	// world waits here thousands of times, and a timer each time was
	// garbage. (Since Go 1.23 a stopped or reset timer delivers no stale
	// value.)
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	timer := c.timer
	defer timer.Stop()
	for {
		if st, ok, _ := mb.probe(source, tag); ok {
			return st, true, nil
		}
		select {
		case <-c.wake:
		case <-timer.C:
			st, ok, _ := mb.probe(source, tag)
			return st, ok, nil
		case <-c.w.done:
			return Status{}, false, &Error{Func: "MPI_Iprobe", Class: ClassAborted, Msg: "world aborted"}
		}
	}
}

// Collectives run in their own context with point-to-point messages between
// ranks: binomial trees for Bcast and Reduce, direct exchange for Gather and
// Alltoallv. Every rank must call them in the same order.

func (c *Comm) csend(buf []byte, dest int) { c.w.deliver(ctxColl, c.rank, dest, 0, buf) }

func (c *Comm) crecv(fn string, buf []byte, src int) error {
	st, err := c.irecv(ctxColl, buf, src, 0).Wait()
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Func = fn
		}
		return err
	}
	if st.Count != len(buf) {
		return &Error{Func: fn, Class: ClassTruncate, Msg: fmt.Sprintf("rank %d sent %d bytes, expected %d", src, st.Count, len(buf))}
	}
	return nil
}

func (c *Comm) checkRoot(fn string, root int) error {
	if c.w.aborted.Load() {
		return &Error{Func: fn, Class: ClassAborted, Msg: "world aborted"}
	}
	if root < 0 || root >= c.w.size {
		return &Error{Func: fn, Class: ClassRoot, Msg: fmt.Sprintf("invalid root %d (size %d)", root, c.w.size)}
	}
	return nil
}

// Barrier blocks until every rank has entered it.
func (c *Comm) Barrier() error {
	if err := c.reduce("MPI_Barrier", nil, nil, 0, nil); err != nil {
		return err
	}
	return c.bcast("MPI_Barrier", nil, 0)
}

// Bcast copies buf of root into buf of every rank; all ranks pass buffers
// of the same length.
func (c *Comm) Bcast(buf []byte, root int) error {
	if err := c.checkRoot("MPI_Bcast", root); err != nil {
		return err
	}
	return c.bcast("MPI_Bcast", buf, root)
}

func (c *Comm) bcast(fn string, buf []byte, root int) error {
	p := c.w.size
	vr := (c.rank - root + p) % p
	mask := 1
	for mask < p {
		if vr&mask != 0 {
			if err := c.crecv(fn, buf, (vr-mask+root)%p); err != nil {
				return err
			}
			break
		}
		mask <<= 1
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if vr+mask < p {
			c.csend(buf, (vr+mask+root)%p)
		}
	}
	return nil
}

// reduce combines send of all ranks into recv on root with combine.
func (c *Comm) reduce(fn string, send, recv []byte, root int, combine CombineFunc) error {
	p := c.w.size
	vr := (c.rank - root + p) % p
	acc := append([]byte(nil), send...)
	var in []byte
	for mask := 1; mask < p; mask <<= 1 {
		if vr&mask != 0 {
			c.csend(acc, ((vr&^mask)+root)%p)
			return nil
		}
		if vr|mask < p {
			if in == nil {
				in = make([]byte, len(send))
			}
			if err := c.crecv(fn, in, ((vr|mask)+root)%p); err != nil {
				return err
			}
			if combine != nil {
				combine(acc, in)
			}
		}
	}
	copy(recv, acc)
	return nil
}

func (c *Comm) reduceNum(send, recv []byte, k kind, op Op, root int) error {
	fn := "MPI_Reduce"
	if root < 0 {
		fn = "MPI_Allreduce"
	}
	if err := checkOp(fn, op); err != nil {
		return err
	}
	return c.reduceFunc(fn, send, recv, root, func(inout, in []byte) { combineNum(inout, in, k, op) })
}

// reduceFunc is the shared body of the user-defined reductions.
func (c *Comm) reduceFunc(fn string, send, recv []byte, root int, combine CombineFunc) error {
	all := root < 0
	if all {
		root = 0
	} else if err := c.checkRoot(fn, root); err != nil {
		return err
	}
	if (all || c.rank == root) && len(recv) < len(send) { // as MPI's: not truncated in silence
		return &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("recv has %d bytes, send %d", len(recv), len(send))}
	}
	if all || c.rank == root { // recv is the root's alone
		if err := checkAlias(fn, send, recv); err != nil {
			return err
		}
	}
	if c.w.aborted.Load() {
		return &Error{Func: fn, Class: ClassAborted, Msg: "world aborted"}
	}
	if err := c.reduce(fn, send, recv, root, combine); err != nil {
		return err
	}
	if all {
		return c.bcast(fn, recv, root)
	}
	return nil
}

// ReduceFunc combines the equal-length buffers send of all ranks with
// combine into recv on root (len(recv) = len(send) there).
func (c *Comm) ReduceFunc(send, recv []byte, root int, combine CombineFunc) error {
	return c.reduceFunc("MPI_Reduce", send, recv, root, combine)
}

// AllreduceFunc combines the equal-length buffers send of all ranks with
// combine into recv on every rank.
func (c *Comm) AllreduceFunc(send, recv []byte, combine CombineFunc) error {
	return c.reduceFunc("MPI_Allreduce", send, recv, -1, combine)
}

// Gather collects send of every rank into recv of root, rank r's block at
// recv[r*len(send):]; every rank sends the same length.
func (c *Comm) Gather(send, recv []byte, root int) error {
	if err := c.checkRoot("MPI_Gather", root); err != nil {
		return err
	}
	n := len(send)
	if c.rank != root {
		c.csend(send, root)
		return nil
	}
	if len(recv) < n*c.w.size {
		return &Error{Func: "MPI_Gather", Class: ClassCount, Msg: fmt.Sprintf("recv has %d bytes, need %d", len(recv), n*c.w.size)}
	}
	for r := range c.w.size {
		if r == root {
			copy(recv[r*n:], send)
		} else if err := c.crecv("MPI_Gather", recv[r*n:(r+1)*n], r); err != nil {
			return err
		}
	}
	return nil
}

// Alltoallv sends send[sdispls[r]:][:scounts[r]] to every rank r and
// receives rank r's block into recv[rdispls[r]:][:rcounts[r]]. The counts
// must agree pairwise, as in MPI.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	const fn = "MPI_Alltoallv"
	if err := checkV(fn, c.w.size, len(send), scounts, sdispls); err != nil {
		return err
	}
	if err := checkV(fn, c.w.size, len(recv), rcounts, rdispls); err != nil {
		return err
	}
	if c.w.aborted.Load() {
		return &Error{Func: fn, Class: ClassAborted, Msg: "world aborted"}
	}
	for r := range c.w.size {
		if r != c.rank {
			c.csend(send[sdispls[r]:sdispls[r]+scounts[r]], r)
		}
	}
	for r := range c.w.size {
		dst := recv[rdispls[r] : rdispls[r]+rcounts[r]]
		if r == c.rank {
			if scounts[r] != rcounts[r] {
				return &Error{Func: fn, Class: ClassTruncate, Msg: fmt.Sprintf("rank %d sends itself %d bytes but expects %d", r, scounts[r], rcounts[r])}
			}
			copy(dst, send[sdispls[r]:sdispls[r]+scounts[r]])
		} else if err := c.crecv(fn, dst, r); err != nil {
			return err
		}
	}
	return nil
}

// Alltoall sends block r of send to rank r and receives rank r's block into
// block r of recv; blocks are len(send)/Size bytes.
func (c *Comm) Alltoall(send, recv []byte) error {
	p := c.w.size
	if len(send)%p != 0 || len(recv) != len(send) {
		return &Error{Func: "MPI_Alltoall", Class: ClassCount, Msg: fmt.Sprintf("send %d and recv %d bytes do not split into %d equal blocks", len(send), len(recv), p)}
	}
	counts, displs := equalBlocks(p, len(send)/p)
	return c.Alltoallv(send, counts, displs, recv, counts, displs)
}

// combineNum combines two buffers of k-kind numbers element-wise with op
// (inout = inout op in).
func combineNum(inout, in []byte, k kind, op Op) {
	n := len(inout) / 8
	if n == 0 {
		return
	}
	if k == kindInt64 {
		combineSlice(unsafe.Slice((*int64)(unsafe.Pointer(&inout[0])), n), unsafe.Slice((*int64)(unsafe.Pointer(&in[0])), n), op)
	} else {
		combineSlice(unsafe.Slice((*float64)(unsafe.Pointer(&inout[0])), n), unsafe.Slice((*float64)(unsafe.Pointer(&in[0])), n), op)
	}
}

// combineSlice sets a[i] to a[i] op b[i].
func combineSlice[T Number](a, b []T, op Op) {
	for i := range a {
		switch op {
		case Sum:
			a[i] += b[i]
		case Min:
			a[i] = min(a[i], b[i])
		case Max:
			a[i] = max(a[i], b[i])
		}
	}
}

// equalBlocks returns counts and displacements of p blocks of n bytes.
func equalBlocks(p, n int) (counts, displs []int) {
	counts, displs = make([]int, p), make([]int, p)
	for r := range p {
		counts[r], displs[r] = n, r*n
	}
	return counts, displs
}
