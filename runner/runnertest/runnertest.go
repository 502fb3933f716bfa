package runnertest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	code = exitCode(t, cmd.Run(), bin, args) // before reading what it printed
	return o.String(), e.String(), code
}

// exitCode returns the exit status that err of running bin with args
// tells, 0 for nil; it fails t when bin could not be run.
func exitCode(t testing.TB, err error, bin string, args []string) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	return 0
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

// Interrupt starts bin with args, sends it sig after the given time, and
// returns what it printed and its exit status once it ends (-1 when a
// signal ended it). It fails t when bin cannot be started.
//
// When args name --checkpoint FILE, the time counts from the moment the
// command holds FILE's lock (it catches the checkpoint signals from then
// on), or from its end: on a loaded machine the start-up of a process can
// take longer than the time, and a signal before the command listens is
// not the case under test.
func Interrupt(t testing.TB, bin string, after time.Duration, sig os.Signal, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s %s: %v", filepath.Base(bin), strings.Join(args, " "), err)
	}
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	if file := flagValue(args, "--checkpoint"); file != "" {
		for {
			if _, err := os.Stat(file + ".lock"); err == nil {
				break
			}
			select {
			case err := <-ended:
				ended <- err
			case <-time.After(5 * time.Millisecond):
				continue
			}
			break
		}
	}
	select {
	case err := <-ended:
		ended <- err
	case <-time.After(after):
		cmd.Process.Signal(sig)
	}
	code = exitCode(t, <-ended, bin, args) // before reading what it printed
	return o.String(), e.String(), code
}

// flagValue is the value of the flag name in args ("--name v" or
// "--name=v"), or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// ProvenanceFields are the members of the "provenance" object that every
// JSON record of a command carries (version.Provenance).
var ProvenanceFields = []string{"version", "commit", "modified", "go", "host", "cpu", "cores", "gomaxprocs", "world", "mpi", "mpi_library", "load"}

// CheckProvenance fails t unless every line of out is a JSON object whose
// last member is "provenance", an object with every one of
// ProvenanceFields, non-empty where it is text, at least one core and
// GOMAXPROCS, and world (when not empty) as given.
func CheckProvenance(t testing.TB, out, world string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("no JSON record in %q", out)
	}
	for _, line := range lines {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not a JSON object: %v: %s", err, line)
		}
		raw, ok := rec["provenance"]
		if !ok || !strings.HasSuffix(strings.TrimSpace(line), string(raw)+"}") {
			t.Fatalf("no provenance as the last member of %s", line)
		}
		var p map[string]any
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("provenance: %v: %s", err, raw)
		}
		for _, f := range ProvenanceFields {
			v, ok := p[f]
			switch x := v.(type) {
			case string:
				ok = ok && x != ""
			case float64:
				ok = ok && x >= 1
			case bool:
			default:
				ok = false
			}
			if !ok {
				t.Errorf("provenance.%s = %v (%T) in %s", f, v, v, raw)
			}
		}
		if world != "" && p["world"] != world {
			t.Errorf("provenance.world = %v, want %s", p["world"], world)
		}
	}
}

// ReadCSV returns the records of the CSV file at path, header first. It
// fails t when the file cannot be read or parsed, or holds no row but the
// header.
func ReadCSV(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %v, %d rows", path, err, len(rows))
	}
	return rows
}
