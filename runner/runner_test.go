package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/version"
)

func testApp(action cli.ActionFunc) *cli.App {
	return &cli.App{
		Name:   "t",
		Flags:  append(Flags(), &cli.IntFlag{Name: "count"}),
		Action: action,
		Commands: []*cli.Command{{
			Name:   "sub",
			Flags:  []cli.Flag{&cli.BoolFlag{Name: "x"}, &cli.StringFlag{Name: "out"}},
			Action: func(*cli.Context) error { return nil },
		}},
	}
}

// TestReorderArgs: flags after positional arguments move before them, with
// their values; "--" and negative numbers stay positional; a subcommand's
// flags are its own.
func TestReorderArgs(t *testing.T) {
	app := testApp(nil)
	for _, tc := range []struct{ in, want string }{
		{"t 10 --stats", "t --stats 10"},
		{"t 10 --np 4 -q", "t --np 4 -q 10"},
		{"t --np 4 10", "t --np 4 10"},
		{"t 10 --np=4", "t --np=4 10"},
		{"t 1 2 -b koso 3", "t -b koso 1 2 3"},
		{"t 5 --bogus 7", "t --bogus 5 7"},
		{"t -q -- -3 4", "t -q -- -3 4"},
		{"t 4 -3 -q", "t -q -- 4 -3"},
		{"t --np 2 sub 3 --x --out d", "t --np 2 sub --x --out d 3"},
		{"t --x --out d sub 3", "t sub --x --out d 3"},
		{"t --out=d --np 2 sub 3 --x", "t --np 2 sub --out=d --x 3"},
		{"t --bogus sub 3", "t --bogus sub 3"},
		{"t 12 --np 4 -- x", "t --np 4 12 x"}, // a "--" after positional arguments
		{"t 8 --np 2 -q --", "t --np 2 -q 8"}, // ... or ending the line
		{"t --np 2 -- -m 2.5", "t --np 2 -- -m 2.5"},
		{"t 5 --np", "t --np"},                         // missing its value: cli must say so, not take 5
		{"t -q 5 --np", "t -q --np"},                   // likewise after other flags
		{"t --np 2 sub 3 --out", "t --np 2 sub --out"}, // a subcommand's
		{"t", "t"},
	} {
		got := strings.Join(ReorderArgs(app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// runArgs runs an app built around spec with args and returns its exit
// status and output.
func runArgs(spec Spec[int], args ...string) (int, string) {
	app := testApp(Action(spec))
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	return Execute(app, append([]string{"t"}, args...)), out.String()
}

// TestAction: flags anywhere, the world and the ranks the flags choose,
// rank 0 reading, and exit status 2 for bad flags and input.
func TestAction(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts embedded worlds")
	}
	reads := 0
	spec := Spec[int]{
		App: "t",
		Read: func(c *cli.Context, _ Common) (int, error) {
			reads++
			if c.NArg() != 1 || c.Args().First() == "bad" {
				return 0, Usagef("bad argument")
			}
			return len(c.Args().First()), nil
		},
		Solve: func(r *Run, in int) error {
			return r.Print(map[string]any{"in": in, "ranks": r.Ranks(), "world": r.WorldName()}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "in=%d ranks=%d world=%s balancer=%s seq=%v\n", in, r.Ranks(), r.WorldName(), r.Balancer, r.Seq())
				return err
			})
		},
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"abc", "--np", "3"}, 0, "in=3 ranks=3 world=embedded balancer=rp seq=false"},
		{[]string{"--np", "5", "-b", "seq", "xy"}, 0, "in=2 ranks=1 world=embedded balancer=seq seq=true"},
		{[]string{"--np", "5", "-b", "seq", "xy"}, 0, "note: --balancer seq runs one rank: --np 5 is not used"},
		{[]string{"--world", "sim", "-b", "seq", "xy"}, 0, "--world sim simulates nothing"},
		{[]string{"-b", "seq", "--budget", "5", "--progress", "xy"}, 0, "without the balanced search's loop: --budget, --progress are not used"},
		{[]string{"-b", "seq", "--seed", "5", "xy"}, 0, "loop: --seed is not used"},
		{[]string{"-b", "seq", "--min-budget", "5", "xy"}, 0, "loop: --min-budget is not used"},
		{[]string{"--world", "sim", "--np", "4096", "x", "-b", "koso"}, 0, "in=1 ranks=4096 world=sim balancer=koso"},
		{[]string{"--json", "--np", "2", "abcd"}, 0, `{"in":4,"ranks":2,"world":"embedded","provenance":{"version":"` + version.Version + `","commit":`},
		{[]string{"bad", "--np", "2"}, 2, "t: bad argument"},
		{[]string{"x", "--np", "0"}, 2, "--np 0: need 1 to 65536 ranks"},
		{[]string{"x", "--np", "100000"}, 2, "--np 100000: need 1 to 65536 ranks"},
		{[]string{"x", "--world", "moon"}, 2, `--world "moon": need embedded, mpi, sim`},
		{[]string{"x", "--world", "mpi"}, 2, "--world mpi: this build has no MPI"},
		{[]string{"x", "-b", "nope"}, 2, `unknown balancer "nope"`},
		{[]string{"x", "-b", "koso", "--pair-sync"}, 2, "--pair-sync: balancer koso does not use it"},
		{[]string{"x", "-b", "seq", "--fast-init"}, 2, "--fast-init: the sequential solver"},
		{[]string{"x", "--world", "sim", "--np", "4", "--trace", os.TempDir()}, 2, ": a directory; need a file"},
		{[]string{"x", "--world", "sim", "--np", "4", "--trace", "/nonexistent-dir/t.csv"}, 2, "no directory /nonexistent-dir"},
		{[]string{"x", "-b", "static", "--levels", "33"}, 2, "--levels 33: 33 split levels"},
		{[]string{"x", "--shuffle-below", "NaN", "-b", "ps"}, 2, "--shuffle-below NaN: need a fraction"},
		{[]string{"x", "--budget", "0"}, 2, "--budget 0: need at least 1 node"},
		{[]string{"x", "--min-budget", "-1"}, 2, "--min-budget -1: need 0"},
		{[]string{"x", "--budget", "100", "--min-budget", "101"}, 2, "--min-budget 101: need 0 (a fixed Δt) to --budget (100)"},
		{[]string{"abc", "--np", "3", "--budget", "100", "--min-budget", "10"}, 0, "in=3 ranks=3"},
		{[]string{"x", "--bogus"}, 2, "--bogus: no such flag"},
	} {
		reads = 0
		code, out := runArgs(spec, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%q: status %d, output %q; want %d and %q", tc.args, code, out, tc.code, tc.want)
		}
		if code == 0 && reads != 1 {
			t.Errorf("%q: read %d times, want once (rank 0)", tc.args, reads)
		}
	}
}

