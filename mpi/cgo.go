//go:build mpi

package mpi

/*
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>

// Each helper wraps one MPI call on MPI_COMM_WORLD (plus MPI_Get_count where
// a status is read) and hands every return code back to Go. Results come back
// by value in a tlb_result, so the hot calls pass no Go pointers and allocate
// nothing.

// Which call of a helper failed; see resultError in Go.
enum { TLB_MAIN, TLB_GET_COUNT, TLB_TYPE_CONTIGUOUS, TLB_TYPE_COMMIT, TLB_TYPE_FREE, TLB_OP_CREATE };

typedef struct {
	int err;  // MPI_SUCCESS, or the code of the call that failed
	int call; // TLB_MAIN or the helper call that failed
	int flag; // Iprobe and Test: a message was found, the request completed
	int source, tag, count;
} tlb_result;

// Go passes -1 for its wildcards; MPICH's MPI_ANY_SOURCE is -2.
#define TLB_SRC(s) ((s) == -1 ? MPI_ANY_SOURCE : (s))
#define TLB_TAG(t) ((t) == -1 ? MPI_ANY_TAG : (t))

static tlb_result tlb_status(int err, int flag, MPI_Status *st, int want_count) {
	tlb_result r = {err, TLB_MAIN, flag, 0, 0, 0};
	if (err != MPI_SUCCESS || !flag) {
		return r;
	}
	r.source = st->MPI_SOURCE;
	r.tag = st->MPI_TAG;
	if (want_count) {
		int n = 0;
		int e = MPI_Get_count(st, MPI_BYTE, &n);
		if (e != MPI_SUCCESS) {
			r.err = e;
			r.call = TLB_GET_COUNT;
		}
		r.count = n;
	}
	return r;
}

// tlb_init_thread is MPI_Init_thread, keeping the process's handlers of
// SIGUSR1 and SIGTERM (Go's, which --checkpoint relies on): MPICH installs
// its own SIGUSR1 handler (Hydra's failure notice) without SA_ONSTACK, and
// a SIGUSR1 then kills a Go program with "non-Go code set up signal handler
// without SA_ONSTACK flag". Hydra still ends the job when a rank fails.
static int tlb_init_thread(int *provided) {
	struct sigaction usr1, term;
	sigaction(SIGUSR1, NULL, &usr1);
	sigaction(SIGTERM, NULL, &term);
	int err = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, provided);
	sigaction(SIGUSR1, &usr1, NULL);
	sigaction(SIGTERM, &term, NULL);
	return err;
}
static int tlb_thread_funneled(void) { return MPI_THREAD_FUNNELED; }
static int tlb_errors_return(void) { return MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); }
static int tlb_comm_rank(int *rank) { return MPI_Comm_rank(MPI_COMM_WORLD, rank); }
static int tlb_comm_size(int *size) { return MPI_Comm_size(MPI_COMM_WORLD, size); }
static int tlb_abort(int code) { return MPI_Abort(MPI_COMM_WORLD, code); }
static long tlb_online_cpus(void) { return sysconf(_SC_NPROCESSORS_ONLN); }
static void tlb_sleep(long ns) {
	struct timespec ts = {ns / 1000000000, ns % 1000000000};
	nanosleep(&ts, NULL);
}

// tlb_library_version copies MPI_Get_library_version, which MPI allows
// before MPI_Init and after MPI_Finalize, into s of cap bytes.
static int tlb_library_version(char *s, int cap) {
	char v[MPI_MAX_LIBRARY_VERSION_STRING + 1];
	int n = 0;
	int err = MPI_Get_library_version(v, &n);
	if (err != MPI_SUCCESS) {
		return err;
	}
	if (n < 0) {
		n = 0;
	}
	if (n >= cap) {
		n = cap - 1;
	}
	memcpy(s, v, n);
	s[n] = 0;
	return MPI_SUCCESS;
}

static void tlb_error_info(int code, int *class, char *msg, int cap) {
	char s[MPI_MAX_ERROR_STRING + 1];
	int n = 0;
	if (MPI_Error_class(code, class) != MPI_SUCCESS) {
		*class = MPI_ERR_OTHER;
	}
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS || n <= 0) {
		n = snprintf(s, sizeof s, "MPI error code %d", code);
	}
	if (n >= cap) {
		n = cap - 1;
	}
	memcpy(msg, s, n);
	msg[n] = 0;
}

static int tlb_send(void *buf, int n, int dest, int tag) {
	return MPI_Send(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}
static int tlb_isend(void *buf, int n, int dest, int tag, MPI_Request *req) {
	return MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, req);
}
static int tlb_irecv(void *buf, int n, int src, int tag, MPI_Request *req) {
	return MPI_Irecv(buf, n, MPI_BYTE, TLB_SRC(src), TLB_TAG(tag), MPI_COMM_WORLD, req);
}
static tlb_result tlb_recv(void *buf, int n, int src, int tag) {
	MPI_Status st;
	int err = MPI_Recv(buf, n, MPI_BYTE, TLB_SRC(src), TLB_TAG(tag), MPI_COMM_WORLD, &st);
	return tlb_status(err, 1, &st, 1);
}
static tlb_result tlb_iprobe(int src, int tag) {
	MPI_Status st;
	int flag = 0;
	int err = MPI_Iprobe(TLB_SRC(src), TLB_TAG(tag), MPI_COMM_WORLD, &flag, &st);
	return tlb_status(err, flag, &st, 1);
}
static tlb_result tlb_probe(int src, int tag) {
	MPI_Status st;
	int err = MPI_Probe(TLB_SRC(src), TLB_TAG(tag), MPI_COMM_WORLD, &st);
	return tlb_status(err, 1, &st, 1);
}
static tlb_result tlb_test(MPI_Request *req, int recv) {
	MPI_Status st;
	int flag = 0;
	int err = MPI_Test(req, &flag, &st);
	return tlb_status(err, flag, &st, recv);
}
static tlb_result tlb_wait(MPI_Request *req, int recv) {
	MPI_Status st;
	int err = MPI_Wait(req, &st);
	return tlb_status(err, 1, &st, recv);
}
static int tlb_cancel(MPI_Request *req) { return MPI_Cancel(req); }
static int tlb_request_free(MPI_Request *req) { return MPI_Request_free(req); }

// The collectives block when req is NULL; otherwise they start the
// non-blocking collective (MPI-3) with request *req.
static int tlb_barrier(MPI_Request *req) {
	return req ? MPI_Ibarrier(MPI_COMM_WORLD, req) : MPI_Barrier(MPI_COMM_WORLD);
}
static int tlb_bcast(void *buf, int n, int root, MPI_Request *req) {
	return req ? MPI_Ibcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD, req)
	           : MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
}
static int tlb_gather(void *send, int n, void *recv, int root, MPI_Request *req) {
	return req ? MPI_Igather(send, n, MPI_BYTE, recv, n, MPI_BYTE, root, MPI_COMM_WORLD, req)
	           : MPI_Gather(send, n, MPI_BYTE, recv, n, MPI_BYTE, root, MPI_COMM_WORLD);
}
static int tlb_alltoall(void *send, void *recv, int n, MPI_Request *req) {
	return req ? MPI_Ialltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD, req)
	           : MPI_Alltoall(send, n, MPI_BYTE, recv, n, MPI_BYTE, MPI_COMM_WORLD);
}
static int tlb_alltoallv(void *send, int *scounts, int *sdispls, void *recv, int *rcounts, int *rdispls, MPI_Request *req) {
	return req ? MPI_Ialltoallv(send, scounts, sdispls, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD, req)
	           : MPI_Alltoallv(send, scounts, sdispls, MPI_BYTE, recv, rcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD);
}

// tlb_reduce_num reduces n int64 (kind 0) or double (kind 1) elements with
// MPI_SUM (op 0), MPI_MIN (1) or MPI_MAX (2); root < 0 means all ranks.
static int tlb_reduce_num(void *send, void *recv, int n, int kind, int op, int root, MPI_Request *req) {
	MPI_Datatype t = kind == 0 ? MPI_INT64_T : MPI_DOUBLE;
	MPI_Op o = op == 0 ? MPI_SUM : op == 1 ? MPI_MIN : MPI_MAX;
	if (root < 0) {
		return req ? MPI_Iallreduce(send, recv, n, t, o, MPI_COMM_WORLD, req)
		           : MPI_Allreduce(send, recv, n, t, o, MPI_COMM_WORLD);
	}
	return req ? MPI_Ireduce(send, recv, n, t, o, root, MPI_COMM_WORLD, req)
	           : MPI_Reduce(send, recv, n, t, o, root, MPI_COMM_WORLD);
}

// The user-defined reduction: one MPI_Op over Go's treelbCombine, created on
// first use. Buffers of n bytes travel as one element of a contiguous type,
// so MPI never splits a buffer the combine function must see whole.
extern void treelbCombine(void *, void *, int *, void *);
static MPI_Op tlb_user_op;
static int tlb_have_user_op;

// A non-blocking reduction (req not NULL) frees its datatype at once, as
// MPI allows: the reduction in progress keeps it alive.
static tlb_result tlb_reduce_bytes(void *send, void *recv, int n, int root, MPI_Request *req) {
	tlb_result r = {MPI_SUCCESS, TLB_MAIN, 0, 0, 0, 0};
	MPI_Datatype t = MPI_BYTE;
	int count = 0, e;
	if (!tlb_have_user_op) {
		r.err = MPI_Op_create((MPI_User_function *)treelbCombine, 1, &tlb_user_op);
		if (r.err != MPI_SUCCESS) {
			r.call = TLB_OP_CREATE;
			return r;
		}
		tlb_have_user_op = 1;
	}
	if (n > 0) {
		if ((r.err = MPI_Type_contiguous(n, MPI_BYTE, &t)) != MPI_SUCCESS) {
			r.call = TLB_TYPE_CONTIGUOUS;
			return r;
		}
		if ((r.err = MPI_Type_commit(&t)) != MPI_SUCCESS) {
			r.call = TLB_TYPE_COMMIT;
			MPI_Type_free(&t);
			return r;
		}
		count = 1;
	}
	if (root < 0) {
		r.err = req ? MPI_Iallreduce(send, recv, count, t, tlb_user_op, MPI_COMM_WORLD, req)
		            : MPI_Allreduce(send, recv, count, t, tlb_user_op, MPI_COMM_WORLD);
	} else {
		r.err = req ? MPI_Ireduce(send, recv, count, t, tlb_user_op, root, MPI_COMM_WORLD, req)
		            : MPI_Reduce(send, recv, count, t, tlb_user_op, root, MPI_COMM_WORLD);
	}
	if (n > 0 && (e = MPI_Type_free(&t)) != MPI_SUCCESS && r.err == MPI_SUCCESS) {
		r.err = e;
		r.call = TLB_TYPE_FREE;
	}
	return r;
}

static int tlb_op_free(void) {
	if (!tlb_have_user_op) {
		return MPI_SUCCESS;
	}
	tlb_have_user_op = 0;
	return MPI_Op_free(&tlb_user_op);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// WorldName names the world this binary was built for: "embedded" or "mpi".
const WorldName = "mpi"

// worldState is where the single MPI world of the process is in its life.
type worldState int

const (
	stateNew       worldState = iota // MPI not initialised yet
	stateRunning                     // MPI initialised, its thread serving jobs
	stateFinalized                   // MPI finalised: it cannot start again
	stateBroken                      // MPI's thread is gone (runtime.Goexit in a rank function)
)

// mpiWorld is the MPI world of this process. MPI allows one per process, so
// it is the package's single piece of mutable state (theWorld). Everything
// but state and jobs is touched only on MPI's own locked thread.
type mpiWorld struct {
	mu    sync.Mutex // held by Init, Finalize and for the whole of Run
	state worldState
	jobs  chan func() // to the goroutine locked to MPI's thread
	comm  Comm
	impl  string // Implementation(), read at start

	// active holds the non-blocking requests in flight: their buffers are
	// pinned, and MPI may write to them until they complete.
	active []*Request
	// selfSends are the requests of Sends to this rank (see sendSelf).
	selfSends []*Request

	// The CombineFunc of the user-defined reduction in progress, for the
	// exported callback, and the panic it raised, if any.
	combine      CombineFunc
	combineLen   int
	combinePanic any

	// calls counts MPI calls, for tick.
	calls     uint32
	lastYield time.Time
}

var theWorld mpiWorld

// MPI's thread and the Go scheduler. Go's sysmon takes the P from a
// goroutine that has run for 10 ms without being rescheduled whenever it
// finds it in a cgo call, on every tick (20 µs), and wakes another thread
// each time. The rank function runs for the whole job and spends most of
// its time inside MPI, so without care that happens all the time: measured
// here, ten times the context switches of C and 64 KiB ping-pongs 25% slower.
// tick, called before each MPI call, yields every yieldEvery, which keeps
// the goroutine fresh for the scheduler; it costs an increment per call, a
// clock read every 16 calls and a few microseconds per yield.
const yieldEvery = 3 * time.Millisecond

// abortGrace is how long a failing rank waits between printing its error
// and calling MPI_Abort.
const abortGrace = 200 * time.Millisecond

func (w *mpiWorld) tick() {
	w.calls++
	if w.calls%16 != 0 {
		return
	}
	if now := time.Now(); now.Sub(w.lastYield) >= yieldEvery {
		w.lastYield = now
		runtime.Gosched()
	}
}

// Comm is this process's rank in the MPI world. The zero value is not
// usable; Run passes a *Comm to the rank function. It is not safe for
// concurrent use: only the rank function, which Run calls on the one OS
// thread that initialised MPI (MPI_THREAD_FUNNELED), may call its methods,
// and each of them calls MPI directly.
type Comm struct {
	rank, size int

	launcher Launcher // read from the environment before MPI_Init
	cpus     int      // this node's online CPUs
	envIdle  Idle     // the policy of IdleEnv, read by each Run
	yield    bool     // the resolved idle policy is IdleYield
}

// Request is a non-blocking operation in flight, returned by Isend and
// Irecv; the zero value is not a request. Test or Wait it to completion;
// its buffer, pinned for MPI, must not be touched until then. It is not safe
// for concurrent use. Finalize cancels receives still in flight.
type Request struct {
	req    C.MPI_Request
	pin    runtime.Pinner
	recv   bool
	done   bool
	idx    int // position in theWorld.active while in flight
	status Status
	err    error
}

// mpiError turns an MPI return code into nil or an *Error.
func mpiError(fn string, code C.int) error {
	if code == C.MPI_SUCCESS {
		return nil
	}
	var class C.int
	var msg [1024]C.char
	C.tlb_error_info(code, &class, &msg[0], C.int(len(msg)))
	return &Error{Func: fn, Class: classOf(class), Code: int(code), Msg: C.GoString(&msg[0])}
}

// resultError is mpiError for a helper's tlb_result.
func resultError(fn string, r C.tlb_result) error {
	if r.err == C.MPI_SUCCESS {
		return nil
	}
	switch r.call {
	case C.TLB_GET_COUNT:
		fn = "MPI_Get_count"
	case C.TLB_TYPE_CONTIGUOUS:
		fn = "MPI_Type_contiguous"
	case C.TLB_TYPE_COMMIT:
		fn = "MPI_Type_commit"
	case C.TLB_TYPE_FREE:
		fn = "MPI_Type_free"
	case C.TLB_OP_CREATE:
		fn = "MPI_Op_create"
	}
	return mpiError(fn, r.err)
}

func classOf(class C.int) ErrorClass {
	switch class {
	case C.MPI_ERR_RANK:
		return ClassRank
	case C.MPI_ERR_TAG:
		return ClassTag
	case C.MPI_ERR_TRUNCATE:
		return ClassTruncate
	case C.MPI_ERR_COUNT:
		return ClassCount
	case C.MPI_ERR_BUFFER:
		return ClassBuffer
	case C.MPI_ERR_ROOT:
		return ClassRoot
	case C.MPI_ERR_ARG:
		return ClassArg
	}
	return ClassOther
}

// Init initialises MPI with MPI_Init_thread (MPI_THREAD_FUNNELED) on a new
// goroutine locked to its OS thread, which then makes every MPI call of the
// process. Run calls Init itself; call it explicitly where several Runs share
// one MPI world (a test binary's TestMain: Init, m.Run, Finalize). Init is
// idempotent until Finalize; MPI cannot be initialised again after it.
func Init() error {
	w := &theWorld
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.init()
}

func (w *mpiWorld) init() error {
	switch w.state {
	case stateRunning:
		return nil
	case stateFinalized:
		return &Error{Func: "MPI_Init_thread", Class: ClassInit, Msg: "MPI was finalized and cannot be initialised again"}
	case stateBroken:
		return w.brokenError("MPI_Init_thread")
	}
	jobs := make(chan func())
	errc := make(chan error, 1)
	go w.serve(jobs, errc)
	if err := <-errc; err != nil {
		w.state = stateFinalized // a failed MPI_Init cannot be retried
		return err
	}
	w.jobs, w.state = jobs, stateRunning
	return nil
}

// serve is MPI's goroutine: it stays locked to its thread for good, so the
// thread ends with it after Finalize.
func (w *mpiWorld) serve(jobs <-chan func(), errc chan<- error) {
	runtime.LockOSThread()
	err := w.start()
	errc <- err
	if err != nil {
		return
	}
	for job := range jobs {
		job()
	}
}

func (w *mpiWorld) start() error {
	var provided, rank, size C.int
	// Read the launcher before MPI_Init, which may add variables of its own,
	// and the library, which the launch checks name.
	launcher := DetectLauncher(os.Getenv)
	impl := LibraryName(libraryVersion())
	if err := mpiError("MPI_Init_thread", C.tlb_init_thread(&provided)); err != nil {
		err.(*Error).Class = ClassInit
		return err
	}
	if provided < C.tlb_thread_funneled() {
		return &Error{Func: "MPI_Init_thread", Class: ClassInit,
			Msg: fmt.Sprintf("MPI provides thread level %d, below MPI_THREAD_FUNNELED", int(provided))}
	}
	if err := mpiError("MPI_Comm_set_errhandler", C.tlb_errors_return()); err != nil {
		return err
	}
	if err := mpiError("MPI_Comm_rank", C.tlb_comm_rank(&rank)); err != nil {
		return err
	}
	if err := mpiError("MPI_Comm_size", C.tlb_comm_size(&size)); err != nil {
		return err
	}
	w.comm = Comm{rank: int(rank), size: int(size), launcher: launcher, cpus: int(C.tlb_online_cpus())}
	w.impl = impl
	return nil
}

func (w *mpiWorld) brokenError(fn string) error {
	return &Error{Func: fn, Class: ClassOther, Msg: "MPI's thread ended: a rank function called runtime.Goexit"}
}

// do runs job on MPI's thread and waits for it.
func (w *mpiWorld) do(job func()) {
	done := make(chan struct{})
	w.jobs <- func() {
		defer close(done)
		job()
	}
	<-done
}

// Finalize cancels the receives still in flight, frees the sends and
// finalises MPI, ending its thread. As in MPI, sends that no rank ever
// receives leave MPI_Finalize's behaviour to the implementation (MPICH may
// hang). Without a prior Init, or after Finalize, it does nothing.
func Finalize() error {
	w := &theWorld
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.finalize()
}

func (w *mpiWorld) finalize() error {
	switch w.state {
	case stateBroken:
		return w.brokenError("MPI_Finalize")
	case stateRunning:
	default:
		return nil
	}
	var err error
	w.do(func() { err = w.stop() })
	close(w.jobs)
	w.jobs, w.state = nil, stateFinalized
	return err
}

// stop runs on MPI's thread. Receives still in flight are cancelled and
// completed; sends are freed, and MPI completes them if it can.
func (w *mpiWorld) stop() error {
	var errs []error
	for _, r := range w.active {
		if r.recv {
			errs = append(errs, mpiError("MPI_Cancel", C.tlb_cancel(&r.req)),
				resultError("MPI_Wait", C.tlb_wait(&r.req, 0)))
		} else {
			errs = append(errs, mpiError("MPI_Request_free", C.tlb_request_free(&r.req)))
		}
	}
	errs = append(errs, mpiError("MPI_Op_free", C.tlb_op_free()), mpiError("MPI_Finalize", C.MPI_Finalize()))
	for _, r := range w.active {
		r.pin.Unpin() // only now: MPI may use a freed send's buffer until MPI_Finalize
		r.done, r.err = true, &Error{Func: "MPI_Finalize", Class: ClassOther, Msg: "request still in flight at Finalize"}
	}
	w.active, w.selfSends = nil, nil
	return errors.Join(errs...)
}

// Run runs f on this process's rank of the MPI world, on MPI's own thread,
// and returns its error. n is the number of ranks the caller expects: 0 takes
// the size mpirun or srun gave, any other n must equal it. Run initialises
// MPI if Init was not called, and then finalises it before returning.
//
// Before f runs, Run checks the launch and returns a *LaunchError (exit
// code 2) without running f when the launcher started several tasks but
// MPI made each a world of one (a build started by another MPI's mpirun, or
// by srun with the wrong --mpi plugin: the message names the fix), when n
// differs from the launcher's size, or when IdleEnv has a bad value. The
// rank starts with the idle policy of IdleEnv (see Comm.SetIdle).
//
// When f fails (returns an error or panics) in a world of more than one
// rank, Run prints "rank R: error" to stderr and calls MPI_Abort, with the
// code of the error's ExitCode method if it has one (1 otherwise, and for
// 0), so that mpirun ends every rank; it does not return. With one rank it
// returns the error. f must not call Run, Init or Finalize.
func Run(n int, f func(c *Comm) error) error { return RunWith(n, Options{}, f) }

// RunWith is Run with options: with Options.StartupTimeout, every rank
// must have started within it (see Options), or the job ends with a
// message, ExitStartup, instead of waiting for ever for a rank that never
// came (one that failed before MPI_Init, a node that is gone).
func RunWith(n int, opt Options, f func(c *Comm) error) error {
	if f == nil {
		return errors.New("mpi: Run: f is nil: give the function every rank runs")
	}
	w := &theWorld
	w.mu.Lock()
	defer w.mu.Unlock()
	own := w.state == stateNew
	start := time.Now()
	var stop func()
	if own && opt.StartupTimeout > 0 {
		stop = watchInit(opt.StartupTimeout)
	}
	err := w.init()
	if stop != nil {
		stop()
	}
	if err != nil {
		return fmt.Errorf("mpi: Run: %w", err)
	}
	c := &w.comm
	err = checkLaunch(c.launcher, w.impl, c.size, n)
	if err == nil {
		c.envIdle, err = envIdle(os.Getenv)
	}
	if err == nil {
		c.SetIdle(IdleDefault)
		w.do(func() {
			if opt.StartupTimeout > 0 {
				if err = c.startup(start.Add(opt.StartupTimeout), opt.StartupTimeout); err != nil {
					return
				}
			}
			w.runRank(f, &err)
		})
	}
	if own {
		err = errors.Join(err, w.finalize())
	}
	return err
}

// runRank runs on MPI's thread. It sets *out also when f calls
// runtime.Goexit, which ends MPI's thread.
func (w *mpiWorld) runRank(f func(*Comm) error, out *error) {
	c := &w.comm
	returned := false
	defer func() {
		err := *out
		if p := recover(); p != nil {
			err = &PanicError{Rank: c.rank, Value: p, Stack: debug.Stack()}
		} else if !returned {
			w.state = stateBroken
			err = errors.New("the rank function called runtime.Goexit (t.FailNow or t.Fatal in a rank?)")
		}
		if err == nil {
			return
		}
		err = nameRank(c.rank, c.size, err)
		*out = err
		if c.size > 1 {
			fmt.Fprintln(os.Stderr, err)
			// Let the launcher forward the message before MPI_Abort kills
			// the job: MPICH's hydra sometimes drops a dying rank's output.
			time.Sleep(abortGrace)
			code := 1
			var ec ExitCoder
			if errors.As(err, &ec) && ec.ExitCode() != 0 {
				code = ec.ExitCode()
			}
			c.abort(code)
		}
	}()
	*out = f(c)
	returned = true
}

// watchInit ends the process with ExitStartup, saying why, if MPI_Init has
// not returned after d: MPI_Init waits for every rank of the job (Open
// MPI's and MPICH's do), so one that never calls it would keep this one
// waiting for ever. The launcher sees a rank fail and ends the others.
// The returned function stops the watch.
func watchInit(d time.Duration) (stop func()) {
	l := DetectLauncher(os.Getenv)
	t := time.AfterFunc(d, func() {
		who := "this rank"
		if l.Kind != LaunchNone {
			who = fmt.Sprintf("rank %d of %d (%v)", l.Rank, l.Tasks, l)
		}
		fmt.Fprintf(os.Stderr, "mpi: %s: MPI_Init has not returned after %v: not every rank of the job has started"+
			" (a rank that failed before MPI_Init or never calls it, a node that is gone); ending the job (--startup-timeout)\n", who, d)
		os.Exit(ExitStartup)
	})
	return func() { t.Stop() }
}

// tagHello is the tag of the message every rank but 0 sends rank 0 at the
// start (Options.StartupTimeout), so that rank 0 can name the ranks that
// never arrived. No other message uses it before the start is over.
const tagHello = MaxTag

// startupGrace is how long a rank other than 0 waits after the deadline
// before it aborts, so that rank 0, which knows which ranks are missing,
// speaks first.
const startupGrace = 2 * time.Second

// startup runs on MPI's thread at the start of RunWith: every rank but 0
// sends rank 0 an empty message (tagHello) and every rank enters a
// non-blocking barrier, polled until it completes or the deadline passes.
// Then rank 0 names the ranks whose message never came and aborts the
// job; the others wait startupGrace for it before they abort too. O(1)
// per rank, O(P) messages and bits on rank 0.
func (c *Comm) startup(deadline time.Time, d time.Duration) error {
	if c.size == 1 {
		return nil
	}
	var hello, bar C.MPI_Request
	if c.rank != 0 {
		if err := mpiError("MPI_Isend", C.tlb_isend(nil, 0, 0, tagHello, &hello)); err != nil {
			return err
		}
	}
	if err := mpiError("MPI_Ibarrier", C.tlb_barrier(&bar)); err != nil {
		return err
	}
	var seen []uint64
	got := 0
	if c.rank == 0 {
		seen = make([]uint64, (c.size+63)/64)
		seen[0] |= 1
	}
	take := func(block bool) error {
		var res C.tlb_result
		if block {
			res = C.tlb_probe(C.int(AnySource), tagHello)
		} else {
			res = C.tlb_iprobe(C.int(AnySource), tagHello)
		}
		if err := resultError("MPI_Probe", res); err != nil || res.flag == 0 {
			return err
		}
		src := int(res.source)
		if err := resultError("MPI_Recv", C.tlb_recv(nil, 0, C.int(src), tagHello)); err != nil {
			return err
		}
		if seen[src/64]&(1<<(src%64)) == 0 {
			seen[src/64] |= 1 << (src % 64)
			got++
		}
		return nil
	}
	var b backoff
	for {
		if c.rank == 0 {
			if err := take(false); err != nil {
				return err
			}
		}
		res := C.tlb_test(&bar, 0)
		if err := resultError("MPI_Test", res); err != nil {
			return err
		}
		if res.flag != 0 {
			break
		}
		if time.Now().After(deadline) {
			c.startupFailed(d, got, seen)
		}
		b.pause()
	}
	// Every rank sent its message before it entered the barrier.
	for c.rank == 0 && got < c.size-1 {
		if err := take(true); err != nil {
			return err
		}
	}
	if c.rank != 0 {
		return resultError("MPI_Wait", C.tlb_wait(&hello, 0))
	}
	return nil
}

// startupFailed ends the job after the start-up deadline: rank 0 names the
// ranks that never sent their message; the others give it startupGrace to
// do so. It does not return.
func (c *Comm) startupFailed(d time.Duration, got int, seen []uint64) {
	if c.rank == 0 {
		list, n := rankRanges(c.size, func(r int) bool { return seen[r/64]&(1<<(r%64)) == 0 }, 20)
		if n > 0 {
			fmt.Fprintf(os.Stderr, "mpi: rank 0: %d of %d ranks have not started after %v: rank %s (--startup-timeout); ending the job\n", n, c.size, d, list)
		} else {
			fmt.Fprintf(os.Stderr, "mpi: rank 0: every rank started, but not every one finished starting within %v (--startup-timeout); ending the job\n", d)
		}
	} else {
		time.Sleep(startupGrace)
		fmt.Fprintf(os.Stderr, "mpi: rank %d: not every rank started within %v (--startup-timeout; rank 0 names them); ending the job\n", c.rank, d)
	}
	time.Sleep(abortGrace)
	c.abort(ExitStartup)
}

// Rank returns this process's rank, 0 ≤ Rank < Size.
func (c *Comm) Rank() int { return c.rank }

// SetIdle sets how this rank waits in blocking calls from now on (see
// Idle): IdleDefault takes IdleEnv's policy, IdleAuto (and any value that
// is no policy) yields when the launcher put more ranks on this node than
// it has CPUs. Each Run starts with IdleDefault.
func (c *Comm) SetIdle(p Idle) {
	c.yield = resolveIdle(p, c.envIdle, c.launcher, c.cpus) == IdleYield
}

// pause sleeps between two polls of an idle wait. The sleep is nanosleep on
// MPI's thread: time.Sleep on a goroutine locked to its thread hands the
// thread over twice per sleep and oversleeps by a millisecond and more.
func (b *backoff) pause() {
	if d := b.next(); d > 0 {
		C.tlb_sleep(C.long(d))
	}
}

// Idle returns the policy this rank waits with: IdleSpin or IdleYield.
func (c *Comm) Idle() Idle {
	if c.yield {
		return IdleYield
	}
	return IdleSpin
}

// LibraryVersion returns the MPI library's version string
// (MPI_Get_library_version, which MPI allows before MPI_Init and after
// MPI_Finalize), with trailing white space removed. Call it outside a run or
// from the rank function: MPI_THREAD_FUNNELED allows no other thread while
// MPI runs.
func LibraryVersion() string {
	return libraryVersion()
}

// Implementation names the MPI library this binary runs with, read from
// the library itself (LibraryName of LibraryVersion): "openmpi", "mpich",
// "intel-mpi", "mvapich", "cray-mpich", "hpe-mpt", "spectrum-mpi" or
// Unknown. The library is the one the dynamic linker found, which need not
// be the one the build was compiled against. Call it where LibraryVersion
// may be called.
func Implementation() string { return LibraryName(LibraryVersion()) }

// libraryVersion is LibraryVersion; start calls it on MPI's thread.
func libraryVersion() string {
	var v [C.MPI_MAX_LIBRARY_VERSION_STRING + 1]C.char
	if code := C.tlb_library_version(&v[0], C.int(len(v))); code != C.MPI_SUCCESS {
		return fmt.Sprintf("unknown (MPI_Get_library_version failed with code %d)", int(code))
	}
	return strings.TrimRight(C.GoString(&v[0]), " \t\r\n")
}

// Size returns the number of ranks mpirun or srun started.
func (c *Comm) Size() int { return c.size }

// Wtime returns MPI_Wtime: seconds elapsed since an arbitrary origin.
func (c *Comm) Wtime() float64 { return float64(C.MPI_Wtime()) }

// Abort calls MPI_Abort on the whole world with code, which ends every rank
// of the job; it does not return (if MPI_Abort ever did, the process exits
// with code).
func (c *Comm) Abort(code int) error {
	c.abort(code)
	return &AbortError{Rank: c.rank, Code: code}
}

func (c *Comm) abort(code int) {
	C.tlb_abort(C.int(code))
	os.Exit(code)
}

// check validates a rank and a tag in Go, as the embedded world does, so
// that both worlds reject the same arguments whatever MPI would accept.
func (c *Comm) check(fn string, rank, tag int, wild bool) error {
	if !(rank >= 0 && rank < c.size) && !(wild && rank == AnySource) {
		return &Error{Func: fn, Class: ClassRank, Msg: fmt.Sprintf("invalid rank %d (size %d)", rank, c.size)}
	}
	if !(tag >= 0 && tag <= MaxTag) && !(wild && tag == AnyTag) {
		return &Error{Func: fn, Class: ClassTag, Msg: fmt.Sprintf("invalid tag %d", tag)}
	}
	return nil
}

func (c *Comm) checkRoot(fn string, root int) error {
	if root < 0 || root >= c.size {
		return &Error{Func: fn, Class: ClassRoot, Msg: fmt.Sprintf("invalid root %d (size %d)", root, c.size)}
	}
	return nil
}

// count checks that a buffer length fits MPI's int count.
func count(fn string, n int) (C.int, error) {
	if n > math.MaxInt32 {
		return 0, &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("%d bytes exceed MPI's int count", n)}
	}
	return C.int(n), nil
}

// ptr returns the address of buf's data for C, nil for an empty buffer.
func ptr(buf []byte) unsafe.Pointer {
	if len(buf) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(buf))
}

// Send sends buf to rank dest with tag (MPI_Send, standard mode: it may
// block until the receiver posts a matching receive).
func (c *Comm) Send(buf []byte, dest, tag int) error {
	const fn = "MPI_Send"
	if err := c.check(fn, dest, tag, false); err != nil {
		return err
	}
	if dest == c.rank {
		return c.sendSelf(fn, buf, tag)
	}
	n, err := count(fn, len(buf))
	if err != nil {
		return err
	}
	theWorld.tick()
	if c.yield {
		// MPI_Send waits, spinning, for the receiver of a long message.
		_, err := yieldingCall(fn, false, func(req *C.MPI_Request) C.int {
			return C.tlb_isend(ptr(buf), n, C.int(dest), C.int(tag), req)
		}, ptr(buf))
		return err
	}
	return mpiError(fn, C.tlb_send(ptr(buf), n, C.int(dest), C.int(tag)))
}

// sendSelf sends a copy of buf to this rank with MPI_Isend. MPI_Send to
// oneself may block until the receive is posted (MPICH's does, even for a
// byte), which would deadlock the common send-then-receive pattern that the
// embedded world allows; the request completes later (reapSelfSends).
func (c *Comm) sendSelf(fn string, buf []byte, tag int) error {
	w := &theWorld
	w.reapSelfSends()
	r := &Request{}
	err := r.start(fn, append([]byte(nil), buf...), func(p unsafe.Pointer, n C.int) C.int {
		return C.tlb_isend(p, n, C.int(c.rank), C.int(tag), &r.req)
	})
	if err != nil {
		return err
	}
	w.selfSends = append(w.selfSends, r)
	return nil
}

// reapSelfSends forgets the self-sends that have completed.
func (w *mpiWorld) reapSelfSends() {
	keep := w.selfSends[:0]
	for _, r := range w.selfSends {
		if _, done, _ := r.Test(); !done {
			keep = append(keep, r)
		}
	}
	clear(w.selfSends[len(keep):])
	w.selfSends = keep
}

// Isend starts a send of buf to dest with tag (MPI_Isend). buf stays pinned
// and must not change until the request completes.
func (c *Comm) Isend(buf []byte, dest, tag int) (*Request, error) {
	const fn = "MPI_Isend"
	if err := c.check(fn, dest, tag, false); err != nil {
		return nil, err
	}
	r := &Request{status: Status{Source: c.rank, Tag: tag, Count: len(buf)}}
	if err := r.start(fn, buf, func(p unsafe.Pointer, n C.int) C.int {
		return C.tlb_isend(p, n, C.int(dest), C.int(tag), &r.req)
	}); err != nil {
		return nil, err // no request: a Wait on it would pass MPI a null handle
	}
	return r, nil
}

// Irecv starts a receive into buf of a message from source with tag (either
// may be a wildcard) (MPI_Irecv). buf stays pinned and must not be touched
// until the request completes.
func (c *Comm) Irecv(buf []byte, source, tag int) (*Request, error) {
	const fn = "MPI_Irecv"
	if err := c.check(fn, source, tag, true); err != nil {
		return nil, err
	}
	r := &Request{recv: true}
	if err := r.start(fn, buf, func(p unsafe.Pointer, n C.int) C.int {
		return C.tlb_irecv(p, n, C.int(source), C.int(tag), &r.req)
	}); err != nil {
		return nil, err
	}
	return r, nil
}

// start pins buf, calls MPI and registers r as in flight.
func (r *Request) start(fn string, buf []byte, call func(unsafe.Pointer, C.int) C.int) error {
	n, err := count(fn, len(buf))
	if err != nil {
		return err
	}
	p := ptr(buf)
	if p != nil {
		r.pin.Pin(p)
	}
	theWorld.tick()
	if err := mpiError(fn, call(p, n)); err != nil {
		r.pin.Unpin()
		return err
	}
	w := &theWorld
	r.idx = len(w.active)
	w.active = append(w.active, r)
	return nil
}

// complete records the outcome of MPI_Test or MPI_Wait once r is done.
func (r *Request) complete(fn string, res C.tlb_result) {
	r.done = true
	r.err = resultError(fn, res)
	if r.recv && r.err == nil {
		r.status = Status{Source: int(res.source), Tag: int(res.tag), Count: int(res.count)}
	}
	r.pin.Unpin()
	w := &theWorld
	last := w.active[len(w.active)-1]
	w.active[r.idx], last.idx = last, r.idx
	w.active[len(w.active)-1] = nil
	w.active = w.active[:len(w.active)-1]
}

// Test reports whether the request is complete (MPI_Test), with its status
// and error; a completed request keeps reporting them.
func (r *Request) Test() (Status, bool, error) {
	if !r.done {
		theWorld.tick()
		res := C.tlb_test(&r.req, boolInt(r.recv))
		if res.err == C.MPI_SUCCESS && res.flag == 0 {
			return Status{}, false, nil
		}
		r.complete("MPI_Test", res)
	}
	return r.status, true, r.err
}

// Wait blocks until the request is complete (MPI_Wait) and returns its
// status.
func (r *Request) Wait() (Status, error) {
	if !r.done {
		theWorld.tick()
		if theWorld.comm.yield {
			// A local copy: cgo's pointer check would see r's Pinner
			// behind &r.req passed on through await.
			req := r.req
			res := await(&req, boolInt(r.recv))
			r.req = req
			r.complete("MPI_Wait", res)
		} else {
			r.complete("MPI_Wait", C.tlb_wait(&r.req, boolInt(r.recv)))
		}
	}
	return r.status, r.err
}

// await polls the request req with MPI_Test until it completes, pausing
// between polls (IdleYield), and returns the last MPI_Test's result.
func await(req *C.MPI_Request, recv C.int) C.tlb_result {
	var b backoff
	for {
		res := C.tlb_test(req, recv)
		if res.err != C.MPI_SUCCESS || res.flag != 0 {
			return res
		}
		b.pause()
		theWorld.tick()
	}
}

// yieldingCall is a blocking call made of a non-blocking one, for
// IdleYield: start starts the operation with request *req, and await
// completes it. bufs are the buffers MPI uses until then, pinned meanwhile;
// recv says whether the status has a count (MPI_Get_count).
func yieldingCall(fn string, recv bool, start func(req *C.MPI_Request) C.int, bufs ...unsafe.Pointer) (Status, error) {
	var pin runtime.Pinner
	defer pin.Unpin()
	for _, p := range bufs {
		if p != nil {
			pin.Pin(p)
		}
	}
	var req C.MPI_Request
	if err := mpiError(fn, start(&req)); err != nil {
		return Status{}, err
	}
	res := await(&req, boolInt(recv))
	if err := resultError(fn, res); err != nil {
		return Status{}, err
	}
	return statusOf(res), nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func statusOf(res C.tlb_result) Status {
	return Status{Source: int(res.source), Tag: int(res.tag), Count: int(res.count)}
}

// Recv receives into buf a message from source with tag (either may be a
// wildcard) and blocks until it arrives (MPI_Recv). A message longer than
// buf is an error of class ClassTruncate.
func (c *Comm) Recv(buf []byte, source, tag int) (Status, error) {
	const fn = "MPI_Recv"
	if err := c.check(fn, source, tag, true); err != nil {
		return Status{}, err
	}
	n, err := count(fn, len(buf))
	if err != nil {
		return Status{}, err
	}
	theWorld.tick()
	if c.yield {
		return yieldingCall(fn, true, func(req *C.MPI_Request) C.int {
			return C.tlb_irecv(ptr(buf), n, C.int(source), C.int(tag), req)
		}, ptr(buf))
	}
	res := C.tlb_recv(ptr(buf), n, C.int(source), C.int(tag))
	if err := resultError(fn, res); err != nil {
		return Status{}, err
	}
	return statusOf(res), nil
}

// Iprobe reports whether a message from source with tag is waiting, without
// receiving it (MPI_Iprobe). It never blocks.
func (c *Comm) Iprobe(source, tag int) (Status, bool, error) {
	const fn = "MPI_Iprobe"
	if err := c.check(fn, source, tag, true); err != nil {
		return Status{}, false, err
	}
	theWorld.tick()
	res := C.tlb_iprobe(C.int(source), C.int(tag))
	if err := resultError(fn, res); err != nil {
		return Status{}, false, err
	}
	if res.flag == 0 {
		return Status{}, false, nil
	}
	return statusOf(res), true, nil
}

// Probe blocks until a message from source with tag is waiting and returns
// its status without receiving it (MPI_Probe).
func (c *Comm) Probe(source, tag int) (Status, error) {
	const fn = "MPI_Probe"
	if err := c.check(fn, source, tag, true); err != nil {
		return Status{}, err
	}
	theWorld.tick()
	if c.yield {
		var b backoff
		for {
			res := C.tlb_iprobe(C.int(source), C.int(tag))
			if err := resultError(fn, res); err != nil {
				return Status{}, err
			}
			if res.flag != 0 {
				return statusOf(res), nil
			}
			b.pause()
			theWorld.tick()
		}
	}
	res := C.tlb_probe(C.int(source), C.int(tag))
	if err := resultError(fn, res); err != nil {
		return Status{}, err
	}
	return statusOf(res), nil
}

// ProbeWithin is Probe that gives up after d: it reports false when no
// message from source with tag arrived in time. It is not an MPI call but
// what an idle rank needs that waits for messages and for a moment of its
// own (lb's driver holding back a request, rank 0's progress and
// checkpoint polls, the stall watchdog): MPI_Iprobe polled until the
// deadline, back to back under IdleSpin as MPI_Probe spins, and with the
// back-off of IdleYield under IdleYield. (Go's timers sleep a millisecond
// at the least in a process with nothing else to run, so the back-off
// under IdleSpin made such a rank notice a message up to a millisecond
// late: a steal's answer, in work slices of 0.1–1 ms.)
func (c *Comm) ProbeWithin(source, tag int, d time.Duration) (Status, bool, error) {
	const fn = "MPI_Iprobe"
	if err := c.check(fn, source, tag, true); err != nil {
		return Status{}, false, err
	}
	deadline := time.Now().Add(d)
	var b backoff
	for {
		theWorld.tick()
		res := C.tlb_iprobe(C.int(source), C.int(tag))
		if err := resultError(fn, res); err != nil {
			return Status{}, false, err
		}
		if res.flag != 0 {
			return statusOf(res), true, nil
		}
		if !time.Now().Before(deadline) {
			return Status{}, false, nil
		}
		if c.yield {
			b.pause()
		}
	}
}

// collective makes a collective call: blocking (call gets a nil request)
// under IdleSpin; under IdleYield non-blocking, polled until it completes,
// with bufs, the buffers MPI uses meanwhile, pinned.
func (c *Comm) collective(fn string, call func(req *C.MPI_Request) C.int, bufs ...unsafe.Pointer) error {
	theWorld.tick()
	if !c.yield {
		return mpiError(fn, call(nil))
	}
	_, err := yieldingCall(fn, false, call, bufs...)
	return err
}

// Barrier blocks until every rank has entered it (MPI_Barrier).
func (c *Comm) Barrier() error {
	return c.collective("MPI_Barrier", func(req *C.MPI_Request) C.int { return C.tlb_barrier(req) })
}

// Bcast copies buf of root into buf of every rank (MPI_Bcast); all ranks
// pass buffers of the same length.
func (c *Comm) Bcast(buf []byte, root int) error {
	const fn = "MPI_Bcast"
	if err := c.checkRoot(fn, root); err != nil {
		return err
	}
	n, err := count(fn, len(buf))
	if err != nil {
		return err
	}
	return c.collective(fn, func(req *C.MPI_Request) C.int {
		return C.tlb_bcast(ptr(buf), n, C.int(root), req)
	}, ptr(buf))
}

func (c *Comm) reduceNum(send, recv []byte, k kind, op Op, root int) error {
	fn := "MPI_Reduce"
	if root < 0 {
		fn = "MPI_Allreduce"
	} else if err := c.checkRoot(fn, root); err != nil {
		return err
	}
	if err := checkOp(fn, op); err != nil {
		return err
	}
	if root < 0 || root == c.rank { // recv is the root's alone
		if err := checkAlias(fn, send, recv); err != nil {
			return err
		}
	}
	n, err := count(fn, len(send)/8)
	if err != nil {
		return err
	}
	return c.collective(fn, func(req *C.MPI_Request) C.int {
		return C.tlb_reduce_num(ptr(send), ptr(recv), n, C.int(k), C.int(op), C.int(root), req)
	}, ptr(send), ptr(recv))
}

// reduceFunc is the shared body of the user-defined reductions; root < 0
// means all ranks.
func (c *Comm) reduceFunc(fn string, send, recv []byte, root int, combine CombineFunc) error {
	if root >= 0 {
		if err := c.checkRoot(fn, root); err != nil {
			return err
		}
	}
	if (root < 0 || root == c.rank) && len(recv) < len(send) {
		return &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("recv has %d bytes, send %d", len(recv), len(send))}
	}
	if root < 0 || root == c.rank { // recv is the root's alone
		if err := checkAlias(fn, send, recv); err != nil {
			return err
		}
	}
	n, err := count(fn, len(send))
	if err != nil {
		return err
	}
	w := &theWorld
	w.tick()
	w.combine, w.combineLen, w.combinePanic = combine, len(send), nil
	var startErr error // names the helper call that failed
	err = c.collective(fn, func(req *C.MPI_Request) C.int {
		res := C.tlb_reduce_bytes(ptr(send), ptr(recv), n, C.int(root), req)
		startErr = resultError(fn, res)
		return res.err
	}, ptr(send), ptr(recv))
	p := w.combinePanic
	w.combine, w.combinePanic = nil, nil
	if p != nil {
		panic(p)
	}
	if startErr != nil {
		return startErr
	}
	return err
}

// ReduceFunc combines the equal-length buffers send of all ranks with
// combine into recv on root (len(recv) = len(send) there), through
// MPI_Reduce with a user-defined MPI_Op.
func (c *Comm) ReduceFunc(send, recv []byte, root int, combine CombineFunc) error {
	return c.reduceFunc("MPI_Reduce", send, recv, root, combine)
}

// AllreduceFunc combines the equal-length buffers send of all ranks with
// combine into recv on every rank, through MPI_Allreduce with a
// user-defined MPI_Op.
func (c *Comm) AllreduceFunc(send, recv []byte, combine CombineFunc) error {
	return c.reduceFunc("MPI_Allreduce", send, recv, -1, combine)
}

// Gather collects send of every rank into recv of root, rank r's block at
// recv[r*len(send):] (MPI_Gather); every rank sends the same length.
func (c *Comm) Gather(send, recv []byte, root int) error {
	const fn = "MPI_Gather"
	if err := c.checkRoot(fn, root); err != nil {
		return err
	}
	if c.rank == root && len(recv) < len(send)*c.size {
		return &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("recv has %d bytes, need %d", len(recv), len(send)*c.size)}
	}
	n, err := count(fn, len(send))
	if err != nil {
		return err
	}
	return c.collective(fn, func(req *C.MPI_Request) C.int {
		return C.tlb_gather(ptr(send), n, ptr(recv), C.int(root), req)
	}, ptr(send), ptr(recv))
}

// Alltoallv sends send[sdispls[r]:][:scounts[r]] to every rank r and
// receives rank r's block into recv[rdispls[r]:][:rcounts[r]]
// (MPI_Alltoallv). The counts must agree pairwise, as in MPI.
func (c *Comm) Alltoallv(send []byte, scounts, sdispls []int, recv []byte, rcounts, rdispls []int) error {
	const fn = "MPI_Alltoallv"
	if err := checkV(fn, c.size, len(send), scounts, sdispls); err != nil {
		return err
	}
	if err := checkV(fn, c.size, len(recv), rcounts, rdispls); err != nil {
		return err
	}
	if _, err := count(fn, max(len(send), len(recv))); err != nil {
		return err
	}
	if me := c.rank; scounts[me] != rcounts[me] {
		return &Error{Func: fn, Class: ClassTruncate, Msg: fmt.Sprintf("rank %d sends itself %d bytes but expects %d", me, scounts[me], rcounts[me])}
	}
	v := make([]C.int, 4*c.size)
	for i, s := range [][]int{scounts, sdispls, rcounts, rdispls} {
		for r, x := range s {
			v[i*c.size+r] = C.int(x)
		}
	}
	p := c.size
	return c.collective(fn, func(req *C.MPI_Request) C.int {
		return C.tlb_alltoallv(ptr(send), &v[0], &v[p], ptr(recv), &v[2*p], &v[3*p], req)
	}, ptr(send), ptr(recv), unsafe.Pointer(&v[0]))
}

// Alltoall sends block r of send to rank r and receives rank r's block into
// block r of recv (MPI_Alltoall); blocks are len(send)/Size bytes.
func (c *Comm) Alltoall(send, recv []byte) error {
	const fn = "MPI_Alltoall"
	p := c.size
	if len(send)%p != 0 || len(recv) != len(send) {
		return &Error{Func: fn, Class: ClassCount, Msg: fmt.Sprintf("send %d and recv %d bytes do not split into %d equal blocks", len(send), len(recv), p)}
	}
	n, err := count(fn, len(send)/p)
	if err != nil {
		return err
	}
	return c.collective(fn, func(req *C.MPI_Request) C.int {
		return C.tlb_alltoall(ptr(send), ptr(recv), n, req)
	}, ptr(send), ptr(recv))
}
