//go:build !linux

package runner

// rlimitAS reports no limit: the address-space limit is read on Linux, the
// clusters' system, only (the BSDs type it apart or lack it, and macOS does
// not enforce it).
func rlimitAS() (uint64, bool) { return 0, false }