// TestAgree: one rank's rejected flags, or ranks with different command
// lines, are a verdict every rank shares.
func TestAgree(t *testing.T) {
	same := identity{build: 7, args: 8, argv: []string{"11"}}
	if mpi.WorldName != "embedded" {
		t.Skip("starts embedded worlds")
	}
	for _, tc := range []struct {
		name   string
		failAt int // rank with a local error, -1 for none
		idOf   func(rank int) identity
		want   string
	}{
		{"all good", -1, func(int) identity { return same }, ""},
		{"rank 2 rejects", 2, func(int) identity { return same }, "rank 2: no"},
		{"rank 0 rejects", 0, func(int) identity { return same }, "no"},
		{"different builds", -1, func(r int) identity {
			id := same
			id.build = uint64(r/3) << 40
			return id
		}, "different builds"},
		{"different command lines", -1, func(r int) identity {
			if r < 3 {
				return same
			}
			return identity{build: same.build, args: 90, argv: []string{"-b", "ps", "12"}}
		}, `rank 0 has ["11"], rank 3 has ["-b" "ps" "12"]`},
	} {
		msgs := make([]string, 4)
		err := mpi.Run(4, func(c *mpi.Comm) error {
			var local error
			if c.Rank() == tc.failAt {
				local = errors.New("no")
			}
			err := agree(c, local, tc.idOf(c.Rank()))
			if err != nil {
				if !errors.Is(err, errRejected) || exitCode(err) != 2 {
					return fmt.Errorf("rank %d: %v is not a shared usage error", c.Rank(), err)
				}
				msgs[c.Rank()] = err.Error()
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for r, m := range msgs {
			if (tc.want == "") != (m == "") || !strings.Contains(m, tc.want) || m != msgs[0] {
				t.Errorf("%s: rank %d says %q; want every rank to say %q", tc.name, r, m, tc.want)
			}
		}
	}
}

// TestSubcommands: subcommands that take the common flags (runner.Flags
// on each subcommand, none on the app) accept them before and after the
// subcommand's name and after its arguments; their bad flags are usage
// errors; an argument "help" is the subcommand's, not cli's help command.
func TestSubcommands(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts embedded worlds")
	}
	spec := Spec[string]{
		App: "t",
		Read: func(c *cli.Context, _ Common) (string, error) {
			if c.NArg() != 1 {
				return "", Usagef("need one argument")
			}
			return c.Args().First() + "/" + c.String("out"), nil
		},
		Solve: func(r *Run, in string) error {
			return r.Print(nil, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "%s ranks=%d balancer=%s\n", in, r.Ranks(), r.Balancer)
				return err
			})
		},
	}
	for _, tc := range []struct {
		args string
		code int
		want string
	}{
		{"--np 3 sub a --out o", 0, "a/o ranks=3 balancer=rp"},
		{"sub --np 2 -b koso help", 0, "help/ ranks=2 balancer=koso"},
		{"-b seq --out o sub x", 0, "x/o ranks=1 balancer=seq"},
		{"sub x --np 0", 2, "--np 0"},
		{"sub x --bogus", 2, "bogus"},
		{"--bogus sub x", 2, "bogus"},
		{"sub x y", 2, "need one argument"},
	} {
		app := &cli.App{Name: "t", Commands: []*cli.Command{{
			Name:   "sub",
			Flags:  append(Flags(), &cli.StringFlag{Name: "out"}),
			Action: Action(spec),
		}}}
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		code := Execute(app, append([]string{"t"}, strings.Fields(tc.args)...))
		if code != tc.code || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q: status %d, output %q; want %d and %q", tc.args, code, out.String(), tc.code, tc.want)
		}
	}
}

