// Package campaign runs speedup campaigns of the treelb commands and plots
// them: it sweeps world × P × balancer × instance × seed × repeat, runs
// each command line once with --json, and keeps one CSV row per run with
// every field of the command's JSON output (nested objects flattened to
// dotted columns such as messages.request and machine.name, arrays kept as
// compact JSON) after the runner's own columns (run_world, run_np,
// run_balancer, run_instance, run_seed, run_repeat, run_command, run_load,
// run_wall_seconds). A CSV that already holds a run's key is not run again,
// so an interrupted campaign resumes where it stopped.
//
// Specifications are plain strings split at blanks (no quoting):
//
//	world     embedded | mpi | sim[:MACHINE] [FLAG...]   e.g. "sim:gcel --latency-ns 0"
//	balancer  NAME [OPTION...]                            e.g. "rp --fast-init"
//	instance  APP [ARG...]                                e.g. "golomb --count 60 11"
//
// Real worlds (embedded, mpi) need a sequential baseline for their speedup:
// the plan adds one `--balancer seq` run per world, instance and repeat
// (key balancer "seq", P 1, seed 0). Simulated runs report their speedup
// themselves (seq_virtual_seconds / virtual_seconds).
package campaign

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The runner's own columns, first in every CSV, in this order.
const (
	ColWorld    = "run_world"
	ColNP       = "run_np"
	ColBalancer = "run_balancer"
	ColInstance = "run_instance"
	ColSeed     = "run_seed"
	ColRepeat   = "run_repeat"
	ColCommand  = "run_command"
	ColLoad     = "run_load"
	ColWall     = "run_wall_seconds"
)

// RunColumns returns the runner's columns in their order.
func RunColumns() []string {
	return []string{ColWorld, ColNP, ColBalancer, ColInstance, ColSeed, ColRepeat, ColCommand, ColLoad, ColWall}
}

// Seq is the balancer of the sequential baseline runs.
const Seq = "seq"

// Key identifies one run of a campaign. The zero value is not a valid key.
type Key struct {
	World    string // world spec, normalised by ParseWorld
	NP       int    // ranks
	Balancer string // balancer spec with options, e.g. "rp --fast-init"
	Instance string // instance spec, e.g. "golomb 12"
	Seed     int64  // --seed (0 for the sequential baseline)
	Repeat   int    // 0, 1, … for repetitions of the same configuration
}

// String returns the key as one line, the form the runner uses to match a
// CSV row.
func (k Key) String() string {
	return fmt.Sprintf("world=%q np=%d balancer=%q instance=%q seed=%d repeat=%d",
		k.World, k.NP, k.Balancer, k.Instance, k.Seed, k.Repeat)
}

// Baseline reports whether k is a sequential baseline run.
func (k Key) Baseline() bool {
	f := strings.Fields(k.Balancer)
	return len(f) > 0 && f[0] == Seq
}

// Values returns the key's columns, in the order of RunColumns' first six.
func (k Key) Values() []string {
	return []string{k.World, strconv.Itoa(k.NP), k.Balancer, k.Instance, strconv.FormatInt(k.Seed, 10), strconv.Itoa(k.Repeat)}
}

// KeyOf parses the key from a CSV row given its columns; it fails on a
// missing column or a malformed value.
func KeyOf(cols map[string]int, row []string) (Key, error) {
	get := func(c string) (string, error) {
		i, ok := cols[c]
		if !ok || i >= len(row) {
			return "", fmt.Errorf("no column %s", c)
		}
		return row[i], nil
	}
	var k Key
	var errs []error
	str := func(c string) string {
		v, err := get(c)
		errs = append(errs, err)
		return v
	}
	num := func(c string) int64 {
		v, err := get(c)
		if err != nil {
			errs = append(errs, err)
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			errs = append(errs, fmt.Errorf("column %s: %w", c, err))
		}
		return n
	}
	k.World, k.Balancer, k.Instance = str(ColWorld), str(ColBalancer), str(ColInstance)
	k.NP, k.Seed, k.Repeat = int(num(ColNP)), num(ColSeed), int(num(ColRepeat))
	if err := errors.Join(errs...); err != nil {
		return Key{}, err
	}
	if _, err := ParseWorld(k.World); err != nil {
		return Key{}, err
	}
	if k.NP < 1 || k.Repeat < 0 || len(strings.Fields(k.Balancer)) == 0 || len(strings.Fields(k.Instance)) == 0 {
		return Key{}, fmt.Errorf("bad key %s", k)
	}
	return k, nil
}

