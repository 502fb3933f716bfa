//go:build !mpi && unix

package mpi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mpiImpl is an MPI implementation the MPI world can be built against.
type mpiImpl struct {
	name, tags, pkgConfig, mpirun string
	mpirunArgs                    []string
}

var mpiImpls = []mpiImpl{
	{"openmpi", "mpi", "ompi-c", "mpirun.openmpi", []string{"--allow-run-as-root", "--oversubscribe"}},
	{"mpich", "mpi,mpich", "mpich", "mpirun.mpich", nil},
}

// TestAbortUnderMpirun builds mpi/internal/aborttest for each MPI
// implementation and runs it under real mpirun -np 3: when rank 1 fails
// (error, panic or Abort(7)) while ranks 0 and 2 wait for a message that
// never comes, the job must end with a non-zero status, not hang; when all
// ranks return with requests in flight, it must end with status 0. It also
// runs the embedded build of the same program. An implementation whose
// mpirun or pkg-config file is missing is skipped; the environment variable
// TREELB_MPI_IMPLS (e.g. "mpich") restricts the implementations tried.
func TestAbortUnderMpirun(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build mpi/internal/aborttest")
	}
	build := func(t *testing.T, tags string) string {
		bin := filepath.Join(t.TempDir(), "aborttest")
		// The program is behind a tag of its own, so that go install ./...
		// leaves it out.
		tags = strings.TrimPrefix(tags+",aborttest", ",")
		args := []string{"build", "-o", bin, "-tags", tags}
		out, err := exec.Command(goTool, append(args, "./internal/aborttest")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go build -tags %q ./internal/aborttest: %v\n%s", tags, err, out)
		}
		return bin
	}
	t.Run("embedded", func(t *testing.T) {
		bin := build(t, "")
		for _, mode := range abortModes {
			runAbortTest(t, mode, bin, "-np", "3")
		}
	})
	only := strings.Fields(os.Getenv("TREELB_MPI_IMPLS"))
	for _, impl := range mpiImpls {
		t.Run(impl.name, func(t *testing.T) {
			if len(only) > 0 && !slices.Contains(only, impl.name) {
				t.Skipf("%s not in TREELB_MPI_IMPLS=%q", impl.name, only)
			}
			mpirun, err := exec.LookPath(impl.mpirun)
			if err != nil {
				t.Skipf("SKIPPED: %s is not on PATH (apt-get install libopenmpi-dev openmpi-bin libmpich-dev mpich)", impl.mpirun)
			}
			if err := exec.Command("pkg-config", "--exists", impl.pkgConfig).Run(); err != nil {
				t.Skipf("SKIPPED: pkg-config finds no %s (%v)", impl.pkgConfig, err)
			}
			if why := noCgo(goTool); why != "" {
				t.Skipf("SKIPPED: the MPI build needs cgo: %s", why)
			}
			bin := build(t, impl.tags)
			for _, mode := range append(abortModes, "late", "stall") {
				runAbortTest(t, mode, mpirun, append(slices.Clone(impl.mpirunArgs), "-np", "3", bin)...)
			}
		})
	}
}

// noCgo says why goTool cannot build cgo code (CGO_ENABLED is not 1, or
// its C compiler is missing), "" when it can.
func noCgo(goTool string) string {
	out, err := exec.Command(goTool, "env", "CGO_ENABLED", "CC").Output()
	if err != nil {
		return fmt.Sprintf("go env: %v", err)
	}
	env := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(env) != 2 || env[0] != "1" {
		return "CGO_ENABLED is not 1"
	}
	if cc := strings.Fields(env[1]); len(cc) == 0 {
		return "no C compiler (go env CC is empty)"
	} else if _, err := exec.LookPath(cc[0]); err != nil {
		return fmt.Sprintf("no C compiler (%v)", err)
	}
	return ""
}

var abortModes = []string{"error", "panic", "abort", "pending"}

// stallStatus is lb/driver's ExitStall (75), which package mpi cannot
// import: the status of mode stall.
const stallStatus = 75

// runAbortTest runs one job and checks that it ends: with a non-zero status
// when a rank failed, with 0 in mode pending.
func runAbortTest(t *testing.T, mode, name string, args ...string) {
	t.Helper()
	const limit = 60 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	args = append(args, "-mode", mode)
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Kill mpirun and every rank it started if the job hangs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mode %s: %s %v hung for %v\n%s", mode, name, args, limit, out.String())
	}
	if mode == "pending" {
		if err != nil {
			t.Fatalf("mode %s: %s %v: %v, want success\n%s", mode, name, args, err, out.String())
		}
		t.Logf("mode %s: exit status 0 after %v", mode, time.Since(start).Round(time.Millisecond))
		return
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() == 0 {
		t.Fatalf("mode %s: %s %v: %v, want a non-zero exit status\n%s", mode, name, args, err, out.String())
	}
	if mode == "late" {
		if !strings.Contains(out.String(), "have not started after 3s: rank 1 (--startup-timeout)") {
			t.Errorf("mode late: output does not name rank 1 as missing:\n%s", out.String())
		}
	} else if mode == "stall" {
		// Ranks 0 and 2 wait in the barrier; the exit status is theirs.
		if ee.ExitCode() != stallStatus || !strings.Contains(out.String(), "in the barrier that starts a search, for a rank that does not come") {
			t.Errorf("mode stall: exit status %d, want %d and the watchdog's message:\n%s", ee.ExitCode(), stallStatus, out.String())
		}
	} else if mode != "abort" && !strings.Contains(out.String(), "rank 1: ") {
		t.Errorf("mode %s: output does not name rank 1's failure:\n%s", mode, out.String())
	}
	t.Logf("mode %s: exit status %d after %v", mode, ee.ExitCode(), time.Since(start).Round(time.Millisecond))
}