// TestFlagsNamed: commands can take a subset of the common flags.
func TestFlagsNamed(t *testing.T) {
	var names []string
	for _, f := range FlagsNamed("np", "seed", "nope") {
		names = append(names, f.Names()[0])
	}
	if !slices.Equal(names, []string{"np", "seed"}) {
		t.Fatalf("%v", names)
	}
}

// TestCheckMemory: sizes beyond the machine's memory are usage errors.
func TestCheckMemory(t *testing.T) {
	avail, ok := AvailableMemory()
	if !ok {
		t.Skip("no /proc/meminfo")
	}
	if err := CheckMemory(float64(avail)/2, "half"); err != nil {
		t.Errorf("half the available memory: %v", err)
	}
	err := CheckMemory(float64(avail)*4, "four times")
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "four times need about") {
		t.Errorf("four times the available memory: %v", err)
	}
	for b, want := range map[float64]string{1023: "1023 B", 1000 << 10: "1000 KiB", 5 << 50: "5 PiB", 1536: "1.5 KiB"} {
		if got := FormatBytes(b); got != want {
			t.Errorf("FormatBytes(%g) = %q, want %q", b, got, want)
		}
	}
	if got := FormatBytes(3 << 30); got != "3 GiB" {
		t.Errorf("FormatBytes(3 GiB) = %q", got)
	}
}

