package version

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/treelb/treelb/mpi"
)

func TestString(t *testing.T) {
	s := Get().String()
	lines := strings.Split(s, "\n")
	if len(lines) < 6 || lines[0] != "treelb "+Version || !strings.HasPrefix(lines[1], "commit: ") || !strings.HasPrefix(lines[2], "go: go") {
		t.Fatalf("--version text:\n%s", s)
	}
	for _, want := range []string{"\nworld: " + mpi.Implementation() + "\n", "\nmpi library: " + mpi.LibraryVersion()[:min(5, len(mpi.LibraryVersion()))]} {
		if !strings.Contains(s, want) {
			t.Errorf("--version text does not say %q:\n%s", want, s)
		}
	}
}

func TestMultiLineLibrary(t *testing.T) {
	in := Info{Version: "v", Commit: "abc", Go: "go", Tags: "mpi,mpich", World: "mpich", MPI: "MPICH Version: 4\nMPICH Device: ch4\n"}
	want := "treelb v\ncommit: abc\ngo: go\ntags: mpi,mpich\nworld: mpich\nmpi library: MPICH Version: 4\n  MPICH Device: ch4"
	if got := in.String(); got != want {
		t.Fatalf("String() =\n%s\nwant\n%s", got, want)
	}
	if p := in.Provenance("mpi"); p.MPILibrary != "MPICH Version: 4" || p.MPI != "mpich" || p.World != "mpi" {
		t.Errorf("provenance %+v: want the library's first line, mpich, world mpi", p)
	}
}

// TestFromBuildInfo reads the VCS settings the Go toolchain stamps.
func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "-tags", Value: "mpi"}, {Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}}}
	in := FromBuildInfo(bi)
	if in.Commit != "0123456789abcdef0123456789abcdef01234567" || !in.Modified || in.Tags != "mpi" || in.Version != Version {
		t.Errorf("FromBuildInfo = %+v", in)
	}
	if got, want := in.CommitLine(), "0123456789abcdef0123456789abcdef01234567 (modified) 2026-01-02T03:04:05Z"; got != want {
		t.Errorf("commit line %q, want %q", got, want)
	}
	p := in.Provenance("")
	if p.Commit != in.Commit || !p.Modified || p.World != "none" || p.Cores != runtime.NumCPU() || p.GOMAXPROCS != runtime.GOMAXPROCS(0) ||
		p.Host == "" || p.CPU == "" || p.Load == "" || p.Go != in.Go {
		t.Errorf("provenance %+v", p)
	}
	for _, b := range []*debug.BuildInfo{nil, {Main: debug.Module{Version: "v1.2.3"}}} {
		in := FromBuildInfo(b)
		if in.Commit != Unknown || in.Modified || !strings.HasPrefix(in.CommitLine(), Unknown+" (no VCS stamp") {
			t.Errorf("no VCS settings: %+v, %q", in, in.CommitLine())
		}
	}
	if in := FromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}); in.Version != Version+" (module v1.2.3)" {
		t.Errorf("module version: %q", in.Version)
	}
}

// TestVersionShowsCommit builds a command with `go build`, as a user
// does, in a fresh git repository holding a copy of this working tree
// committed, and checks that --version names that commit, stamped by the
// toolchain (not by hand). It skips where there is no git or no repository
// to copy from (a copy without .git), and under -short.
func TestVersionShowsCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("copies the tree into a new repository and builds a command")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git repository")
	}
	root := strings.TrimSpace(string(top))
	files, err := exec.Command(git, "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitIn := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(git, append([]string{"-C", dir, "-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitIn("init", "--quiet")
	gitIn("add", "--all")
	gitIn("commit", "--quiet", "--no-verify", "-m", "the tree under test")
	head := gitIn("rev-parse", "HEAD")
	bin := filepath.Join(t.TempDir(), "golomb")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./apps/golomb")
	build.Dir = dir
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in a git repository: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "\ncommit: " + head + " "; !strings.Contains(string(out), want) || strings.Contains(string(out), "(modified)") {
		t.Errorf("--version of a build of a clean repository:\n%s\nwant %q, not modified", out, want)
	}
}

// TestProvenanceColumns: the CSV columns are the JSON fields, in order,
// prefixed provenance. (as the campaign runner flattens them).
func TestProvenanceColumns(t *testing.T) {
	names, values := Collect("sim").Columns()
	ty := reflect.TypeOf(Provenance{})
	if len(names) != ty.NumField() || len(values) != len(names) {
		t.Fatalf("%d names, %d values, %d fields", len(names), len(values), ty.NumField())
	}
	for i := range ty.NumField() {
		if want := "provenance." + ty.Field(i).Tag.Get("json"); names[i] != want {
			t.Errorf("column %d is %q, want %q", i, names[i], want)
		}
	}
}
