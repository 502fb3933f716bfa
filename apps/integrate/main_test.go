package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/treelb/treelb/runner/runnertest"
)

// command is the built command, run by the tests.
type command struct {
	t   *testing.T
	bin string
}

// run runs the command with the arguments (split at blanks) and returns
// its output and exit status.
func (c command) run(args string) (stdout, stderr string, code int) {
	c.t.Helper()
	return runnertest.Run(c.t, c.bin, strings.Fields(args)...)
}

// json runs the command, which must succeed and print one JSON object
// holding every key of want; it returns the object.
func (c command) json(args string, want ...string) map[string]any {
	c.t.Helper()
	stdout, stderr, code := c.run(args)
	if code != 0 {
		c.t.Fatalf("integrate %s: exit %d: %s", args, code, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || strings.Count(stdout, "\n") != 1 {
		c.t.Fatalf("integrate %s: not one JSON object (%v): %q", args, err, stdout)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			c.t.Errorf("integrate %s: no %q in %s", args, k, stdout)
		}
	}
	return m
}

// TestCommand builds the command and runs it: JSON output with its
// fields, the same tree and value whatever the balancer, world and ranks
// and wherever the flags stand, the values against the exact integrals,
// func help, and exit status 2 with a message for every kind of bad input.
func TestCommand(t *testing.T) {
	c := command{t, runnertest.Build(t)}
	header := []string{"app", "workload", "balancer", "ranks", "world", "seconds", "nodes", "leaves", "height"}
	integralKeys := append(header, "value", "exact", "error", "finite", "integrand", "interval", "theta_a", "theta_r", "rule", "threshold")

	t.Run("func", func(t *testing.T) {
		c.t = t
		var first map[string]any
		for _, args := range []string{
			"func gauss --json -b seq --theta-a 1e-9",
			"--json func gauss --np 3 --theta-a 1e-9",
			"--theta-a 1e-9 -b koso func --json gauss --np=4 --fast-init",
			"func gauss --theta-a=1e-9 --world sim --np 16 -b koso-star --json --budget 1",
		} {
			m := c.json(args, integralKeys...)
			if first == nil {
				first = m
				exact := math.Sqrt(math.Pi) / 10 * math.Erf(5)
				// The documented tolerance: Leaves·θ, plus rounding.
				if v := m["value"].(float64); !(math.Abs(v-exact) <= m["leaves"].(float64)*1e-9+1e-15) || m["exact"] != exact ||
					m["error"] != v-exact || m["finite"] != true || m["nodes"].(float64) < 1000 {
					t.Fatalf("%s: %v, exact %v", args, m, exact)
				}
			}
			for _, k := range []string{"nodes", "leaves", "height", "value", "threshold"} {
				if m[k] != first[k] {
					t.Errorf("%s: %s %v, sequential %v", args, k, m[k], first[k])
				}
			}
		}
		if m := c.json("func gauss --world sim --np 8 --json", "sim_seconds"); m["world"] != "sim" || m["ranks"] != 8.0 || !(m["sim_seconds"].(float64) > 0) {
			t.Errorf("sim: %v", m)
		}
	})

	t.Run("poly", func(t *testing.T) {
		c.t = t
		// The random polynomial of seed 1 (degree 57, factor 373): a root
		// alone under the absolute rule, a real tree under the relative one.
		m := c.json("poly --json --np 2", append(integralKeys, "poly_seed", "degree", "factor")...)
		if m["nodes"] != 1.0 || m["degree"] != 57.0 || m["factor"] != 373.0 || m["poly_seed"] != 1.0 || m["rule"] != "absolute" {
			t.Errorf("seed 1, absolute: %v", m)
		}
		for _, b := range []string{"seq", "rp", "ps", "koso"} {
			m := c.json("poly --rule relative --theta-a 1e-8 --json --np 3 -b "+b, integralKeys...)
			v, exact := m["value"].(float64), m["exact"].(float64)
			if m["nodes"] != 1567.0 || m["height"] != 17.0 || math.Float64bits(v) != 0x3785146c9bc060c1 || !(math.Abs(v-exact) <= 1e-6*exact) {
				t.Errorf("seed 1, relative, %s: %v", b, m)
			}
		}
		if m := c.json("poly --poly-seed 9 --degree 3 --json"); m["degree"] != 3.0 || m["poly_seed"] != 9.0 {
			t.Errorf("--degree 3: %v", m)
		}
		// (2x(x−1))² over [0, 1] is 2/15; over [−1, 1] 64/15.
		m = c.json("poly --roots 0,1 --factor 2 --interval -1,1 --json --theta-a 1e-12", integralKeys...)
		if v := m["value"].(float64); m["exact"] != 64.0/15 || !(math.Abs(v-64.0/15) <= m["leaves"].(float64)*1e-12) || m["poly_seed"] != nil {
			t.Errorf("--roots 0,1: %v", m)
		}
		if stdout, _, code := c.run("poly --roots 0,1 --factor 2 -q -b seq"); code != 0 || !strings.HasPrefix(stdout, "0.13333333") {
			t.Errorf("-q: %d %q", code, stdout)
		}
		if stdout, _, code := c.run("poly -b seq"); code != 0 || !strings.Contains(stdout, "--rule relative") || !strings.Contains(stdout, "degree 57") {
			t.Errorf("human output: %d %q", code, stdout)
		}
	})

	t.Run("alpha", func(t *testing.T) {
		c.t = t
		alphaKeys := append(header, "alpha", "tree_seed", "digest", "expected_nodes")
		// Golden: α = 0.96, tree seed 1 (package alphatree's TestGolden).
		for _, args := range []string{
			"alpha --json -b seq",
			"--json --seed 5 alpha --np 7 -b ps",
			"alpha --np 16 --world sim -b koso --budget 1 --json",
			"alpha --tree-seed 1 --alpha 0.96 --json --np 2 -b rp-local",
		} {
			m := c.json(args, alphaKeys...)
			if m["nodes"] != 4269.0 || m["leaves"] != 2135.0 || m["height"] != 36.0 || m["digest"] != "0x02295d0b1c193f0f" || m["value"] != nil {
				t.Errorf("%s: %v", args, m)
			}
		}
		m := c.json("alpha --alpha 0.97 --tree-seed 2 --json --np 2", alphaKeys...)
		if m["nodes"] != 61641.0 || m["height"] != 44.0 || m["tree_seed"] != 2.0 || m["alpha"] != 0.97 {
			t.Errorf("α = 0.97, seed 2: %v", m)
		}
		// The simulator's report on the unit machine: with a budget of
		// one node a rank expands one node per step, so the steps until
		// the last node (last_work_seconds in µs) are a whole number, at
		// least N/p and the height, and less than the whole virtual time
		// (which adds termination and the reduction).
		m = c.json("alpha --np 16 --world sim --machine unit -b koso-star --budget 1 --json", "messages", "machine", "virtual_seconds",
			"work_virtual_seconds", "last_work_seconds", "busy_fraction")
		steps, virt := m["last_work_seconds"].(float64)*1e6, m["virtual_seconds"].(float64)*1e6
		if math.Abs(steps-math.Round(steps)) > 1e-6 || steps < 4269.0/16 || steps < 37 || !(steps < virt) ||
			m["work_virtual_seconds"] != 4269e-6 || m["speedup"] != nil || m["machine"].(map[string]any)["name"] != "unit" {
			t.Errorf("unit machine: %v", m)
		}
		// --trace on the unit machine: a bucket per step (fewer than 1024
		// steps: 621), each rank's queue, the queues summing to the tasks
		// queued, no more than 8 ranks busy, the busy rank-time the tree's
		// 4269 steps of work, the last bucket ending with the run.
		trace := filepath.Join(t.TempDir(), "trace.csv")
		m = c.json("alpha --np 8 --world sim --machine unit -b koso --budget 1 --json --trace "+trace, "virtual_seconds")
		checkTrace(t, trace, 8, m["virtual_seconds"].(float64), 4269e-6)
		if stdout, _, code := c.run("alpha -q --np 2"); code != 0 || stdout != "4269 36\n" {
			t.Errorf("-q: %d %q", code, stdout)
		}
	})

	t.Run("func help", func(t *testing.T) {
		c.t = t
		stdout, _, code := c.run("func help --np 3")
		for _, want := range []string{"sqrt", "exp", "runge", "gauss", "osc", "kink", "step", "0.66666666666666663", "1.7182818284590451"} {
			if code != 0 || !strings.Contains(stdout, want) {
				t.Errorf("func help: exit %d, no %q in %q", code, want, stdout)
			}
		}
		stdout, _, code = c.run("--interval 0,2 func help --json")
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		var exp map[string]any
		if code != 0 || len(lines) != 7 || json.Unmarshal([]byte(lines[1]), &exp) != nil || exp["name"] != "exp" || exp["exact"] != math.Exp(2)-1 {
			t.Errorf("func help --json: exit %d, %q", code, stdout)
		}
	})

	t.Run("root alone", func(t *testing.T) {
		c.t = t
		// A narrow peak between the three points the root's test sees:
		// the note says so, under either rule, and names the remedy that
		// works (a smaller θ_a; --rule relative alone does not).
		for _, args := range []string{"func gauss --interval 0,2", "func gauss --interval 0,2 --rule relative"} {
			stdout, _, code := c.run(args)
			if code != 0 || !strings.Contains(stdout, "saw f at 0, 1 and 2 only: a smaller --theta-a") {
				t.Errorf("integrate %s: exit %d, no note in %q", args, code, stdout)
			}
		}
		if stdout, _, _ := c.run("func gauss --interval 0,2 --theta-a 1e-14"); strings.Contains(stdout, "note:") {
			t.Errorf("a smaller θ_a still makes a one-node tree: %q", stdout)
		}
	})

	t.Run("help", func(t *testing.T) {
		c.t = t
		for args, wants := range map[string][]string{
			"--help":       {"poly", "func NAME", "alpha", "--tree-seed", "Exit status"},
			"help":         {"poly", "func NAME"},
			"poly --help":  {"--theta-a", "--theta-r", "'absolute' (the default, seed 003's rule)", "'relative'", "--interval", "--poly-seed", "--roots", "--np"},
			"alpha --help": {"--alpha", "--tree-seed", "not --seed", "--balancer"},
		} {
			stdout, _, code := c.run(args)
			for _, want := range wants {
				if code != 0 || !strings.Contains(stdout, want) {
					t.Errorf("integrate %s: exit %d, no %q", args, code, want)
				}
			}
		}
	})

	t.Run("bad input", func(t *testing.T) {
		c.t = t
		for _, tc := range []struct{ args, want string }{
			{"", "need a subcommand"},
			{"bogus", "unknown subcommand"},
			{"bogus --np 4", "--np is a flag of the subcommands (poly, func, alpha)"},
			{"func osc --theta-a", "--theta-a: needs a value"},
			{"poly --theta-a 0", "--theta-a 0: need a finite number > 0"},
			{"func exp --theta-a -1e-8", "--theta-a -1e-08"},
			{"poly --theta-r 0", "--theta-r 0"},
			{"poly --theta-a NaN", "--theta-a NaN"},
			{"func exp --theta-r Inf", "--theta-r +Inf"},
			{"alpha --alpha 0", "need 0 < α < 1"},
			{"alpha --alpha 1", "need 0 < α < 1"},
			{"alpha --alpha -0.5", "need 0 < α < 1"},
			{"alpha --alpha NaN", "need 0 < α < 1"},
			{"poly --degree 101", "--degree 101: need 0..100"},
			{"poly --degree -1", "--degree -1: need 0..100"},
			{"poly --interval 1,0", "need a < b"},
			{"func exp --interval 2,2", "need a < b"},
			{"poly --interval 0", "need two numbers"},
			{"poly --interval 0,1,2", "need two numbers"},
			{"poly --interval 0,Inf", "not a finite number"},
			{"poly --interval NaN,1", "not a finite number"},
			{"poly --interval -1e308,1e308", "wider than the largest float64"},
			{"poly --roots 0.1,,0.3", `item 2, ""`},
			{"poly --roots 0.1,x", `item 2, "x"`},
			{"poly --roots " + strings.Repeat("0.5,", 100) + "0.5", "101 roots, at most 100"},
			{"poly --roots 0.5 --factor NaN", "--factor NaN"},
			{"poly --roots 0.5 --poly-seed 2", "without --poly-seed"},
			{"poly --factor 2", "--factor goes with --roots"},
			{"poly --rule fuzzy", "--rule"},
			{"poly 5", "poly takes no arguments"},
			{"func", "needs one argument"},
			{"func nope", `no test function "nope"`},
			{"func sqrt --interval -1,1", "not finite at the ends"},
			{"alpha 3", "alpha takes no arguments"},
			{"alpha --theta-a 1e-8", "theta-a"},
			{"func exp --np 0", "--np 0"},
			{"alpha -b nonesuch", "unknown balancer"},
		} {
			stdout, stderr, code := c.run(tc.args)
			if code != 2 || !strings.HasPrefix(stderr, "integrate: ") || !strings.Contains(stderr, tc.want) || stdout != "" {
				t.Errorf("integrate %s: exit %d, stderr %q, stdout %q; want exit 2 and a message containing %q",
					tc.args, code, stderr, stdout, tc.want)
			}
		}
		// A tree of 10²² expected nodes runs, with a warning, unless a
		// limit bounds it (the simulation's event bound ends it here).
		_, stderr, _ := c.run("alpha --alpha 0.995 -q --world sim --max-events 1000")
		if !strings.Contains(stderr, "expects about 3.3e+22 nodes") {
			t.Errorf("α = 0.995: stderr %q, want the warning", stderr)
		}
		if _, stderr, _ := c.run("alpha --alpha 0.995 -q --world sim --max-events 1000 --max-nodes 5000"); strings.Contains(stderr, "warning") {
			t.Errorf("α = 0.995 with --max-nodes: stderr %q, want no warning", stderr)
		}
	})
}

// TestInvariant is integrate's row of the conformance table of printed
// counts (runnertest.Invariant, docs/counts.md): for each workload, the nodes
// and the certificate (which covers the leaves, the height and, for
// integrals, the value bit for bit) are the same under seq, every balancer
// variant on 1, 2, 3, 7 and 64 ranks of the embedded and the simulated
// world, and after checkpoints and restarts.
func TestInvariant(t *testing.T) {
	exec := runnertest.InProcess("integrate", newApp)
	for _, args := range []string{
		"poly --degree 10 --theta-a 1e-15",  // 115713 nodes
		"func osc --theta-a 1e-13",          // 153315 nodes
		"alpha --alpha 0.978 --tree-seed 1", // 879117 nodes
	} {
		t.Run(strings.Fields(args)[0], func(t *testing.T) {
			runnertest.Invariant(t, exec, strings.Fields(args), runnertest.NodesAndCertificate)
		})
	}
}

// checkTrace checks a --trace CSV of one run on p ranks: its header, a
// bucket per step of the unit machine, at most p ranks busy, the ranks'
// queues summing to the tasks queued, the busy rank-time (seconds) and the
// end of the last bucket (the run's virtual seconds). The CSV's numbers
// have 6 significant digits.
func checkTrace(t *testing.T, path string, p int, virtual, busy float64) {
	t.Helper()
	rows := runnertest.ReadCSV(t, path)
	want := "run,start_seconds,end_seconds,busy_ranks,busy_fraction,queued_tasks"
	for r := range p {
		want += fmt.Sprintf(",queue_%d", r)
	}
	if got := strings.Join(rows[0], ","); got != want {
		t.Fatalf("--trace header %q, want %q", got, want)
	}
	var sumBusy, end float64
	for i, row := range rows[1:] {
		v := make([]float64, len(row))
		for k, x := range row {
			var err error
			if v[k], err = strconv.ParseFloat(x, 64); err != nil {
				t.Fatalf("--trace row %d: %v", i+1, err)
			}
		}
		var queues float64
		for _, q := range v[6:] {
			queues += q
		}
		if v[0] != 1 || v[3] < 0 || v[3] > float64(p) || math.Abs(v[4]-v[3]/float64(p)) > 1e-5 ||
			math.Abs(queues-v[5]) > 1e-5*max(1, v[5]) || math.Abs(v[2]-v[1]-1e-6) > 1e-11 && i < len(rows)-2 {
			t.Fatalf("--trace row %d: %q", i+1, row)
		}
		sumBusy += v[3] * (v[2] - v[1])
		end = v[2]
	}
	if math.Abs(sumBusy-busy) > 1e-5*busy || math.Abs(end-virtual) > 1e-5*virtual {
		t.Errorf("--trace: busy rank-time %g s, want %g; ends at %g s, the run at %g s", sumBusy, busy, end, virtual)
	}
}
