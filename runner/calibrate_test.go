package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// rangeSpec is a command over lbtest.Range whose Solve runs the range on
// the world and prints the machine the simulator used (or "no machine").
func rangeSpec() Spec[int] {
	return Spec[int]{
		App:    "range",
		Read:   func(*cli.Context, Common) (int, error) { return 0, nil },
		Sample: func(int) (lb.App, error) { return lbtest.NewRange(1 << 40), nil },
		Solve: func(r *Run, _ int) error {
			if r.World == nil {
				return r.Print(nil, func(w io.Writer) error { _, err := fmt.Fprintln(w, "no world"); return err })
			}
			_, out, err := lb.Run(r.World, r.Config(), func() lb.Reducer[int64] { return lbtest.NewRange(20000) })
			if err != nil {
				return err
			}
			return r.Print(nil, func(w io.Writer) error {
				if out.Sim == nil {
					_, err := fmt.Fprintln(w, "no machine")
					return err
				}
				b, err := json.Marshal(out.Sim.Machine)
				if err == nil {
					_, err = fmt.Fprintf(w, "%s\n", b)
				}
				return err
			})
		},
	}
}

func runCmd(t *testing.T, spec Spec[int], args string) (int, string, string) {
	t.Helper()
	app := testApp(Action(spec))
	var out, errs bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errs
	code := Execute(app, append([]string{"t"}, strings.Fields(args)...))
	return code, out.String(), errs.String()
}

