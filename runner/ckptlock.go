package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A checkpoint file is handled as a database handles its files: before the
// search, the process that writes it (rank 0's) checks the path, takes an
// advisory lock that it holds for the run's whole life, and removes the
// temporary files a crashed writer left; every checkpoint is then written to
// a temporary file, synced, renamed over the path and the directory synced
// (writeAtomic), so that the path always holds a whole checkpoint or none.

// lockSuffix is appended to a checkpoint's path to name its lock file.
const lockSuffix = ".lock"

// ckptLock is the lock a run holds on its checkpoint path; Release ends it.
type ckptLock struct {
	path string   // the lock file
	f    *os.File // open, flock(LOCK_EX) held
}

// prepareCheckpoint checks the checkpoint path of a run and locks it. It
// refuses, with a *UsageError and without touching anything, a path that
// exists and is not a regular file (a directory, a device such as
// /dev/full, a FIFO, a socket, a symbolic link), a path whose directory
// does not exist, and a path that another run holds: its message names the
// holder (pid, host and start, from the lock file). Holding the lock, it
// removes the temporary files of a writer that crashed (".NAME.tmp-*"
// beside the path). A lock is only advisory: it binds treelb runs, on one
// host or on a file system with working flock (NFS ≥ 4, Lustre with -o
// flock).
func prepareCheckpoint(path, command string) (*ckptLock, error) {
	if err := checkCheckpointPath(path); err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	l, err := lockFile(path+lockSuffix, command)
	if err != nil {
		return nil, err
	}
	stale, _ := filepath.Glob(filepath.Join(dir, "."+filepath.Base(path)+".tmp-*"))
	for _, t := range stale {
		if st, err := os.Lstat(t); err == nil && st.Mode().IsRegular() {
			os.Remove(t)
		}
	}
	return l, nil
}

// checkCheckpointPath is prepareCheckpoint's part that touches nothing:
// the path is a regular file or a new name in an existing directory, and
// not a lock file's name (--check asks it alone).
func checkCheckpointPath(path string) error {
	if path == "" {
		return Usagef("--checkpoint: empty file name")
	}
	if strings.HasSuffix(path, lockSuffix) {
		// Another run's lock file: renamed over, it would end that run's
		// lock, and that run's end would remove this run's checkpoint.
		return Usagef("--checkpoint %s: a name of the lock files beside checkpoints (PATH%s); choose another name (nothing was written)", path, lockSuffix)
	}
	if st, err := os.Lstat(path); err == nil {
		if !st.Mode().IsRegular() {
			return Usagef("--checkpoint %s: %s; need a regular file or a new name (nothing was written)", path, FileKind(st.Mode()))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return Usagef("--checkpoint %s: %v", path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return Usagef("--checkpoint %s: the directory: %v", path, err)
	} else if !st.IsDir() {
		return Usagef("--checkpoint %s: %s is not a directory", path, dir)
	}
	return nil
}

// heldLock is a run's checkpoint lock as two goroutines see it: the
// command's, which takes it and releases it at the end, and the signal
// handler's, which releases it before it ends the process early.
type heldLock struct {
	mu sync.Mutex
	l  *ckptLock
}

func (h *heldLock) set(l *ckptLock) {
	h.mu.Lock()
	h.l = l
	h.mu.Unlock()
}

// Release releases the lock held, if any; it may be called again.
func (h *heldLock) Release() {
	h.mu.Lock()
	h.l.Release()
	h.l = nil
	h.mu.Unlock()
}

// lockFile creates (or opens) the lock file at path and takes an exclusive
// flock on it without waiting; it then writes who holds it. A lock file
// that its holder removed while this process waited to open it is opened
// again, so that two runs never hold locks on different files of one name.
func lockFile(path, command string) (*ckptLock, error) {
	for range 10 {
		if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
			return nil, Usagef("--checkpoint: the lock file %s is %s; remove it", path, FileKind(st.Mode()))
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return nil, Usagef("--checkpoint: the lock file: %v", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			holder := readHolder(f)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, Usagef("--checkpoint %s: another run holds it (%s; lock file %s): give this run another checkpoint file, or wait for that one to end",
					strings.TrimSuffix(path, lockSuffix), holder, path)
			}
			return nil, Usagef("--checkpoint: locking %s: %v", path, err)
		}
		// The holder before us may have removed the file after we opened it.
		st1, err1 := f.Stat()
		st2, err2 := os.Lstat(path)
		if err1 != nil || err2 != nil || !os.SameFile(st1, st2) {
			f.Close()
			continue
		}
		host, _ := os.Hostname()
		info := fmt.Sprintf("pid %d on host %s since %s: %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339), command)
		if err := f.Truncate(0); err == nil {
			f.WriteAt([]byte(info), 0) // information only: a failure changes nothing
		}
		return &ckptLock{path: path, f: f}, nil
	}
	return nil, Usagef("--checkpoint: the lock file %s keeps being replaced", path)
}

// readHolder returns what the lock file f says about its holder.
func readHolder(f *os.File) string {
	b := make([]byte, 512)
	n, _ := f.ReadAt(b, 0)
	s := strings.TrimSpace(string(b[:n]))
	if s == "" {
		return "holder unknown"
	}
	return "held by " + s
}

// Release removes the lock file and ends the lock (removing it first, while
// the lock is held, so that no other run locks a file about to vanish); a
// file that is no longer the one locked (something renamed over it) stays.
// It is safe on a nil lock and to call twice.
func (l *ckptLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	st1, err1 := l.f.Stat()
	st2, err2 := os.Lstat(l.path)
	if err1 == nil && err2 == nil && os.SameFile(st1, st2) {
		os.Remove(l.path)
	}
	l.f.Close()
	l.f = nil
}
