package reliability

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/treelb/treelb/internal/doccheck"
)

// The commands, built once per test binary (build).
var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// commands are the commands under apps/.
var commands = []string{"golomb", "fifteen", "knapsack", "integrate", "uts", "dht"}

// root is the repository's root, from this package's directory.
const root = "../.."

// build builds every command into a temporary directory, once; it skips t
// under -short and without a go command.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs every command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the commands with")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "treelb-reliability-")
		if buildErr != nil {
			return
		}
		args := []string{"build", "-o", binDir + "/"}
		for _, c := range commands {
			args = append(args, "./apps/"+c)
		}
		args = append(args, "./scripts/campaign")
		cmd := exec.Command(goBin, args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// invocation is a command line of a command that answers quickly: the
// command, its subcommand (if any) and its arguments.
type invocation struct {
	cmd  string
	sub  []string // the subcommand, before the flags
	args []string // a small instance
	// worlds says whether it takes --world and --balancer (a balancer's
	// command).
	worlds bool
}

func (v invocation) String() string {
	return strings.Join(append(append([]string{v.cmd}, v.sub...), v.args...), " ")
}

// knapsackFile is an instance file, absolute: the commands run in
// temporary directories.
var knapsackFile = func() string {
	p, _ := filepath.Abs(filepath.Join(root, "apps/knapsack/testdata/sanders-m100-seed5.txt"))
	return p
}()

// invocations are the commands and subcommands with small instances.
var invocations = []invocation{
	{cmd: "golomb", args: []string{"6"}, worlds: true},
	{cmd: "fifteen", args: strings.Fields("8 1 2 0 4 5 6 3 12 9 10 7 13 14 11 15"), worlds: true},
	{cmd: "knapsack", args: []string{knapsackFile}, worlds: true},
	{cmd: "knapsack", sub: []string{"gen"}, args: []string{"-m", "20"}},
	{cmd: "integrate", sub: []string{"func"}, args: []string{"gauss"}, worlds: true},
	{cmd: "integrate", sub: []string{"poly"}, args: nil, worlds: true},
	{cmd: "integrate", sub: []string{"alpha"}, args: []string{"--alpha", "0.6"}, worlds: true},
	{cmd: "uts", args: []string{"--depth", "3"}, worlds: true},
	{cmd: "dht", args: []string{"--rounds", "1", "-Q", "4"}},
	{cmd: "dht", sub: []string{"sim"}, args: []string{"--runs", "2", "--table-runs", "0", "--max-p", "16"}},
}

// result is what a run printed and its exit status.
type result struct {
	code           int
	stdout, stderr string
}

// run runs bin with args in dir, with stdout (nil: a buffer), under a
// minute's timeout.
func run(t *testing.T, dir string, stdout *os.File, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if stdout != nil {
		cmd.Stdout = stdout
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %q ran for a minute", filepath.Base(bin), args)
	}
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %q: %v", filepath.Base(bin), args, err)
	}
	return result{code, o.String(), e.String()}
}

// closedPipe returns the write end of a pipe whose read end is closed.
func closedPipe(t *testing.T) *os.File {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	t.Cleanup(func() { w.Close() })
	return w
}

// TestOutputsChecked: every command, in every mode (text, --json, --stats,
// -q) and world (embedded, simulated, the sequential solver) whose answer
// goes to a full device or a closed pipe exits with status 74 and says so
// on stderr: the answer is never lost with exit status 0.
func TestOutputsChecked(t *testing.T) {
	bin := build(t)
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	type outCase struct {
		v     invocation
		extra []string
	}
	var cases []outCase
	for _, v := range invocations {
		modes := [][]string{nil, {"--json"}, {"-q"}}
		switch {
		case v.cmd == "knapsack" && len(v.sub) > 0:
			modes = [][]string{nil} // gen prints an instance
		case v.cmd == "dht" && len(v.sub) > 0:
			modes = modes[:2] // -q prints nothing
		default:
			modes = append(modes, []string{"--stats"})
		}
		worlds := [][]string{nil}
		if v.worlds {
			worlds = append(worlds, []string{"--world", "sim", "--np", "8"}, []string{"-b", "seq"})
		}
		for _, m := range modes {
			for _, w := range worlds {
				cases = append(cases, outCase{v, append(append([]string(nil), m...), w...)})
			}
		}
	}
	sem := make(chan struct{}, runtime.NumCPU())
	for _, tc := range cases {
		for _, sink := range []string{"/dev/full", "closed pipe"} {
			name := fmt.Sprintf("%v %s > %s", tc.v, strings.Join(tc.extra, " "), sink)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				sem <- struct{}{}
				defer func() { <-sem }()
				var out *os.File
				if sink == "closed pipe" {
					out = closedPipe(t)
				} else {
					f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					out = f
				}
				args := append(append(append([]string(nil), tc.v.sub...), tc.extra...), tc.v.args...)
				res := run(t, t.TempDir(), out, filepath.Join(bin, tc.v.cmd), args...)
				if res.code != 74 || !strings.Contains(res.stderr, "writing standard output") {
					t.Errorf("exit %d, stderr %q; want 74 and a message", res.code, res.stderr)
				}
			})
		}
	}
}

