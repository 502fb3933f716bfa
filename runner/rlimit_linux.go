//go:build linux

package runner

import (
	"math"
	"syscall"
)

// rlimitAS returns the soft RLIMIT_AS, false when there is none.
func rlimitAS() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == math.MaxUint64 || int64(r.Cur) < 0 {
		return 0, false
	}
	return r.Cur, true
}
