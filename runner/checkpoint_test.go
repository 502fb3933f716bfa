package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/urfave/cli/v2"
)

// sampleCheckpoint returns a checkpoint with every field set.
func sampleCheckpoint(app string) *Checkpoint {
	return &Checkpoint{App: app, Build: "test", Instance: []byte{1, 2, 3}, Balancer: "rp",
		Options: map[string]string{"fast-init": "true", "queue-limit": "3"}, Budget: 500, MinBudget: 50, Seed: 7, Ranks: 3, World: "sim",
		Written: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Suspended: lb.Suspended{State: []byte("state"), Partial: []byte("partial"),
			Tasks: [][]byte{{9}, {0, 0}, bytes.Repeat([]byte{5}, 300)}, Nodes: 12345, Incumbent: -4, HasIncumbent: true}}
}

// TestCheckpointRoundTrip: a checkpoint survives its file's encoding.
func TestCheckpointRoundTrip(t *testing.T) {
	in := sampleCheckpoint("golomb")
	b, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var out Checkpoint
	if err := out.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, &out) {
		t.Fatalf("round trip:\n%+v\n%+v", in, &out)
	}
	s := &out.Suspended
	if s.Nodes != in.Nodes || len(s.Tasks) != 3 || !s.HasIncumbent || string(s.State) != "state" {
		t.Fatalf("Suspended: %+v", s)
	}
}

// TestCheckpointDamage: every truncation and every flipped byte of a
// checkpoint file is refused with the reason; so are trailing bytes,
// another format version and another file.
func TestCheckpointDamage(t *testing.T) {
	b, err := sampleCheckpoint("golomb").MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var c Checkpoint
	for n := 0; n < len(b); n++ {
		err := c.UnmarshalBinary(b[:n])
		if err == nil || !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("cut to %d of %d bytes: %v", n, len(b), err)
		}
	}
	for i := range b {
		d := bytes.Clone(b)
		d[i] ^= 0x20
		err := c.UnmarshalBinary(d)
		var want string
		switch {
		case i < len(checkpointMagic):
			want = "not a treelb checkpoint"
		case i < len(checkpointMagic)+4:
			want = "format version"
		case i < checkpointHeader:
			want = "" // the length: truncated or trailing bytes
		default:
			want = "checksum mismatch"
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("byte %d flipped: %v, want %q", i, err, want)
		}
	}
	if err := c.UnmarshalBinary(append(bytes.Clone(b), 0)); err == nil || !strings.Contains(err.Error(), "after the end") {
		t.Fatalf("a trailing byte: %v", err)
	}
}

// TestReadCheckpoint: reading refuses a missing file, damage and another
// command's checkpoint with a usage error (exit status 2) that names the
// file.
func TestReadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.ckpt")
	if err := WriteCheckpoint(path, sampleCheckpoint("fifteen")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(path, "fifteen"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	trunc := filepath.Join(dir, "t.ckpt")
	os.WriteFile(trunc, b[:len(b)/2], 0o644)
	for _, tc := range []struct{ path, app, want string }{
		{path, "golomb", "written by fifteen, not golomb"},
		{trunc, "fifteen", "checkpoint " + trunc + ": truncated"},
		{filepath.Join(dir, "none"), "fifteen", "no such file"},
	} {
		_, err := ReadCheckpoint(tc.path, tc.app)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s as %s: %v, want a usage error with %q", tc.path, tc.app, err, tc.want)
		}
	}
}

// crashAfter is a writer that ends the process after n bytes, as a crash
// in the middle of writing a checkpoint would.
type crashAfter struct {
	w io.Writer
	n int
}

func (c *crashAfter) Write(p []byte) (int, error) {
	if len(p) > c.n {
		c.w.Write(p[:c.n])
		os.Exit(7)
	}
	c.n -= len(p)
	return c.w.Write(p)
}

