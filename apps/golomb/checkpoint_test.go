package main

import (
	"bytes"
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

// TestCheckpointEarlySignal: a SIGUSR1 that came while the command was
// still starting, before it parsed --checkpoint (Main keeps it on the
// channel under metaEarlySignal; here it is put there by hand), is a
// checkpoint request like a later one: the run ends with status 3 and a
// checkpoint that restarts to the uninterrupted count, not with status 0
// as if nothing had been asked.
func TestCheckpointEarlySignal(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "early.ckpt")
	args := []string{"golomb", "9", "--count", "50", "--json", "--np", "2", "-q"}
	run := func(early chan os.Signal, args ...string) (int, string, string) {
		app := newApp()
		var out, errOut bytes.Buffer
		app.Writer, app.ErrWriter = &out, &errOut
		if early != nil {
			app.Metadata = map[string]any{runner.MetaEarlySignal: early}
		}
		return runner.Execute(app, args), out.String(), errOut.String()
	}
	code, seq, errOut := run(nil, append(args, "-b", "seq")...)
	if code != 0 {
		t.Fatalf("seq: exit %d: %s", code, errOut)
	}
	early := make(chan os.Signal, 1)
	early <- syscall.SIGUSR1
	if code, _, errOut := run(early, append(args, "--checkpoint", file)...); code != runner.ExitCheckpointed {
		t.Fatalf("SIGUSR1 before the start: exit %d, want %d; stderr %s", code, runner.ExitCheckpointed, errOut)
	}
	code, got, errOut := run(nil, "golomb", "--restart", file, "--json")
	if code != 0 {
		t.Fatalf("restart: exit %d: %s", code, errOut)
	}
	var a, b countRun
	if err := json.Unmarshal([]byte(seq), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &b); err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("restart after an early SIGUSR1: %+v, sequential %+v", b, a)
	}
}