// World is a parsed world spec.
type World struct {
	Name    string   // embedded, mpi or sim
	Machine string   // sim: the machine model ("" for the command's default)
	Flags   []string // further flags of the command
}

// ParseWorld parses "embedded", "mpi" or "sim[:MACHINE]", each followed by
// flags of the command.
func ParseWorld(s string) (World, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return World{}, errors.New("campaign: empty world")
	}
	name, machine, _ := strings.Cut(f[0], ":")
	w := World{Name: name, Machine: machine, Flags: f[1:]}
	switch {
	case name == "sim":
	case name != "embedded" && name != "mpi":
		return World{}, fmt.Errorf("campaign: world %q: want embedded, mpi or sim[:MACHINE]", s)
	case machine != "":
		return World{}, fmt.Errorf("campaign: world %q: only sim takes a machine", s)
	}
	for _, fl := range w.Flags {
		if fl == "--world" || strings.HasPrefix(fl, "--world=") || fl == "--np" || strings.HasPrefix(fl, "--np=") {
			return World{}, fmt.Errorf("campaign: world %q: give --world and --np by the spec and the P list", s)
		}
	}
	return w, nil
}

// String returns the normalised spec.
func (w World) String() string {
	s := w.Name
	if w.Machine != "" {
		s += ":" + w.Machine
	}
	return strings.Join(append([]string{s}, w.Flags...), " ")
}

// Real reports whether the world runs in real time (not simulated).
func (w World) Real() bool { return w.Name != "sim" }

// Args returns the command's flags for the world at P ranks: under mpi the
// launcher sets the size, so neither --world (implied by the build) nor
// --np is given.
func (w World) Args(np int) []string {
	var a []string
	switch w.Name {
	case "mpi":
	case "sim":
		a = append(a, "--world", "sim", "--np", strconv.Itoa(np))
		if w.Machine != "" {
			a = append(a, "--machine", w.Machine)
		}
	default:
		a = append(a, "--world", w.Name, "--np", strconv.Itoa(np))
	}
	return append(a, w.Flags...)
}

// Plan is a campaign: the lists it sweeps.
type Plan struct {
	Worlds    []string // world specs
	NPs       []int
	Balancers []string // balancer specs
	Instances []string // instance specs
	Seeds     []int64
	Repeats   int // runs of each configuration (at least 1)
}

