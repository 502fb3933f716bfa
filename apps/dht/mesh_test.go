package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/mpi"
)

func TestMesh(t *testing.T) {
	dir := t.TempDir()
	out, err := run("mesh", "--max-p", "16", "--rounds", "2", "--alloc", "block,modular", "--out", dir)
	if err != nil || !strings.Contains(out, "modular") || !strings.Contains(out, "cut-through") {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, f := range []string{"mesh-cut-through.csv", "mesh-cut-through.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	checkStamped(t, filepath.Join(dir, "mesh-cut-through.csv"))
	out, err = run("mesh", "--max-p", "64", "-Q", "3", "--store-forward", "--machine", "cluster", "--hop-ns", "100", "--json")
	var r meshReport
	if err != nil || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Points) != 3 || r.Machine != "cluster" {
		t.Fatalf("%d points on %q:\n%s", len(r.Points), r.Machine, out)
	}
	for _, pt := range r.Points {
		if pt.Q != 3 || pt.Routing != "store-forward" || pt.HopNS != 100 || pt.ByteNS != 0.08 || pt.Dispatch <= 0 {
			t.Errorf("%+v", pt)
		}
	}
	if out, err := run("mesh", "--machine", "help"); err != nil || !strings.Contains(out, "gcel") {
		t.Errorf("--machine help: %v\n%s", err, out)
	}
}

func TestMeshBadInput(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--alloc", "cyclic"}, {"--alloc", "block,"}, {"--max-p", "2"}, {"--max-p", "1000000"}, {"--rounds", "0"},
		{"--byte-ns", "-1"}, {"--hop-ns", "NaN"}, {"--machine", "cray"}, {"-Q", "-1"}, {"--bytes", "0"}, {"--beta", "0"},
		{"surplus"}, {"-Q", "1000000", "--max-p", "4096"}, {"--workers", "9223372036854775807"},
		{"--out", notDir + "/x"}, // a directory under a regular file: refused before the simulation
	} {
		out, err := run(append([]string{"mesh"}, args...)...)
		var ec mpi.ExitCoder
		if !errors.As(err, &ec) || ec.ExitCode() != 2 {
			t.Errorf("%q: %v, want exit code 2", args, err)
		} else if flag := firstFlag(args); flag != "" && mpi.WorldName == "embedded" && !strings.Contains(out, flag) {
			// (Under mpirun only the task the launcher numbers 0 prints it.)
			t.Errorf("%q: %q: want the message to name %s", args, out, flag)
		}
	}
}
