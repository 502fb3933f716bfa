package campaign

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/treelb/treelb/apps/uts/tree"
)

// Foreign is a program that is not a treelb command: a reference solver
// that a preset builds next to the commands (uts-ref, uts-ref-mpi, expknap)
// so that a campaign races ours against it with the same runner, CSV and
// summary. An instance spec names it as its APP; its runs are keyed like
// every run (world embedded for a sequential program, mpi under the
// launcher for an MPI one).
type Foreign struct {
	Name string
	// Args returns the program's arguments for the instance's (after APP).
	Args func(instance []string) ([]string, error)
	// Parse returns the fields of the program's output in the form of a
	// command's flattened JSON: app, nodes, seconds (its own timer of the
	// search) and what else it tells.
	Parse func(out []byte) ([]Field, error)
}

// LookupForeign returns the foreign program called name.
func LookupForeign(name string) (Foreign, bool) {
	switch name {
	case "uts-ref", "uts-ref-mpi":
		return Foreign{Name: name, Args: utsRefArgs, Parse: func(out []byte) ([]Field, error) { return parseUTSRef(name, out) }}, true
	case "expknap":
		return Foreign{Name: name, Args: expknapArgs, Parse: parseExpknap}, true
	}
	return Foreign{}, false
}

// utsRefArgs returns the reference's flags of the sample tree an instance
// names ("uts-ref T1L").
func utsRefArgs(in []string) ([]string, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("want one sample tree (%s), have %q", strings.Join(tree.SampleNames(), " "), in)
	}
	s, ok := tree.SampleNamed(in[0])
	if !ok {
		return nil, fmt.Errorf("no sample tree %q (%s)", in[0], strings.Join(tree.SampleNames(), " "))
	}
	return strings.Fields(s.Args), nil
}

// The lines of the UTS reference's output that the campaign reads.
var (
	utsStats = regexp.MustCompile(`Tree size = (\d+), tree depth = (\d+), num leaves = (\d+)`)
	utsTime  = regexp.MustCompile(`Wallclock time = ([0-9.]+) sec`)
)

// parseUTSRef reads the counts and the search time the UTS reference
// prints.
func parseUTSRef(app string, out []byte) ([]Field, error) {
	sm, tm := utsStats.FindSubmatch(out), utsTime.FindSubmatch(out)
	if sm == nil || tm == nil {
		return nil, fmt.Errorf("%s: no statistics in its output:\n%s", app, out)
	}
	return []Field{{"app", app}, {"nodes", string(sm[1])}, {"depth", string(sm[2])}, {"leaves", string(sm[3])},
		{"seconds", string(tm[1])}}, nil
}

// expknapArgs passes the instance file.
func expknapArgs(in []string) ([]string, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("want one instance file, have %q", in)
	}
	return in, nil
}

// parseExpknap reads the line of our driver of expknap.c (ExpknapDriver):
// profit, weight, CPU and wall seconds of expknap() alone, iterations.
func parseExpknap(out []byte) ([]Field, error) {
	f := strings.Fields(string(out))
	if len(f) != 5 {
		return nil, fmt.Errorf("expknap: unexpected output %q", out)
	}
	for i, v := range f {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("expknap: field %d of %q: %w", i+1, out, err)
		}
	}
	return []Field{{"app", "expknap"}, {"profit", f[0]}, {"weight", f[1]}, {"cpu_seconds", f[2]}, {"seconds", f[3]}, {"nodes", f[4]}}, nil
}
