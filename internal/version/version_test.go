package version

import (
	"strings"
	"testing"

	"github.com/treelb/treelb/mpi"
)

func TestString(t *testing.T) {
	s := Get().String()
	lines := strings.Split(s, "\n")
	if len(lines) < 5 || lines[0] != "treelb "+Version || !strings.HasPrefix(lines[1], "go: go") {
		t.Fatalf("--version text:\n%s", s)
	}
	for _, want := range []string{"\nworld: " + mpi.Implementation() + "\n", "\nmpi library: " + mpi.LibraryVersion()[:min(5, len(mpi.LibraryVersion()))]} {
		if !strings.Contains(s, want) {
			t.Errorf("--version text does not say %q:\n%s", want, s)
		}
	}
}

func TestMultiLineLibrary(t *testing.T) {
	in := Info{Version: "v", Go: "go", Tags: "mpi,mpich", World: "mpich", MPI: "MPICH Version: 4\nMPICH Device: ch4\n"}
	want := "treelb v\ngo: go\ntags: mpi,mpich\nworld: mpich\nmpi library: MPICH Version: 4\n  MPICH Device: ch4"
	if got := in.String(); got != want {
		t.Fatalf("String() =\n%s\nwant\n%s", got, want)
	}
}
