// Package campaign runs measurement campaigns of the treelb commands and
// plots them: it sweeps world × P × balancer × instance × seed × repeat,
// runs each command line once with --json, and keeps one CSV row per run
// with every field of the command's JSON output (nested objects flattened
// to dotted columns such as messages.request, machine.name and
// provenance.commit, arrays kept as compact JSON) after the runner's own
// columns (RunColumns: the key, the command line, the load average before
// and after the run, the cores, a warning when the load left the run fewer
// cores than it has ranks, its wall and CPU time). A CSV that already
// holds a run's key is not run again, so an interrupted campaign resumes
// where it stopped. Presets (Presets) name the campaigns behind the
// project's figures; docs/measuring.md says how they measure.
//
// Specifications are plain strings split at blanks (no quoting):
//
//	world     embedded | mpi | sim[:MACHINE] [FLAG...]   e.g. "sim:gcel --latency-ns 0"
//	balancer  NAME [OPTION...]                            e.g. "rp --fast-init"
//	instance  APP [ARG...]                                e.g. "golomb --count 60 11"
//
// An instance argument <(APP ARG...) (blanks inside allowed) is the output
// of that command, made once and kept in a file whose path replaces it:
// "knapsack --search hs <(knapsack gen --class sanders -m 2000 --seed 5)".
//
// Every speedup is measured against the sequential solver on the same
// instance, never against a parallel run's own work. The plan adds the
// baselines: in a real world (embedded, mpi) one `--balancer seq` run per
// world, instance and repeat, whose median time is T_seq; in the simulator
// one `--balancer seq` run per instance (world "sim", shared by every
// simulated world), whose nodes times the machine's node cost are T_seq,
// and which the simulated runs get as --seq-nodes, so that the speedup
// they print is that one too.
package campaign

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
)

// The runner's own columns, first in every CSV, in this order.
const (
	ColWorld      = "run_world"
	ColNP         = "run_np"
	ColBalancer   = "run_balancer"
	ColInstance   = "run_instance"
	ColSeed       = "run_seed"
	ColRepeat     = "run_repeat"
	ColCommand    = "run_command"
	ColLoadBefore = "run_load_before" // 1-minute load average just before the run
	ColLoadAfter  = "run_load_after"  // and just after it
	ColCores      = "run_cores"       // the cores of the machine that ran the campaign
	ColWarning    = "run_warning"     // why the run's time may be disturbed; "" when it is not
	ColWall       = "run_wall_seconds"
	ColCPU        = "run_cpu_seconds" // user and system time of the process and the children it waited for
)

