package runner

import (
	"fmt"
	"io"
	"os"
	"time"
)

// stdinFirstByte bounds the wait for the first byte of standard input
// under MPI (or --startup-timeout when it is shorter): every rank waits
// for rank 0's read.
const stdinFirstByte = 30 * time.Second

// stdinWithin returns r, standard input, as a reader whose first read
// fails when no byte and no end of file arrived within d (0: r itself).
// Under mpirun, rank 0 reads the launcher's copy of standard input, and
// Open MPI's mpirun with its own standard input closed (mpirun ... <&-)
// hands rank 0 a pipe that never ends: without a deadline the whole job
// would wait for ever. After the first byte the reads are r's own.
func stdinWithin(r io.Reader, d time.Duration) io.Reader {
	if d <= 0 {
		return r
	}
	if r == nil {
		r = os.Stdin
	}
	return &firstByteReader{r: r, d: d}
}

// firstByteReader is stdinWithin's reader; it belongs to rank 0's
// goroutine.
type firstByteReader struct {
	r       io.Reader
	d       time.Duration
	started bool
}

type readResult struct {
	n   int
	err error
}

func (f *firstByteReader) Read(p []byte) (int, error) {
	if f.started || len(p) == 0 {
		return f.r.Read(p)
	}
	// The read may never return: it gets a buffer of its own, and is
	// abandoned (the command then fails) when the deadline passes.
	buf := make([]byte, len(p))
	done := make(chan readResult, 1)
	go func() {
		n, err := f.r.Read(buf)
		done <- readResult{n, err}
	}()
	t := time.NewTimer(f.d)
	defer t.Stop()
	select {
	case res := <-done:
		f.started = true
		copy(p, buf[:res.n])
		return res.n, res.err
	case <-t.C:
		return 0, fmt.Errorf("nothing arrived on standard input within %v: under mpirun a closed standard input"+
			" never ends (Open MPI); give the input as a file, or redirect standard input from one (< FILE, < /dev/null)", f.d)
	}
}