// TestSimFlags: the machine of --world sim is the model's, with its node
// cost for the app and every flag's override; the simulation flags are
// rejected outside --world sim, and bad machines and values are exit 2.
func TestSimFlags(t *testing.T) {
	costs := lb.NodeCosts{"cluster": 15.3, "gcel": 6130}
	spec := Spec[int]{
		App:       "golomb",
		NodeCosts: costs,
		Read:      func(*cli.Context, Common) (int, error) { return 0, nil },
		Solve: func(r *Run, _ int) error {
			m, err := r.SimMachine()
			if err != nil {
				return err
			}
			return r.Print(nil, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "%s node %g o %g L %g g %g b %g mesh %d hop %g cont %v sf %v jit %g split %g ranks %d\n", m.Name, m.NodeNS,
					m.OverheadNS, m.LatencyNS, m.GapNS, m.ByteNS, m.MeshWidth, m.HopNS, m.Contention, m.StoreForward, m.JitterNS, m.SplitNS, r.Ranks())
				return err
			})
		},
	}
	gcel, _ := lb.LookupMachine("gcel")
	g := gcel.For(costs)
	for _, tc := range []struct {
		args string
		code int
		want string
	}{
		{"--world sim --np 16", 0, "cluster node 15.3 o 300 L 1500 g 100 b 0.08 mesh 0"},
		{"--world sim --np 1024 --machine gcel", 0, fmt.Sprintf("gcel node %g o %g L %g g 0 b %g mesh 32 hop %g cont true sf true jit 0 split 0 ranks 1024",
			g.NodeNS, g.OverheadNS, g.LatencyNS, g.ByteNS, g.HopNS)},
		{"--world sim --machine gcel --node-ns 7 --overhead-ns 1 --latency-ns 2 --gap-ns 3 --byte-ns 4 --mesh 8 --hop-ns 5 --contention=false --store-forward=false --jitter-ns 6 --split-ns 9",
			0, "gcel node 7 o 1 L 2 g 3 b 4 mesh 8 hop 5 cont false sf false jit 6 split 9"},
		{"--world sim --machine unit", 0, "unit node 1000 o 0 L 0"},
		{"--world sim --machine help", 0, "gcel: the Parsytec GCel"},
		{"--machine help", 0, "unit: the unit-time step model"},
		{"--world sim --machine cray", 2, "unknown"},
		{"--machine gcel", 2, "only with --world sim"},
		{"--trace x.csv", 2, "only with --world sim"},
		{"--world sim --node-ns -1", 2, "node-ns"},
		{"--world sim --machine unit --node-ns 0", 2, "node-ns 0"}, // a clock that never moves
		{"--world sim --latency-ns Inf", 2, "latency-ns"},
		{"--world sim --mesh -4", 2, "mesh"},
		{"--world sim --split-ns -1", 2, "split-ns"},
		{"--split-ns 1", 2, "only with --world sim"},
		{"--world sim --max-events -1", 2, "max-events"},
		{"--world sim --calibrate --node-ns 2", 2, "--calibrate"},
		{"--calibrate --stats", 2, "--stats: --calibrate in the embedded world measures"},
		{"--calibrate --max-nodes 5", 2, "--max-nodes: --calibrate"},
		{"--world sim --np 0", 2, "--np"},
		{"--world sim --np 65537", 2, "--np"},
	} {
		app := testApp(Action(spec))
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		code := Execute(app, append([]string{"t"}, strings.Fields(tc.args)...))
		if code != tc.code || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%q: status %d, output %q; want %d and %q", tc.args, code, out.String(), tc.code, tc.want)
		}
	}
}

// TestCalibrate: the calibration times a task's nodes, and refuses a task
// too small to time.
func TestCalibrate(t *testing.T) {
	ns, err := Calibrate(&countTask{n: 1 << 30}, 20*time.Millisecond)
	if err != nil || ns <= 0 || ns > 1000 {
		t.Fatalf("Calibrate: %g ns per node, %v", ns, err)
	}
	if _, err := Calibrate(&countTask{n: 10}, 20*time.Millisecond); err == nil {
		t.Fatal("a task of 10 nodes calibrated")
	}
}

// countTask is a task of n nodes that each cost a little arithmetic.
type countTask struct {
	n, x uint64
}

func (c *countTask) Work(budget int64) int64 {
	k := min(uint64(budget), c.n)
	for i := range k {
		c.x = c.x*6364136223846793005 + i
	}
	c.n -= k
	return int64(k)
}
func (c *countTask) Empty() bool                           { return c.n == 0 }
func (c *countTask) Split() lb.Task                        { return nil }
func (c *countTask) AppendBinary(b []byte) ([]byte, error) { return b, nil }

