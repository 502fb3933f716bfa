// Package cmdtest builds a command and runs it, for the tests of the
// commands built on package cmdutil: their exit status and what they print
// on stdout and stderr.
package cmdtest

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Build builds the command in the current directory (the package under
// test) and returns the path of the binary, in a temporary directory. It
// skips t under -short and when there is no go command.
func Build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	bin := filepath.Join(t.TempDir(), "cmd")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Run runs bin with args and returns what it printed and its exit status.
// It fails t when bin cannot be run.
func Run(t testing.TB, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return RunStdin(t, bin, "", args...)
}

// RunStdin is Run with stdin as the program's standard input.
func RunStdin(t testing.TB, bin, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return o.String(), e.String(), code
}

// Refuses fails t unless bin with args exits with status 2 (bad usage or
// input) and says want on stderr.
func Refuses(t testing.TB, bin, want string, args ...string) {
	t.Helper()
	_, stderr, code := Run(t, bin, args...)
	if code != 2 || !strings.Contains(stderr, want) {
		t.Fatalf("%s %q: exit %d, %q; want 2 and %q", filepath.Base(bin), args, code, stderr, want)
	}
}
