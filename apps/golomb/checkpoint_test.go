package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/runner/runnertest"
)

// countRun is what a --count run prints: the count's own nodes and
// certificate, the same on every run.
type countRun struct {
	Rulers      int64
	Nodes       int64
	Certificate string
}

// TestCheckpointSignal runs a count on 3 goroutine ranks with --checkpoint,
// sends it SIGUSR1 (Slurm's --signal=B:USR1), and restarts it from the file
// alone on 7 goroutine ranks and on 5 simulated ranks: the run exits with
// status 3 and says how to resume, and the restarts find the sequential
// count with exactly its nodes. Damaged and mismatched files are exit 2.
func TestCheckpointSignal(t *testing.T) {
	bin := runnertest.Build(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "g.ckpt")
	args := []string{"11", "--count", "78", "--json"}
	decode := func(what, stdout string) countRun {
		t.Helper()
		var c countRun
		if err := json.Unmarshal([]byte(stdout), &c); err != nil {
			t.Fatalf("%s: %v: %q", what, err, stdout)
		}
		return c
	}
	stdout, stderr, code := runnertest.Run(t, bin, append(args, "-b", "seq")...)
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, stderr)
	}
	want := decode("seq", stdout)

	out, errOut, code := runnertest.Interrupt(t, bin, 300*time.Millisecond, syscall.SIGUSR1, append(args, "--np", "3", "--checkpoint", file)...)
	if code != runner.ExitCheckpointed {
		t.Fatalf("after SIGUSR1: exit %d, want %d; stderr %s", code, runner.ExitCheckpointed, errOut)
	}
	if !strings.Contains(errOut, "resume with: golomb --restart "+file) || out != "" {
		t.Fatalf("after SIGUSR1: stdout %q, stderr %q", out, errOut)
	}
	for _, extra := range [][]string{{"--np", "7"}, {"--world", "sim", "--np", "5"}} {
		stdout, stderr, code := runnertest.Run(t, bin, append([]string{"--restart", file, "--json"}, extra...)...)
		if code != 0 {
			t.Fatalf("restart %q: exit %d: %s", extra, code, stderr)
		}
		got := decode("restart", stdout)
		if got != want || want.Certificate == "" {
			t.Fatalf("restart %q: %+v, sequential %+v", extra, got, want)
		}
	}

	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.ckpt")
	os.WriteFile(cut, b[:len(b)-10], 0o644)
	bad := filepath.Join(dir, "bad.ckpt")
	b[len(b)/2] ^= 1
	os.WriteFile(bad, b, 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--restart", cut}, "truncated"},
		{[]string{"--restart", bad}, "checksum mismatch"},
		{[]string{"--restart", file, "10"}, "another instance"},
		{[]string{"--restart", file, "-b", "seq"}, "only searches with a balancer"},
		{[]string{"11", "--checkpoint-every", "1s"}, "needs --checkpoint"},
	} {
		runnertest.Refuses(t, bin, tc.want, tc.args...)
	}
}

// TestCheckpointEvery: periodic checkpoints suspend and resume the search
// in the same run many times (--checkpoint-every 1ms), and the count is
// the sequential one with exactly its nodes; the file is left behind.
func TestCheckpointEvery(t *testing.T) {
	bin := runnertest.Build(t)
	file := filepath.Join(t.TempDir(), "g.ckpt")
	args := []string{"10", "--count", "60", "--json", "-q"}
	stdout, _, _ := runnertest.Run(t, bin, append(args, "-b", "seq")...)
	var want, got countRun
	json.Unmarshal([]byte(stdout), &want)
	for _, world := range []string{"embedded", "sim"} {
		stdout, stderr, code := runnertest.Run(t, bin, append(args, "--world", world, "--np", "4", "--checkpoint", file, "--checkpoint-every", "1ms")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", world, code, stderr)
		}
		if err := json.Unmarshal([]byte(stdout), &got); err != nil {
			t.Fatal(err)
		}
		if got != want || want.Rulers == 0 || want.Certificate == "" {
			t.Fatalf("%s: %+v, sequential %+v", world, got, want)
		}
		if _, err := runner.ReadCheckpoint(file, "golomb"); err != nil {
			t.Fatalf("%s: %v", world, err)
		}
	}
}