// Keys returns every run of the plan in the order the runner runs them:
// by world, instance and repeat; in each, the sequential baseline first
// (real worlds only), then by seed, balancer and P. It fails on a
// malformed spec, an empty list or a repeated entry.
func (p Plan) Keys() ([]Key, error) {
	if p.Repeats < 1 {
		return nil, fmt.Errorf("campaign: %d repeats: need at least 1", p.Repeats)
	}
	for name, n := range map[string]int{"world": len(p.Worlds), "P": len(p.NPs), "balancer": len(p.Balancers), "instance": len(p.Instances), "seed": len(p.Seeds)} {
		if n == 0 {
			return nil, fmt.Errorf("campaign: no %s", name)
		}
	}
	worlds := make([]World, len(p.Worlds))
	for i, s := range p.Worlds {
		w, err := ParseWorld(s)
		if err != nil {
			return nil, err
		}
		worlds[i] = w
	}
	for _, np := range p.NPs {
		if np < 1 {
			return nil, fmt.Errorf("campaign: P = %d: need at least 1", np)
		}
	}
	balancers, err := normalise("balancer", p.Balancers)
	if err != nil {
		return nil, err
	}
	instances, err := normalise("instance", p.Instances)
	if err != nil {
		return nil, err
	}
	var keys []Key
	seen := map[Key]bool{}
	add := func(k Key) error {
		if seen[k] {
			return fmt.Errorf("campaign: run %s twice in the plan", k)
		}
		seen[k] = true
		keys = append(keys, k)
		return nil
	}
	for _, w := range worlds {
		for _, in := range instances {
			for r := range p.Repeats {
				if w.Real() {
					if err := add(Key{World: w.String(), NP: 1, Balancer: Seq, Instance: in, Repeat: r}); err != nil {
						return nil, err
					}
				}
				for _, seed := range p.Seeds {
					for _, b := range balancers {
						for _, np := range p.NPs {
							if err := add(Key{World: w.String(), NP: np, Balancer: b, Instance: in, Seed: seed, Repeat: r}); err != nil {
								return nil, err
							}
						}
					}
				}
			}
		}
	}
	return keys, nil
}

// normalise joins each spec's fields with single blanks and rejects empty
// and repeated specs.
func normalise(what string, specs []string) ([]string, error) {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		n := strings.Join(strings.Fields(s), " ")
		if n == "" {
			return nil, fmt.Errorf("campaign: empty %s", what)
		}
		if slices.Contains(out, n) {
			return nil, fmt.Errorf("campaign: %s %q twice", what, n)
		}
		out = append(out, n)
	}
	return out, nil
}

// App returns the command an instance spec runs ("golomb" of "golomb 12").
func App(instance string) string { return strings.Fields(instance)[0] }

// Command returns the command line of the run k: the launcher (its {np}
// replaced by P; none when empty), the binary binDir/APP (APP alone for an
// empty binDir), --json, the
// world's flags, the balancer and its options, --seed (not for the
// baseline) and the instance's arguments.
func Command(k Key, binDir string, launcher []string) ([]string, error) {
	w, err := ParseWorld(k.World)
	if err != nil {
		return nil, err
	}
	var cmd []string
	for _, a := range launcher {
		cmd = append(cmd, strings.ReplaceAll(a, "{np}", strconv.Itoa(k.NP)))
	}
	in := strings.Fields(k.Instance)
	b := strings.Fields(k.Balancer)
	bin := in[0]
	if binDir != "" {
		bin = filepath.Join(binDir, bin)
	}
	cmd = append(cmd, bin, "--json")
	cmd = append(cmd, w.Args(k.NP)...)
	cmd = append(cmd, "--balancer", b[0])
	cmd = append(cmd, b[1:]...)
	if !k.Baseline() {
		cmd = append(cmd, "--seed", strconv.FormatInt(k.Seed, 10))
	}
	return append(cmd, in[1:]...), nil
}

// ParseInts parses a comma-separated list of integers and ranges A-B, or
// A..B*F for a geometric series (64..4096*2: 64, 128, …, 4096).
func ParseInts(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if lo, rest, ok := strings.Cut(f, ".."); ok {
			hi, fs, ok := strings.Cut(rest, "*")
			a, err1 := strconv.ParseInt(lo, 10, 64)
			b, err2 := strconv.ParseInt(hi, 10, 64)
			m, err3 := strconv.ParseInt(fs, 10, 64)
			if !ok || err1 != nil || err2 != nil || err3 != nil || a < 1 || m < 2 || b < a {
				return nil, fmt.Errorf("campaign: %q: want A..B*F with 1 ≤ A ≤ B, F ≥ 2", f)
			}
			for v := a; v <= b; v *= m {
				out = append(out, v)
			}
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.ParseInt(lo, 10, 64)
		b := a
		if err == nil && isRange {
			b, err = strconv.ParseInt(hi, 10, 64)
		}
		if err != nil || b < a {
			return nil, fmt.Errorf("campaign: %q: want N, A-B or A..B*F", f)
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}