// RunColumns returns the runner's columns in their order.
func RunColumns() []string {
	return []string{ColWorld, ColNP, ColBalancer, ColInstance, ColSeed, ColRepeat, ColCommand, ColLoadBefore, ColLoadAfter,
		ColCores, ColWarning, ColWall, ColCPU}
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
	for _, err := range errs { // the first: a CSV that is no campaign's lacks them all
		if err != nil {
			return Key{}, err
		}
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
	// NoBaselines leaves the sequential baselines out: for campaigns that
	// measure no speedup (seed 003's NPF tables).
	NoBaselines bool
}

// SimBaselineWorld is the world of the simulated worlds' baselines: the
// sequential solver's nodes do not depend on the machine.
const SimBaselineWorld = "sim"

// checkBalancers refuses a balancer that is none of lb's (or seq) and seq
// on more than one rank, whose rows would say P ranks of a run on one.
func checkBalancers(balancers []string, nps []int) error {
	for _, b := range balancers {
		if name := strings.Fields(b)[0]; name != Seq {
			if _, err := lb.Lookup(name); err != nil {
				return fmt.Errorf("campaign: balancer %q: %w", b, err)
			}
		}
		if (Key{Balancer: b}).Baseline() && slices.ContainsFunc(nps, func(np int) bool { return np != 1 }) {
			return fmt.Errorf("campaign: balancer %q: the sequential solver runs on one rank, not on P = %v (every campaign runs it as its baseline)", b, nps)
		}
	}
	return nil
}

// machineNames lists the simulator's machine models.
func machineNames() []string {
	var names []string
	for _, m := range lb.Machines() {
		names = append(names, m.Name)
	}
	return names
}

// MaxRuns bounds the runs of a plan.
const MaxRuns = 1_000_000

// Keys returns every run of the plan in the order the runner runs them:
// by world, instance and repeat; in each, the sequential baseline first
// (a real world's per repeat; the simulator's once per instance, before
// the instance's first simulated run), then by seed, balancer and P. It
// fails on a malformed spec, an empty list or a repeated entry.
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
		if np < 1 || np > runner.MaxNP {
			return nil, fmt.Errorf("campaign: P = %d: need 1 to %d ranks", np, runner.MaxNP)
		}
	}
	balancers, err := normalise("balancer", p.Balancers)
	if err != nil {
		return nil, err
	}
	for _, w := range worlds {
		// A model's name or a file: a misspelt one failed only when its
		// first run came (a dry run listed it).
		if _, err := lb.LookupMachine(w.Machine); w.Machine != "" && err != nil {
			if st, serr := os.Stat(w.Machine); serr != nil || !st.Mode().IsRegular() {
				return nil, fmt.Errorf("campaign: world %q: machine %q is no model (%s) and no file", w, w.Machine, strings.Join(machineNames(), ", "))
			}
		}
	}
	if err := checkBalancers(balancers, p.NPs); err != nil {
		return nil, err
	}
	if !p.NoBaselines {
		// The baseline is every campaign's own run of seq: named as a
		// balancer too, it ran twice (seed 0 and 1) and both counted in
		// T_seq.
		balancers = slices.DeleteFunc(balancers, func(b string) bool { return Key{Balancer: b}.Baseline() })
		if len(balancers) == 0 {
			return nil, fmt.Errorf("campaign: --balancer seq alone: the sequential solver is every campaign's baseline already; name a balancer to measure against it (%s)", strings.Join(lb.Names(), ", "))
		}
	}
	instances, err := normalise("instance", p.Instances)
	if err != nil {
		return nil, err
	}
	// The runs in all, checked before they are listed (--repeats 10⁹ ran
	// out of memory): the product, bounded at each step.
	runs := int64(1)
	for _, n := range []int{len(worlds), len(instances), p.Repeats, len(p.Seeds), len(balancers), len(p.NPs)} {
		if runs *= int64(n); runs > MaxRuns {
			return nil, fmt.Errorf("campaign: a plan of more than %d runs (worlds × instances × repeats × seeds × balancers × P)", MaxRuns)
		}
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
			if !w.Real() && !p.NoBaselines {
				if k := (Key{World: SimBaselineWorld, NP: 1, Balancer: Seq, Instance: in}); !seen[k] {
					if err := add(k); err != nil {
						return nil, err
					}
				}
			}
			for r := range p.Repeats {
				if w.Real() && !p.NoBaselines {
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

// Arg is one argument of an instance spec: a word, or the output of a
// generating command <(APP ARG...).
type Arg struct {
	Word string   // the argument as written (the whole <(...) for a generator)
	Gen  []string // the generating command's words; nil for a plain word
}

// InstanceArgs splits an instance spec after its APP into arguments. It
// fails on a <( without its ) and on an empty generator.
func InstanceArgs(instance string) ([]Arg, error) {
	f := strings.Fields(instance)
	if len(f) == 0 {
		return nil, errors.New("campaign: empty instance")
	}
	var out []Arg
	for i := 1; i < len(f); i++ {
		if !strings.HasPrefix(f[i], "<(") {
			out = append(out, Arg{Word: f[i]})
			continue
		}
		j := i
		for j < len(f) && !strings.HasSuffix(f[j], ")") {
			j++
		}
		if j == len(f) {
			return nil, fmt.Errorf("campaign: instance %q: <( without )", instance)
		}
		words := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(strings.Join(f[i:j+1], " "), "<("), ")"))
		if len(words) == 0 {
			return nil, fmt.Errorf("campaign: instance %q: an empty <()", instance)
		}
		out = append(out, Arg{Word: strings.Join(f[i:j+1], " "), Gen: words})
		i = j
	}
	return out, nil
}

// CommandOptions says how Command makes a command line.
type CommandOptions struct {
	BinDir   string   // directory of the commands ("": their names alone)
	Launcher []string // prefix of every real run's command line; {np} is replaced by P
	// SeqNodes is the sequential solver's nodes on the instance, passed to
	// a simulated run as --seq-nodes (0: not passed).
	SeqNodes int64
	// Input returns the file holding a generator's output (see
	// InstanceArgs); nil leaves the <(...) as written.
	Input func(gen []string) (string, error)
}

// Command returns the command line of the run k: the launcher (its {np}
// replaced by P; none when empty, and none for a simulated run), the binary BinDir/APP, --json, the
// world's flags, the balancer and its options, --seed (not for the
// baseline), --seq-nodes (simulated runs, when known) and the instance's
// arguments. A foreign program (a reference solver, Foreign) gets the
// arguments it takes instead.
func Command(k Key, o CommandOptions) ([]string, error) {
	w, err := ParseWorld(k.World)
	if err != nil {
		return nil, err
	}
	var cmd []string
	if w.Real() {
		// A simulated run is one process whatever its P: no launcher.
		for _, a := range o.Launcher {
			cmd = append(cmd, strings.ReplaceAll(a, "{np}", strconv.Itoa(k.NP)))
		}
	}
	args, err := InstanceArgs(k.Instance)
	if err != nil {
		return nil, err
	}
	var in []string
	for _, a := range args {
		if a.Gen != nil && o.Input != nil {
			path, err := o.Input(a.Gen)
			if err != nil {
				return nil, err
			}
			in = append(in, path)
			continue
		}
		in = append(in, a.Word)
	}
	app := App(k.Instance)
	bin := app
	if o.BinDir != "" {
		bin = filepath.Join(o.BinDir, bin)
	}
	if f, ok := LookupForeign(app); ok {
		fa, err := f.Args(in)
		if err != nil {
			return nil, fmt.Errorf("campaign: %s: %w", k.Instance, err)
		}
		return append(append(cmd, bin), fa...), nil
	}
	b := strings.Fields(k.Balancer)
	cmd = append(cmd, bin, "--json")
	cmd = append(cmd, w.Args(k.NP)...)
	cmd = append(cmd, "--balancer", b[0])
	cmd = append(cmd, b[1:]...)
	if !k.Baseline() {
		cmd = append(cmd, "--seed", strconv.FormatInt(k.Seed, 10))
		if !w.Real() && o.SeqNodes > 0 {
			cmd = append(cmd, "--seq-nodes", strconv.FormatInt(o.SeqNodes, 10))
		}
	}
	return append(cmd, in...), nil
}

// maxInts is the most values a list of ParseInts may hold: more P, seeds
// or instances than any campaign runs.
const maxInts = 4096

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
				return nil, fmt.Errorf("%q: want A..B*F with 1 ≤ A ≤ B, F ≥ 2", f)
			}
			for v := a; ; v *= m {
				out = append(out, v)
				if v > b/m {
					break // the next would pass B (or overflow)
				}
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
			return nil, fmt.Errorf("%q: want N, A-B or A..B*F", f)
		}
		if b-a >= maxInts-int64(len(out)) {
			return nil, fmt.Errorf("%q: more than %d values in the list", s, maxInts)
		}
		for v := a; ; v++ { // not v <= b: b may be the largest int64
			out = append(out, v)
			if v == b {
				break
			}
		}
	}
	return out, nil
}
