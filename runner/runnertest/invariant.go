package runnertest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/runner"
)

// Exec runs a command with args (the program's name excluded) and returns
// what it printed and its exit status.
type Exec func(t testing.TB, args ...string) (stdout, stderr string, code int)

// InProcess returns the Exec that runs the command newApp makes in this
// process, as runner.Main would: a new cli.App for every run, its output
// captured. name is the program's name (args[0]). Commands run this way
// start their own embedded worlds, so it skips t in the MPI build.
func InProcess(name string, newApp func() *cli.App) Exec {
	return func(t testing.TB, args ...string) (string, string, int) {
		t.Helper()
		if mpi.WorldName != "embedded" {
			t.Skip("runs the command in process, in its own embedded world")
		}
		app := newApp()
		var out, errOut bytes.Buffer
		app.Writer, app.ErrWriter = &out, &errOut
		code := runner.Execute(app, append([]string{name}, args...))
		return out.String(), errOut.String(), code
	}
}

// Fingerprint extracts from the JSON output of a run what must be the same
// on every run of an instance: the nodes and the certificate, and whatever
// else the app adds. It returns an error for output it cannot read.
type Fingerprint func(stdout string) (string, error)

// NodesAndCertificate is the Fingerprint of an exhaustive search: the
// "nodes" and "certificate" of every JSON object printed (one per line).
// A run that prints no certificate, or says that its nodes vary, is an
// error.
func NodesAndCertificate(stdout string) (string, error) {
	var fp []string
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var r struct {
			Nodes       *int64
			Certificate string
			NodesVary   bool `json:"nodes_vary"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return "", fmt.Errorf("%w: %q", err, line)
		}
		if r.Nodes == nil || r.Certificate == "" || r.NodesVary {
			return "", fmt.Errorf("no nodes and certificate of an exhaustive search: %q", line)
		}
		fp = append(fp, fmt.Sprintf("nodes %d certificate %s", *r.Nodes, r.Certificate))
	}
	return strings.Join(fp, "; "), nil
}

// Invariant is the conformance table of an exhaustive search's printed
// count (docs/counts.md). It runs the command with args and --json under
// --balancer seq, then under every balancer variant (with its options as
// flags) on 1, 2, 3, 7, 16 and 64 ranks (lbtest.EachVariantOn; its
// diagonal under -short) of the embedded world and of the simulator, then, under every variant (lbtest.ShortVariants), from
// checkpoint to restart: a run on 3 simulated ranks that writes a
// checkpoint every few milliseconds (--checkpoint-every) and goes on, a
// restart from its last checkpoint on 2 goroutine ranks that checkpoints
// again, and a restart from that on 7 simulated ranks. It fails t unless
// every run exits 0 and prints the fingerprint of the sequential run. The
// instance must take long enough on 3 simulated ranks for a checkpoint to
// fall due (10 ms or more); a run that writes none fails t.
func Invariant(t *testing.T, exec Exec, args []string, fingerprint Fingerprint) {
	t.Helper()
	run := func(t *testing.T, extra ...string) string {
		t.Helper()
		a := append(append(append([]string{}, args...), "--json"), extra...)
		stdout, stderr, code := exec(t, a...)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", a, code, stderr)
		}
		fp, err := fingerprint(stdout)
		if err != nil {
			t.Fatalf("%q: %v", a, err)
		}
		return fp
	}
	want := run(t, "-b", "seq")
	t.Logf("sequential: %s", want)
	flagsOf := func(v lbtest.Variant) []string {
		return append([]string{"-b", v.Info.Name}, OptionFlags(v.Options)...)
	}
	for _, world := range []string{runner.WorldEmbedded, runner.WorldSim} {
		t.Run(world, func(t *testing.T) {
			lbtest.EachVariantOn(t, world, lbtest.Ranks(runner.WorldSim), func(t *testing.T, v lbtest.Variant, p int) {
				flags := flagsOf(v)
				extra := append([]string{"--world", world, "--np", strconv.Itoa(p)}, flags...)
				if got := run(t, extra...); got != want {
					t.Errorf("%s, %d ranks, %q: %s; sequential %s", world, p, flags, got, want)
				}
			})
		})
	}
	dir := t.TempDir()
	for i, v := range lbtest.ShortVariants() {
		flags := flagsOf(v)
		t.Run("checkpoints/"+v.Name, func(t *testing.T) {
			first := filepath.Join(dir, fmt.Sprintf("%d-first.ckpt", i))
			second := filepath.Join(dir, fmt.Sprintf("%d-second.ckpt", i))
			every := []string{"--checkpoint-every", "1ms"}
			chain := [][]string{
				append(append([]string{"--world", "sim", "--np", "3", "--checkpoint", first}, every...), flags...),
				append([]string{"--restart", first, "--world", "embedded", "--np", "2", "--checkpoint", second}, every...),
				{"--restart", second, "--world", "sim", "--np", "7"},
			}
			for k, extra := range chain {
				if k > 0 {
					if _, err := os.Stat(extra[1]); errors.Is(err, os.ErrNotExist) && k == 2 {
						// The restart ended before a checkpoint fell due:
						// restart from the first one again.
						extra[1] = first
					} else if err != nil {
						t.Fatalf("no checkpoint to restart from (the instance is too quick to checkpoint?): %v", err)
					}
				}
				if got := run(t, extra...); got != want {
					t.Errorf("%q: %s; sequential %s", extra, got, want)
				}
			}
		})
	}
}

// OptionFlags returns the command-line flags that set the balancer options
// o (those that differ from the defaults), as runner.Flags names them
// (lb.OptionValues), in the order the options' type declares them.
func OptionFlags(o lb.Options) []string {
	var f []string
	values := lb.OptionValues(o)
	for _, name := range lb.OptionNames(o) {
		v, ok := values[name]
		switch {
		case !ok:
		case v == "true":
			f = append(f, "--"+name)
		default:
			f = append(f, "--"+name, v)
		}
	}
	return f
}
