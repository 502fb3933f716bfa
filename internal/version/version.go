// Package version says what a treelb binary is: the project's version, the
// Go toolchain, the build tags and the MPI library it was built with. Every
// command prints it for --version.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/treelb/treelb/mpi"
)

// Version is treelb's version.
const Version = "0.1.0-dev"

// Info is what String prints. The zero value is an unknown build.
type Info struct {
	Version string // Version, with the module's version when it has one
	Go      string // the toolchain, e.g. "go1.26.0 linux/amd64"
	Tags    string // the build tags, comma-separated; "none" without tags
	World   string // mpi.Implementation(): embedded, openmpi, mpich, intel-mpi, …
	MPI     string // mpi.LibraryVersion()
}

// Get returns the running binary's Info. It calls mpi.LibraryVersion, so
// under MPI call it before the world starts or from the rank function.
func Get() Info {
	in := Info{Version: Version, Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Tags: "none", World: mpi.Implementation(), MPI: mpi.LibraryVersion()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		in.Version += " (module " + v + ")"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "-tags":
			if s.Value != "" {
				in.Tags = s.Value
			}
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		in.Version += fmt.Sprintf(" (revision %.12s%s)", rev, dirty)
	}
	return in
}

// String is the text of --version, one "key: value" line each after the
// first: the version, go, tags, world and mpi library (continuation lines
// of a multi-line library string indented by two spaces). Scripts read the
// world line to choose srun's --mpi plugin.
func (in Info) String() string {
	lib := strings.ReplaceAll(strings.TrimSpace(in.MPI), "\n", "\n  ")
	return fmt.Sprintf("treelb %s\ngo: %s\ntags: %s\nworld: %s\nmpi library: %s", in.Version, in.Go, in.Tags, in.World, lib)
}