// TestCalibrateMachine: --calibrate in the embedded world measures every
// cost of the loop and prints a model that --world sim --machine FILE
// loads back as it is; with --world sim it measures, prints the model on
// stderr and simulates with it; bad machine files are usage errors.
func TestCalibrateMachine(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts an embedded world")
	}
	code, out, errs := runCmd(t, rangeSpec(), "--calibrate --np 2")
	if code != 0 {
		t.Fatalf("--calibrate: status %d: %s", code, errs)
	}
	m, err := lb.ParseMachine([]byte(out))
	if err != nil {
		t.Fatalf("the calibrated model does not load: %v\n%s", err, out)
	}
	if m.Name != "calibrated-embedded" || m.NodeNS <= 0 || m.BusyNodeNS <= 0 || m.PollNS <= 0 || m.SliceNS <= 0 || m.SendNS <= 0 || m.RecvNS <= 0 ||
		m.SplitNS <= 0 || m.SendByteNS <= 0 || m.RecvByteNS <= 0 || !strings.Contains(m.Source, "--calibrate") ||
		!strings.Contains(m.Source, "slice's cost at a budget of 10 against 10000") {
		t.Fatalf("calibrated model %+v", m)
	}
	// The slice's cost at the run's budget.
	code, out100, errs := runCmd(t, rangeSpec(), "--calibrate --np 1 --budget 100")
	if code != 0 {
		t.Fatalf("--calibrate --budget 100: status %d: %s", code, errs)
	}
	// One rank has no busy node cost: there is no other rank to be busy.
	if m100, err := lb.ParseMachine([]byte(out100)); err != nil || !strings.Contains(m100.Source, "at a budget of 100 against 10000") || m100.BusyNodeNS != 0 {
		t.Fatalf("--calibrate --budget 100: %+v (%v)", m100, err)
	}
	file := filepath.Join(t.TempDir(), "m.json")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	code, got, errs := runCmd(t, rangeSpec(), "--world sim --np 3 --machine "+file)
	if code != 0 {
		t.Fatalf("--machine FILE: status %d: %s", code, errs)
	}
	var used lb.Machine
	if err := json.Unmarshal([]byte(got), &used); err != nil || used != m {
		t.Fatalf("simulated on %+v (%v), the file has %+v", used, err, m)
	}
	// A model file of any name, given without a directory (the name had
	// to end in .json or hold a /, or it was "unknown").
	here := t.TempDir()
	if err := os.WriteFile(filepath.Join(here, "mymodel"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(here)
	if code, got, errs := runCmd(t, rangeSpec(), "--world sim --np 3 --machine mymodel"); code != 0 || json.Unmarshal([]byte(got), &used) != nil || used != m {
		t.Fatalf("--machine mymodel: status %d, %s%s", code, got, errs)
	}
	// Flags override a file's values.
	_, got, _ = runCmd(t, rangeSpec(), "--world sim --np 3 --machine "+file+" --poll-ns 7 --slice-ns 13 --latency-ns 11")
	if err := json.Unmarshal([]byte(got), &used); err != nil || used.PollNS != 7 || used.SliceNS != 13 || used.LatencyNS != 11 || used.SendNS != m.SendNS {
		t.Fatalf("with overrides: %+v (%v)", used, err)
	}
	// --world sim --calibrate: the model on stderr, the simulation with it.
	code, got, errs = runCmd(t, rangeSpec(), "--world sim --np 5 --calibrate")
	if code != 0 || !strings.Contains(errs, `"name": "calibrated-embedded"`) {
		t.Fatalf("--world sim --calibrate: status %d, stderr %q", code, errs)
	}
	if err := json.Unmarshal([]byte(got), &used); err != nil || used.Name != "calibrated-embedded" || used.PollNS <= 0 || used.SliceNS <= 0 || used.NodeNS <= 0 {
		t.Fatalf("simulated on %+v (%v)", used, err)
	}
	// -q drops the line before the model, not the model.
	if code, _, errs = runCmd(t, rangeSpec(), "--world sim --np 5 --calibrate -q"); code != 0 || !strings.HasPrefix(errs, "{") || strings.Contains(errs, "save it") {
		t.Fatalf("--world sim --calibrate -q: status %d, stderr %q", code, errs)
	}
	if _, err := lb.ParseMachine([]byte(errs)); err != nil {
		t.Fatalf("--world sim --calibrate -q: the model does not load: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"name": "x", "node_ns": 1, "warp_ns": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	neg := filepath.Join(t.TempDir(), "neg.json")
	if err := os.WriteFile(neg, []byte(`{"name": "x", "poll_ns": -1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(t.TempDir(), "empty.json")
	if err := os.WriteFile(empty, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"--world sim --machine " + empty:                      "node-ns 0", // not the tests' network, nor a clock that stands still
		"--world sim --machine " + bad:                        "warp_ns",
		"--world sim --machine " + neg:                        "poll-ns",
		"--world sim --machine /nonexistent/m.json":           "no such file",
		"--world sim --machine nonsense":                      "unknown",
		"--poll-ns 3":                                         "only with --world sim",
		"--world sim --send-byte-ns -1":                       "send-byte-ns",
		"--world sim --slice-ns -1":                           "slice-ns",
		"--world sim --pause-ns 1e-3 --max-pause-ns 1e9":      "max-pause-ns",
		"--world sim --pause-ns 1 --max-pause-ns 1073741824":  "more than 2^30−1 pauses", // Rank.Init refused it, after the check
		"--world sim --byte-ns 3.6e12":                        "ns a byte",               // a message of 4000 bytes overflowed the clock
		"--world sim --recv-byte-ns 1e7":                      "recv-byte-ns",
		"--calibrate --node-ns 3 --world sim":                 "--calibrate",
		"--calibrate --machine gcel --world sim":              "--calibrate and --machine", // gcel was ignored
		"--world sim --mesh -1":                               "--mesh -1: need 0",
		"--world sim --machine " + file + " --machine-typo 1": "machine-typo",
	} {
		code, _, errs := runCmd(t, rangeSpec(), args)
		if code != 2 || !strings.Contains(errs, want) {
			t.Errorf("%q: status %d, %q; want 2 and %q", args, code, errs, want)
		}
	}
}

// TestLimitApp: the slice calibration's app stops its root after the
// limit, splits nothing, and keeps the optional interfaces the engine
// uses per slice (lb.Bounded, lb.Stopper).
func TestLimitApp(t *testing.T) {
	for _, c := range []struct {
		app              lb.App
		bounded, stopper bool
	}{{lbtest.NewRange(1 << 20), false, false}, {lbtest.NewTree(4, 16, lbtest.Count), true, true}} {
		a := limitApp(c.app, 1000)
		if _, ok := a.(lb.Bounded); ok != c.bounded {
			t.Errorf("%T: Bounded %v, want %v", c.app, ok, c.bounded)
		}
		if _, ok := a.(lb.Stopper); ok != c.stopper {
			t.Errorf("%T: Stopper %v, want %v", c.app, ok, c.stopper)
		}
		root := a.Root()
		if root.Split() != nil {
			t.Errorf("%T: the limited root split", c.app)
		}
		var n int64
		for !root.Empty() {
			n += root.Work(300)
		}
		if n != 1000 {
			t.Errorf("%T: %d nodes, want the limit 1000", c.app, n)
		}
	}
	for budget, want := range map[int64]int64{0: 10, 1: 1, 100: 100, 9999: 9999, 10000: 10, 1 << 20: 10} {
		if got := sliceBudget(budget); got != want {
			t.Errorf("sliceBudget(%d) = %d, want %d", budget, got, want)
		}
	}
}