// TestWarnRing: koso and koso-star on more than 16 ranks without
// --fast-init warn on stderr that few ranks will work; with --fast-init,
// on 16 ranks or fewer, under another balancer and with --quiet they do
// not.
func TestWarnRing(t *testing.T) {
	spec := Spec[int]{
		App:   "golomb",
		Read:  func(*cli.Context, Common) (int, error) { return 0, nil },
		Solve: func(r *Run, _ int) error { return nil },
	}
	for _, tc := range []struct {
		args string
		warn bool
	}{
		{"--world sim --np 17 -b koso", true},
		{"--world sim --np 1024 -b koso-star", true},
		{"--np 17 -b koso", true},
		{"--world sim --np 16 -b koso", false},
		{"--world sim --np 64 -b koso --fast-init", false},
		{"--world sim --np 64 -b rp", false},
		{"--world sim --np 64 -b koso -q", false},
	} {
		app := testApp(Action(spec))
		var out, errs bytes.Buffer
		app.Writer, app.ErrWriter = &out, &errs
		code := Execute(app, append([]string{"t"}, strings.Fields(tc.args)...))
		if got := strings.Contains(errs.String(), "warning: koso"); code != 0 || got != tc.warn {
			t.Errorf("%q: status %d, stderr %q; want a warning: %v", tc.args, code, errs.String(), tc.warn)
		}
	}
}

// binaryOnly encodes itself only in binary: JSON sees no exported fields.
type binaryOnly struct{ n int }

func (b binaryOnly) MarshalBinary() ([]byte, error) { return []byte{byte(b.n)}, nil }
func (b *binaryOnly) UnmarshalBinary(d []byte) error {
	if len(d) != 1 {
		return errors.New("binaryOnly: want one byte")
	}
	b.n = int(d[0])
	return nil
}

// checkInput sends v as rank 0 would and checks that it comes back equal,
// encoded as kind.
func checkInput[T any](t *testing.T, name string, v T, kind byte) {
	t.Helper()
	b, err := marshalInput(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if b[0] != kind {
		t.Errorf("%s: sent as %q, want %q", name, b[0], kind)
	}
	var got T
	if err := unmarshalInput(b, &got); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("%s: got %+v back, want %+v", name, got, v)
	}
}

// TestMarshalInput: the instance rank 0 sends comes back equal on every
// rank, as JSON when JSON gives it back exactly and is short, with gob
// otherwise (infinities and NaNs, fields only binary encodings carry, long
// instances).
func TestMarshalInput(t *testing.T) {
	type inner struct {
		W []int64
		M map[string]float64
	}
	type inst struct {
		Marks int
		Name  string
		X     float64
		In    inner
		P     *inner
	}
	long := make([]int64, 2000)
	for i := range long {
		long[i] = int64(i) * 1e15
	}
	checkInput(t, "small", inst{Marks: 12, Name: "x", X: 0.1 + 0.2, In: inner{W: []int64{1 << 62, -3}, M: map[string]float64{"a": 1e-300}}, P: &inner{}}, instanceJSON)
	checkInput(t, "long", inst{In: inner{W: long}}, instanceGob)
	checkInput(t, "infinity", inst{X: math.Inf(1)}, instanceGob)
	checkInput(t, "binary only", binaryOnly{n: 7}, instanceGob)
	b, err := marshalInput(inst{X: math.NaN()})
	if err != nil || b[0] != instanceGob {
		t.Fatalf("NaN: sent as %q (%v), want gob", b[0], err)
	}
	var v inst
	if err := unmarshalInput(b, &v); err != nil || !math.IsNaN(v.X) {
		t.Errorf("NaN: got %+v back (%v)", v, err)
	}
	for _, bad := range [][]byte{nil, {'x', '{'}, {instanceJSON, '{'}, {instanceGob, 1, 2}} {
		if err := unmarshalInput(bad, &v); err == nil {
			t.Errorf("%q: decoded", bad)
		}
	}
}
