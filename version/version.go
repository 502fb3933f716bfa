// Package version says what a treelb binary is and where it runs: the
// project's version, the VCS commit it was built from (stamped by the Go
// toolchain, read with runtime/debug.ReadBuildInfo), the Go toolchain, the
// build tags and the MPI library it was built with (Info, which every
// command prints for --version), and the provenance of a measurement
// (Provenance: the build, the machine, the world and the load), which every
// JSON record and campaign CSV row carries.
//
// The commit is never written by hand: `go build` stamps it (vcs.revision,
// vcs.modified) when it builds inside a git clone with the git command
// available. Builds that carry none say "unknown": go run and go test
// binaries, a copy of the tree without .git, a linked git worktree (Go
// only recognises a .git directory, golang/go#58218), and builds with
// -buildvcs=false.
package version

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/treelb/treelb/mpi"
)

// Version is treelb's version.
const Version = "0.1.0-dev"

// Unknown is the commit of a build without VCS information.
const Unknown = "unknown"

// Info is what String prints. The zero value is an unknown build.
type Info struct {
	Version  string // Version, with the module's version when it has one
	Commit   string // the VCS revision the binary was built from, Unknown without one
	Modified bool   // the work tree had uncommitted changes when it was built
	Time     string // the commit's time (vcs.time), "" without one
	Go       string // the toolchain, e.g. "go1.26.0 linux/amd64"
	Tags     string // the build tags, comma-separated; "none" without tags
	World    string // mpi.Implementation(): embedded, openmpi, mpich, intel-mpi, …
	MPI      string // mpi.LibraryVersion()
}

// Get returns the running binary's Info. It calls mpi.LibraryVersion, so
// under MPI call it before the world starts or from the rank function.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	in := FromBuildInfo(bi)
	in.World, in.MPI = mpi.Implementation(), mpi.LibraryVersion()
	return in
}

// FromBuildInfo returns the Info of a build described by bi (nil: no build
// information) without the MPI library's name and version, which only the
// running binary can tell (it reads them from the library it loads): the
// version, the VCS settings, the toolchain and the tags.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	in := Info{Version: Version, Commit: Unknown, Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Tags: "none"}
	if bi == nil {
		return in
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		in.Version += " (module " + v + ")"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "-tags":
			if s.Value != "" {
				in.Tags = s.Value
			}
		case "vcs.revision":
			if s.Value != "" {
				in.Commit = s.Value
			}
		case "vcs.modified":
			in.Modified = s.Value == "true"
		case "vcs.time":
			in.Time = s.Value
		}
	}
	return in
}

// CommitLine returns the commit as --version prints it: the revision,
// "(modified)" when the tree had changes, and its time; or why there is
// none.
func (in Info) CommitLine() string {
	if in.Commit == Unknown || in.Commit == "" {
		return Unknown + " (no VCS stamp: built by go run or go test, in a linked git worktree, from a tree without .git, or with -buildvcs=false)"
	}
	s := in.Commit
	if in.Modified {
		s += " (modified)"
	}
	if in.Time != "" {
		s += " " + in.Time
	}
	return s
}

// String is the text of --version, one "key: value" line each after the
// first: the version, commit, go, tags, world and mpi library
// (continuation lines of a multi-line library string indented by two
// spaces). Scripts read the world line to choose srun's --mpi plugin.
func (in Info) String() string {
	lib := strings.ReplaceAll(strings.TrimSpace(in.MPI), "\n", "\n  ")
	return fmt.Sprintf("treelb %s\ncommit: %s\ngo: %s\ntags: %s\nworld: %s\nmpi library: %s",
		in.Version, in.CommitLine(), in.Go, in.Tags, in.World, lib)
}

// Provenance says what measured a record and where: the build (version,
// commit, whether the tree was modified, Go), the machine (host name, CPU
// model, usable cores, GOMAXPROCS), the world the run used, the MPI
// library and its version, and the load average when the record was made.
// Under MPI it is rank 0's: the host and load of the node that printed.
type Provenance struct {
	Version    string `json:"version"`
	Commit     string `json:"commit"`   // Unknown when the build carries none
	Modified   bool   `json:"modified"` // the tree had uncommitted changes
	Go         string `json:"go"`
	Host       string `json:"host"`
	CPU        string `json:"cpu"`        // the model name of /proc/cpuinfo, else GOARCH
	Cores      int    `json:"cores"`      // runtime.NumCPU: the CPUs this process may use
	GOMAXPROCS int    `json:"gomaxprocs"` // runtime.GOMAXPROCS(0)
	World      string `json:"world"`      // embedded, mpi or sim; "none" for output of no run
	MPI        string `json:"mpi"`        // the MPI library it runs with (mpi.Implementation()): embedded, openmpi, mpich, …
	MPILibrary string `json:"mpi_library"`
	Load       string `json:"load"` // the 1-, 5- and 15-minute load averages of /proc/loadavg, "unknown" without
}

// Columns returns the provenance as CSV columns, named as the campaign
// runner's flattened JSON names them (provenance.version, …,
// provenance.load), with their values, in the same order.
func (p Provenance) Columns() (names, values []string) {
	names = []string{"provenance.version", "provenance.commit", "provenance.modified", "provenance.go",
		"provenance.host", "provenance.cpu", "provenance.cores", "provenance.gomaxprocs", "provenance.world",
		"provenance.mpi", "provenance.mpi_library", "provenance.load"}
	values = []string{p.Version, p.Commit, fmt.Sprint(p.Modified), p.Go, p.Host, p.CPU, fmt.Sprint(p.Cores),
		fmt.Sprint(p.GOMAXPROCS), p.World, p.MPI, p.MPILibrary, p.Load}
	return names, values
}

// Collect returns the provenance of a record of this process made now, for
// a run in world ("" for output that no run made: "none"). Like Get, call
// it under MPI from the rank function (or before the world starts).
func Collect(world string) Provenance {
	return Get().Provenance(world)
}

// Provenance returns the provenance of a record made now by this build in
// world ("": "none").
func (in Info) Provenance(world string) Provenance {
	host, err := os.Hostname()
	if err != nil {
		host = Unknown
	}
	if world == "" {
		world = "none"
	}
	lib, _, _ := strings.Cut(strings.TrimSpace(in.MPI), "\n")
	return Provenance{Version: in.Version, Commit: in.Commit, Modified: in.Modified, Go: in.Go, Host: host, CPU: CPUModel(),
		Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), World: world, MPI: in.World, MPILibrary: strings.TrimSpace(lib),
		Load: LoadAvg()}
}

// CPUModel returns the model name of the first processor in /proc/cpuinfo,
// or the architecture (GOARCH) where there is none.
func CPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for line := range strings.Lines(string(b)) {
			k, v, ok := strings.Cut(line, ":")
			if ok && strings.TrimSpace(k) == "model name" {
				if v = strings.TrimSpace(v); v != "" {
					return v
				}
			}
		}
	}
	return runtime.GOARCH
}

// LoadAvg returns the first three fields of /proc/loadavg (the load
// averages over 1, 5 and 15 minutes), or "unknown" where there is none.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return Unknown
}