// TestCampaignOutputChecked: the campaign runner's output (its help, a dry
// run's command lines) to a closed pipe or a full device ends it with 74
// and a message, as the commands' does; it died of SIGPIPE, status 141,
// without a word.
func TestCampaignOutputChecked(t *testing.T) {
	bin := filepath.Join(build(t), "campaign")
	for _, args := range [][]string{{"--preset", "help"}, {"--csv", "x.csv", "--instance", "golomb 8", "--dry-run"}} {
		outs := map[string]*os.File{"a closed pipe": closedPipe(t)}
		if f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0); err == nil {
			defer f.Close()
			outs["/dev/full"] = f
		}
		for name, out := range outs {
			res := run(t, t.TempDir(), out, bin, args...)
			if res.code != 74 || !strings.Contains(res.stderr, "writing standard output") {
				t.Errorf("campaign %q to %s: exit %d, stderr %q; want 74 and a message", args, name, res.code, res.stderr)
			}
		}
	}
}

// values are the hostile values every flag gets: empty, blank, negative,
// zero, huge, NaN and not a number.
var values = []string{"", "  ", "-1", "0", "99999999999999999999", "1e400", "NaN", "abc"}

// flagsOf returns the flags --help lists for a command line (sub: its
// subcommand; doccheck.Help reads them), but help and version.
func flagsOf(t *testing.T, bin string, sub []string) []string {
	res := run(t, t.TempDir(), nil, bin, append(append([]string(nil), sub...), "--help")...)
	if res.code != 0 {
		t.Fatalf("%s %v --help: exit %d, %s", filepath.Base(bin), sub, res.code, res.stderr)
	}
	var out []string
	flags, _ := doccheck.Help(res.stdout)
	for _, f := range flags {
		switch strings.TrimLeft(f, "-") {
		case "help", "h", "version", "v":
			continue
		}
		out = append(out, f)
	}
	// Every command has several flags: none found means the help's layout
	// changed under doccheck.Help, and the table would test nothing.
	if len(out) < 3 {
		t.Fatalf("%s %v --help: %d flags found (%v): has the help's layout changed?", filepath.Base(bin), sub, len(out), out)
	}
	return out
}

// TestHostileFlagValues feeds every flag of every command (and
// subcommand) each of the hostile values, as --flag=value: every run ends
// within a minute with exit status 0, 2 or 4 (a value the flag takes), and
// never with a stack trace; a refusal (2) is one line that names the flag.
func TestHostileFlagValues(t *testing.T) {
	bin := build(t)
	sem := make(chan struct{}, runtime.NumCPU())
	for _, v := range invocations {
		exe := filepath.Join(bin, v.cmd)
		for _, flag := range flagsOf(t, exe, v.sub) {
			for _, val := range values {
				name := fmt.Sprintf("%v %s=%q", v, flag, val)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					sem <- struct{}{}
					defer func() { <-sem }()
					args := append(append(append([]string(nil), v.sub...), flag+"="+val), v.args...)
					res := run(t, t.TempDir(), nil, exe, args...)
					if strings.Contains(res.stderr, "goroutine ") || strings.Contains(res.stderr, "panic") || res.code == 70 {
						t.Fatalf("a stack trace or an internal error: exit %d\n%s", res.code, res.stderr)
					}
					switch res.code {
					case 0, 4:
					case 2:
						msg := strings.TrimSpace(res.stderr)
						if !strings.Contains(msg, strings.TrimLeft(flag, "-")) {
							t.Errorf("exit 2 with %q, which does not name %s", msg, flag)
						}
						if strings.Count(msg, "\n") > 0 {
							t.Errorf("exit 2 with more than one line:\n%s", msg)
						}
					default:
						t.Errorf("exit %d, stderr %q; want 0, 2 or 4", res.code, res.stderr)
					}
				})
			}
		}
	}
}
