//go:build !linux

package runner

import "time"

// threadCPUTime returns the CPU time of the process: without
// RUSAGE_THREAD, the calibrations count the other threads' time too.
func threadCPUTime() time.Duration { return cpuTime() }
