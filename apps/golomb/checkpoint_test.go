package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

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

// TestCheckpointEvery: periodic checkpoints suspend and resume the search
// in the same run many times (--checkpoint-every 1ms), and the count is
// the sequential one with exactly its nodes; the file is left behind, and
// a restart from it with another instance is refused. The scenario of a
// signal and restarts on other ranks and worlds is runner's
// (TestCheckpointScenario, on a fake app); TestInvariant restarts golomb's
// own checkpoints from world to world.
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
	for _, other := range [][]string{{"9"}, {"10", "--count", "61"}, {"10"}} {
		runnertest.Refuses(t, bin, "another instance", append([]string{"--restart", file}, other...)...)
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
