//go:build linux

package runner

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPUTime returns the CPU time that the calling OS thread has used
// (CLOCK_THREAD_CPUTIME_ID, to the nanosecond; getrusage's RUSAGE_THREAD
// counts a running thread's time only to the scheduler's tick): the
// calibrations time their own goroutine, locked to its thread, without the
// CPU time of the process's other threads (the garbage collector's
// workers, other ranks' goroutines of the embedded world), which a run's
// wall time does not pay on a core of its own. It falls back to the
// process's CPU time.
func threadCPUTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return cpuTime()
	}
	return time.Duration(ts.Nano())
}
