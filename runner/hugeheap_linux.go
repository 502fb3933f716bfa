//go:build linux

package runner

import "golang.org/x/sys/unix"

// madviseHuge asks the kernel to back b's pages with transparent huge
// pages (MADV_HUGEPAGE).
func madviseHuge(b []byte) error { return unix.Madvise(b, unix.MADV_HUGEPAGE) }