// TestCrashDuringWrite: a process that dies half-way through writing a new
// checkpoint leaves the old one whole and readable; its temporary file
// never takes the checkpoint's name, and the next write succeeds.
func TestCrashDuringWrite(t *testing.T) {
	if path := os.Getenv("TREELB_CRASH_WRITE"); path != "" {
		next := sampleCheckpoint("golomb")
		next.Nodes = 999
		b, _ := next.MarshalBinary()
		writeAtomic(path, b, 0, func(w io.Writer) io.Writer { return &crashAfter{w: w, n: len(b) / 2} })
		os.Exit(0) // not reached: the write crashes
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.ckpt")
	if err := WriteCheckpoint(path, sampleCheckpoint("golomb")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashDuringWrite$")
	cmd.Env = append(os.Environ(), "TREELB_CRASH_WRITE="+path)
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("the writer did not crash: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".c.ckpt.tmp-*"))
	if len(left) != 1 {
		t.Fatalf("temporary files after the crash: %v", left)
	}
	c, err := ReadCheckpoint(path, "golomb")
	if err != nil || c.Nodes != 12345 {
		t.Fatalf("the old checkpoint after a crash: %v, %+v", err, c)
	}
	next := sampleCheckpoint("golomb")
	next.Nodes = 1000
	if err := WriteCheckpoint(path, next); err != nil {
		t.Fatal(err)
	}
	if c, err = ReadCheckpoint(path, "golomb"); err != nil || c.Nodes != 1000 {
		t.Fatalf("the next checkpoint: %v, %+v", err, c)
	}
}

// TestWriteFails: a write that fails (a directory that is not there) says
// so and leaves nothing behind.
func TestWriteFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "c.ckpt")
	if err := WriteCheckpoint(path, sampleCheckpoint("golomb")); err == nil {
		t.Fatal("wrote into a missing directory")
	}
}

// FuzzCheckpoint feeds the checkpoint reader arbitrary files, and arbitrary
// payloads in a well-formed envelope (right length and checksum), so that
// the payload's decoder is fuzzed too: no input panics, and what decodes
// encodes back to a checkpoint that decodes alike.
func FuzzCheckpoint(f *testing.F) {
	good, _ := sampleCheckpoint("golomb").MarshalBinary()
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add(good[checkpointHeader : len(good)-32])
	f.Add([]byte(checkpointMagic))
	// Issue 23's crafted file: a length field of 2⁶⁴ − 32 in 20 bytes.
	f.Add(binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint32([]byte(checkpointMagic), checkpointVersion), 1<<64-32))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Checkpoint
		if c.UnmarshalBinary(b) == nil {
			roundTrip(t, &c)
		}
		// The same bytes as the payload of a well-formed file.
		env := binary.LittleEndian.AppendUint32([]byte(checkpointMagic), checkpointVersion)
		env = binary.LittleEndian.AppendUint64(env, uint64(len(b)))
		env = append(env, b...)
		sum := sha256.Sum256(env)
		env = append(env, sum[:]...)
		if err := c.UnmarshalBinary(env); err == nil {
			roundTrip(t, &c)
		} else if strings.Contains(err.Error(), "checksum") || strings.Contains(err.Error(), "truncated") {
			t.Fatalf("a well-formed envelope: %v", err)
		}
	})
}

func roundTrip(t *testing.T, c *Checkpoint) {
	t.Helper()
	b, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d Checkpoint
	if err := d.UnmarshalBinary(b); err != nil {
		t.Fatalf("a decoded checkpoint does not decode again: %v", err)
	}
	if d.Nodes != c.Nodes || d.App != c.App || len(d.Tasks) != len(c.Tasks) {
		t.Fatalf("round trip: %+v, %+v", c, &d)
	}
}

// TestResumeHint: the line a checkpointed run prints to resume it names
// the bare command outside MPI, and under a launcher the launcher's words
// and the binary's path as it was started (the bare command would be the
// embedded build), the subcommand kept.
func TestResumeHint(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	var got []string
	app := &cli.App{Name: "integrate", Commands: []*cli.Command{{Name: "func", Action: func(c *cli.Context) error {
		for _, tc := range []struct {
			world string
			env   map[string]string
		}{
			{"embedded", nil},
			{"mpi", map[string]string{"OMPI_COMM_WORLD_SIZE": "4", "OMPI_COMM_WORLD_RANK": "0"}},
			{"mpi", map[string]string{"SLURM_STEP_NUM_TASKS": "8", "SLURM_PROCID": "0", "SLURM_MPI_TYPE": "pmi2"}},
			{"mpi", nil}, // a singleton
		} {
			got = append(got, resumeHint(c, tc.world, "bin/openmpi/integrate", env(tc.env), "x.ckpt"))
		}
		return nil
	}}}}
	if err := app.Run([]string{"integrate", "func"}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"integrate func --restart x.ckpt",
		"mpirun -np 4 bin/openmpi/integrate func --restart x.ckpt",
		"srun --mpi=pmi2 -n 8 bin/openmpi/integrate func --restart x.ckpt",
		"integrate func --restart x.ckpt",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
