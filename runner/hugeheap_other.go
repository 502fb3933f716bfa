//go:build !linux

package runner

import "errors"

// madviseHuge is Linux's: elsewhere there is no transparent huge page to
// ask for (and thpMode reads no mode, so it is never called).
func madviseHuge([]byte) error { return errors.ErrUnsupported }
