package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/treelb/treelb/lb"
)

// Preset is a named campaign: the measurement behind one of the project's
// figures or tables, with its defaults. Every preset writes the runner's
// CSV and is summarized and plotted by the same code; the command-line
// flags of the campaign runner override its defaults (--world, --np,
// --balancer, --instance, --seeds, --repeats, --jobs, --csv, --title, --height),
// and its parameters (Params) are set with --set NAME=VALUE.
type Preset struct {
	Name, Doc string
	Defaults  Plan    // worlds, P, balancers, instances, seeds, repeats
	Params    []Param // the preset's own parameters
	CSV       string  // the default CSV file
	Title     string  // the plots' first title line (what ran)
	Height    string  // Derive's height columns
	Jobs      int     // runs at once (simulated campaigns)
	Tags      string  // build tags of the commands (mpi)
	Launcher  []string
	// Make returns the runs of the plan (the defaults with the flags'
	// overrides) and what else the campaign needs; nil: plan.Keys(). It
	// fills the plan's instances from the parameters when it has none.
	Make func(plan Plan, p Params) (Setup, error)
}

// Param is a parameter of a preset, with its default.
type Param struct{ Name, Default, Doc string }

// Params are the values of a preset's parameters by name.
type Params map[string]string

// Setup is what a preset's Make returns: the runs, and optionally how to
// build the foreign programs they need and the preset's own report.
type Setup struct {
	Keys []Key
	// Build builds the foreign programs into binDir (with the treelb
	// commands); log gets what it does.
	Build func(ctx context.Context, binDir string, log io.Writer) error
	// Report writes the preset's tables of the campaign's CSV, after the
	// summary.
	Report func(w io.Writer, t *Table) error
	// NoPlots leaves the plots out (tables that plot nothing).
	NoPlots bool
	// Sources says where each foreign program the runs name came from, by
	// its name: the runner writes it into the provenance of the program's
	// rows. Build may complete it (the MPI it found).
	Sources map[string]*Source
}

// Source is where a foreign program came from: the provenance of its
// runs' rows, in place of a treelb command's own.
type Source struct {
	Repo   string // the repository it was fetched from, as the preset names it
	Commit string // the revision built
	Build  string // how: the compiler and its flags
	MPI    string // for an MPI program, the MPI its compiler wrapper belongs to
}

// Presets returns every preset, by name.
func Presets() []Preset {
	korf := "12,42,19,47,9,48,30,31,28,45,5,13,20,6,4,25,11,1,7,14"
	gcelKorf := "12,19,30,28,5,20,6,35,44,11,1,33,22,14"
	all := append(lb.Names(), "rp --fast-init")
	return append([]Preset{
		{Name: "compare", Doc: "every balancer at P = 1 and 2 real ranks against the sequential solver, with the balancers' counters (--stats)",
			Defaults: Plan{Worlds: []string{"embedded --stats"}, NPs: []int{1, 2}, Balancers: lb.Names(),
				Instances: []string{"golomb 12", "fifteen --korf 5"}, Seeds: []int64{1}, Repeats: 3},
			CSV: "results/compare/compare.csv", Title: "every balancer against the sequential solver"},
		{Name: "fifteen-fig3", Doc: "seed 002 Fig. 3 on real ranks: speedup of every failing IDA* iteration of Korf instances against its sequential time",
			Defaults: Plan{Worlds: []string{"embedded"}, NPs: []int{2}, Balancers: []string{"rp", "rp --fast-init", "rp-local"}, Seeds: []int64{1}, Repeats: 3},
			Params:   []Param{{"korf", korf, "Korf's instances (ids and ranges A-B); the default spans 0.5 M to 1.4 G nodes"}},
			CSV:      "results/fifteen-fig3/fifteen-fig3.csv", Title: "seed 002 Fig. 3: the 15-puzzle's failing IDA* iterations", Height: "length",
			Make: korfInstances},
		{Name: "seed002-fifteen-gcel", Doc: "seed 002 Fig. 3 on 1024 simulated GCel PEs (results/seed002-fifteen-gcel/)",
			Defaults: Plan{Worlds: []string{"sim:gcel", "sim:gcel --budget 1000"}, NPs: []int{1024}, Balancers: []string{"rp", "rp --fast-init", "rp-local"},
				Seeds: []int64{1}, Repeats: 1},
			Params: []Param{{"korf", gcelKorf, "Korf's instances"}},
			CSV:    "results/seed002-fifteen-gcel/seed002-fifteen-gcel.csv", Title: "seed 002 Fig. 3: the 15-puzzle on the GCel", Height: "length", Jobs: 2,
			Make: korfInstances},
		{Name: "seed002-local-variants", Doc: "seed 002 §6.2: the neighbourhood variants of rp-local the paper rejected, Fig. 3's instances on 1024 simulated GCel PEs (results/seed002-local-variants/)",
			Defaults: Plan{Worlds: []string{"sim:gcel", "sim:gcel --budget 1000"}, NPs: []int{1024},
				Balancers: []string{"rp", "rp --fast-init", "rp-local", "rp-local --radius 16", "rp-local --growth 1.25", "rp-local --ordered-init"},
				Seeds:     []int64{1}, Repeats: 1},
			Params: []Param{{"korf", gcelKorf, "Korf's instances"}},
			CSV:    "results/seed002-local-variants/seed002-local-variants.csv", Title: "seed 002 §6.2: rp-local's rejected variants, the 15-puzzle on the GCel",
			Height: "length", Jobs: 2, Make: korfInstances},
		{Name: "seed002-golomb", Doc: "seed 002 §6.1: shortest Golomb rulers on 1024 simulated GCel PEs (results/seed002-golomb/)",
			Defaults: Plan{Worlds: []string{"sim:gcel", "sim:gcel --budget 1000"}, NPs: []int{1024}, Balancers: []string{"rp", "rp --fast-init", "rp-local", "ps"},
				Instances: []string{"golomb 13", "golomb 12"}, Seeds: []int64{1}, Repeats: 1},
			CSV: "results/seed002-golomb/seed002-golomb.csv", Title: "seed 002 §6.1: shortest Golomb rulers", Height: "marks", Jobs: 2},
		{Name: "seed002-golomb-count", Doc: "seed 002 §6.1: exhaustive Golomb counts on 1024 simulated GCel PEs (results/seed002-golomb-count/)",
			Defaults: Plan{Worlds: []string{"sim:gcel", "sim:gcel --budget 1000"}, NPs: []int{1024}, Balancers: []string{"rp", "rp --fast-init", "rp-local", "ps"},
				Instances: []string{"golomb --count 105 13", "golomb --count 84 12"}, Seeds: []int64{1}, Repeats: 1},
			CSV: "results/seed002-golomb-count/seed002-golomb-count.csv", Title: "seed 002 §6.1: exhaustive Golomb counts", Height: "marks", Jobs: 2},
		{Name: "seed002-drain", Doc: "seed 002 §4.2: rp's queue control, local rejection against the drain, on 1024 simulated GCel PEs (results/seed002-drain/)",
			Defaults: Plan{Worlds: []string{"sim:gcel", "sim:gcel --budget 1000"}, NPs: []int{1024},
				Balancers: []string{"rp", "rp --drain", "rp --queue-limit 1048576"},
				Instances: []string{"golomb 12", "fifteen --korf 12", "fifteen --korf 30", "fifteen --korf 5", "fifteen --korf 44",
					"fifteen --korf 1", "fifteen --korf 14"},
				Seeds: []int64{1}, Repeats: 1},
			CSV: "results/seed002-drain/seed002-drain.csv", Title: "seed 002 §4.2: queue control, rejection against drain", Height: "marks,length", Jobs: 2},
		{Name: "isoefficiency", Doc: "seeds 000/001 Fig. 2: the problem size that holds an efficiency as P grows, static, hybrid (clusters) and rp on UTS geometric trees, simulated GCel (results/isoefficiency/)",
			Defaults: Plan{Worlds: []string{"sim:gcel --budget 1000"}, NPs: []int{16, 64, 256, 1024},
				Balancers: []string{"static", "hybrid --clusters 8", "rp"},
				Instances: []string{"uts --tree-type 1 --shape 3 --branching 4 --root-seed 19 --depth 6",
					"uts --tree-type 1 --shape 3 --branching 4 --root-seed 19 --depth 7",
					"uts --tree-type 1 --shape 3 --branching 4 --root-seed 19 --depth 8",
					"uts --tree-type 1 --shape 3 --branching 4 --root-seed 19 --depth 9",
					"uts --tree-type 1 --shape 3 --branching 4 --root-seed 19 --depth 10",
					"uts --tree-type 1 --shape 3 --branching 4 --root-seed 19 --depth 11"},
				Seeds: []int64{1}, Repeats: 1},
			CSV: "results/isoefficiency/isoefficiency.csv", Title: "isoefficiency: static, hybrid, rp on UTS geometric trees", Height: "depth", Jobs: 2,
			Make: isoefficiencyKeys},
		{Name: "scale-gcel", Doc: "every balancer from 64 to 4096 simulated GCel PEs (results/scale-gcel/)",
			Defaults: Plan{Worlds: []string{"sim:gcel --budget 1000"}, NPs: []int{64, 256, 1024, 4096},
				Balancers: []string{"rp", "rp --fast-init", "rp-local", "ps", "static --levels 16", "hybrid --levels 16", "koso", "koso --fast-init",
					"koso-star", "koso-star --fast-init", "static", "hybrid"},
				Instances: []string{"golomb --count 75 12", "fifteen --korf 44"}, Seeds: []int64{1}, Repeats: 1},
			CSV: "results/scale-gcel/scale-gcel.csv", Title: "every balancer at scale", Height: "marks,length", Jobs: 2},
		{Name: "uts-scale", Doc: "UTS at scale: every balancer on sample trees from 64 to 4096 simulated cluster ranks",
			Defaults: Plan{Worlds: []string{"sim:cluster"}, NPs: []int{64, 256, 1024, 4096}, Balancers: all,
				Instances: []string{"uts --tree T1L", "uts --tree T3L"}, Seeds: []int64{1}, Repeats: 1},
			CSV: "results/uts-scale/uts-scale.csv", Title: "UTS sample trees at scale", Height: "depth", Jobs: 2},
		{Name: "knapsack-fig4", Doc: "seed 002 Fig. 4: knapsack speedup per instance of the sanders class against its sequential time",
			Defaults: Plan{Worlds: []string{"embedded"}, NPs: []int{2}, Balancers: []string{"rp"}, Seeds: []int64{1}, Repeats: 3},
			Params: []Param{{"instances", "2000:1-40 1000:1-24 500:1-12", "instances of knapsack gen --class sanders: M:SEEDS ..., SEEDS a list of seeds and ranges A-B"},
				{"search", "hs", "--search: hs (seed 002's Horowitz–Sahni) or core"}},
			CSV: "results/knapsack-fig4/knapsack-fig4.csv", Title: "seed 002 Fig. 4: knapsack, sanders class",
			Make: knapsackInstances},
		{Name: "knapsack-fig4-gcel", Doc: "seed 002 Fig. 4 on 1024 simulated GCel PEs: 256 instances of m = 2000 (results/knapsack-fig4-gcel/)",
			Defaults: Plan{Worlds: []string{"sim:gcel --budget 300"}, NPs: []int{1024}, Balancers: []string{"rp"}, Seeds: []int64{1}, Repeats: 1},
			Params: []Param{{"instances", "2000:1-256", "instances of knapsack gen --class sanders: M:SEEDS ..."},
				{"search", "hs", "--search: hs or core"}},
			CSV: "results/knapsack-fig4-gcel/knapsack-fig4-gcel.csv", Title: "seed 002 Fig. 4: knapsack, sanders class, m = 2000", Jobs: 2,
			Make: knapsackInstances},
		{Name: "gcel-sensitivity", Doc: "how seed 002's reproductions on 1024 simulated GCel PEs move when each assumed parameter of the gcel model is halved or doubled (results/gcel-sensitivity/)",
			Defaults: Plan{Worlds: gcelSensitivityWorlds(), NPs: []int{1024}, Balancers: []string{"rp"},
				Instances: []string{"golomb --count 84 12", "golomb 12", "fifteen --korf 44", "fifteen --korf 7"}, Seeds: []int64{1}, Repeats: 1},
			CSV: "results/gcel-sensitivity/gcel-sensitivity.csv", Title: "the gcel model's assumptions, halved and doubled", Height: "marks,length", Jobs: 2},
		{Name: "gcel-dt", Doc: "seed 002 §6.2's Δt trade-off on 1024 simulated GCel PEs: the budget from 100 to 10⁴ nodes, without a poll cost, with an assumed 5 µs and with 50 µs (results/gcel-dt/)",
			Defaults: Plan{Worlds: gcelDtWorlds(), NPs: []int{1024}, Balancers: []string{"rp"},
				Instances: []string{"golomb --count 75 12", "golomb --count 84 12", "fifteen --korf 44", "fifteen --korf 7"}, Seeds: []int64{1}, Repeats: 1},
			CSV: "results/gcel-dt/gcel-dt.csv", Title: "seed 002 §6.2: Δt on the GCel", Height: "marks,length", Jobs: 2},
		seed003Preset(),
		utsRefPreset(),
		utsRefMPIPreset(),
		expknapPreset(),
		validatePreset(),
	}, scalingPresets()...)
}

// LookupPreset returns the preset called name.
func LookupPreset(name string) (Preset, error) {
	ps := Presets()
	if i := slices.IndexFunc(ps, func(p Preset) bool { return p.Name == name }); i >= 0 {
		return ps[i], nil
	}
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
	}
	return Preset{}, fmt.Errorf("campaign: no preset %q (%s)", name, strings.Join(names, ", "))
}

// DescribePresets writes every preset with its doc, defaults and
// parameters.
func DescribePresets(w io.Writer) {
	for _, p := range Presets() {
		fmt.Fprintf(w, "%s: %s\n", p.Name, p.Doc)
		d := p.Defaults
		fmt.Fprintf(w, "    --csv %s", p.CSV)
		for _, x := range d.Worlds {
			fmt.Fprintf(w, " --world '%s'", x)
		}
		var nps []string
		for _, n := range d.NPs {
			nps = append(nps, strconv.Itoa(n))
		}
		if len(nps) > 0 {
			fmt.Fprintf(w, " --np %s", strings.Join(nps, ","))
		}
		if len(d.Balancers) > 0 {
			fmt.Fprintf(w, " --balancer '%s'", strings.Join(d.Balancers, "' --balancer '"))
		}
		for _, x := range d.Instances {
			fmt.Fprintf(w, " --instance '%s'", x)
		}
		fmt.Fprintf(w, " --repeats %d\n", d.Repeats)
		for _, pa := range p.Params {
			fmt.Fprintf(w, "    --set %s=%s: %s\n", pa.Name, pa.Default, pa.Doc)
		}
	}
}

// Resolve returns the preset's parameters: the defaults with set's values
// (NAME=VALUE each); it fails on a name the preset does not have.
func (p Preset) Resolve(set []string) (Params, error) {
	out := Params{}
	for _, pa := range p.Params {
		out[pa.Name] = pa.Default
	}
	for _, s := range set {
		name, value, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("campaign: --set %q: want NAME=VALUE", s)
		}
		if _, known := out[name]; !known {
			var names []string
			for _, pa := range p.Params {
				names = append(names, pa.Name)
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("campaign: --set %q: preset %s has no parameters", s, p.Name)
			}
			return nil, fmt.Errorf("campaign: --set %q: preset %s has the parameters %s", s, p.Name, strings.Join(names, ", "))
		}
		out[name] = value
	}
	return out, nil
}

// Setup returns the runs of the preset for plan and its parameters.
func (p Preset) Setup(plan Plan, params Params) (Setup, error) {
	if plan.Repeats > MaxRuns {
		// Before a preset's own listing (validate's took minutes on 10⁸).
		return Setup{}, fmt.Errorf("campaign: %d repeats: a plan of more than %d runs", plan.Repeats, MaxRuns)
	}
	if p.Make != nil {
		return p.Make(plan, params)
	}
	keys, err := plan.Keys()
	return Setup{Keys: keys}, err
}

// korfInstances fills the plan's instances with the Korf instances of the
// "korf" parameter.
func korfInstances(plan Plan, p Params) (Setup, error) {
	if len(plan.Instances) == 0 {
		ids, err := ParseInts(p["korf"])
		if err != nil {
			return Setup{}, fmt.Errorf("--set korf: %w", err)
		}
		for _, id := range ids {
			plan.Instances = append(plan.Instances, "fifteen --korf "+strconv.FormatInt(id, 10))
		}
	}
	keys, err := plan.Keys()
	return Setup{Keys: keys}, err
}

// isoefficiencyKeys adds to the plan's runs, at every P, seed 001's §6
// algorithm as specified: one subproblem per rank (hybrid --levels
// ⌈log₂ P⌉) and log^α P clusters polling inside, α = 1
// (--clusters ⌈log₂ P⌉).
func isoefficiencyKeys(plan Plan, _ Params) (Setup, error) {
	keys, err := plan.Keys()
	if err != nil {
		return Setup{}, err
	}
	have := map[string]bool{}
	for _, k := range keys {
		have[k.String()] = true
	}
	for _, np := range plan.NPs {
		l := max(1, bits.Len(uint(np-1)))
		q := plan
		q.NPs = []int{np}
		q.Balancers = []string{fmt.Sprintf("hybrid --levels %d --clusters %d", l, l)}
		more, err := q.Keys()
		if err != nil {
			return Setup{}, err
		}
		for _, k := range more {
			if !have[k.String()] {
				have[k.String()] = true
				keys = append(keys, k)
			}
		}
	}
	return Setup{Keys: keys}, nil
}

// knapsackInstances fills the plan's instances with the sanders instances
// of the "instances" parameter, generated by knapsack gen, searched with
// the "search" parameter's search.
func knapsackInstances(plan Plan, p Params) (Setup, error) {
	if len(plan.Instances) == 0 {
		search := p["search"]
		if search != "hs" && search != "core" {
			return Setup{}, fmt.Errorf("--set search=%s: want hs or core", search)
		}
		ins, err := sandersInstances(p["instances"])
		if err != nil {
			return Setup{}, err
		}
		for _, in := range ins {
			plan.Instances = append(plan.Instances, "knapsack --search "+search+" "+in)
		}
	}
	keys, err := plan.Keys()
	return Setup{Keys: keys}, err
}

// sandersInstances returns the generators <(knapsack gen --class sanders
// -m M --seed S) of "M:SEEDS ...", SEEDS a list of seeds and ranges A-B.
func sandersInstances(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Fields(s) {
		ms, seeds, ok := strings.Cut(f, ":")
		m, err := strconv.Atoi(ms)
		if !ok || err != nil || m < 1 {
			return nil, fmt.Errorf("--set instances: %q: want M:SEEDS", f)
		}
		ids, err := ParseInts(seeds)
		if err != nil {
			return nil, fmt.Errorf("--set instances: %q: %w", f, err)
		}
		for _, id := range ids {
			out = append(out, fmt.Sprintf("<(knapsack gen --class sanders -m %d --seed %d)", m, id))
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--set instances: no instance")
	}
	return out, nil
}

// GCelPollNS is the poll cost the GCel presets assume for PARIX on a T805
// (the catalogue's gcel model has none): a non-blocking test of a
// channel's message queue, a few hundred instructions and a process
// switch or two at 30 MHz. No published figure was found; it is an
// assumption, and gcel-sensitivity halves and doubles it.
const GCelPollNS = 5000

// gcelSensitivityWorlds returns the gcel model at Δt = 1000 as the
// catalogue has it and with the assumed poll cost, then each assumed
// parameter halved and doubled (on the model with the poll cost), and
// every message cost doubled and halved at once, which leaves speedups as
// halving and doubling the node cost would (a uniform scaling of every
// time leaves speedups unchanged).
func gcelSensitivityWorlds() []string {
	mi, err := lb.LookupMachine("gcel")
	if err != nil {
		panic(err)
	}
	m := mi.Machine
	base := "sim:gcel --budget 1000"
	poll := fmt.Sprintf(" --poll-ns %d", GCelPollNS)
	out := []string{base, base + poll}
	for _, f := range []struct {
		flag string
		v    float64
	}{{"--overhead-ns", m.OverheadNS}, {"--latency-ns", m.LatencyNS}, {"--hop-ns", m.HopNS}, {"--poll-ns", GCelPollNS}} {
		for _, k := range []float64{0.5, 2} {
			w := base
			if f.flag != "--poll-ns" {
				w += poll
			}
			out = append(out, w+fmt.Sprintf(" %s %g", f.flag, k*f.v))
		}
	}
	for _, k := range []float64{2, 0.5} {
		out = append(out, base+fmt.Sprintf(" --poll-ns %g --overhead-ns %g --latency-ns %g --hop-ns %g --byte-ns %g",
			k*GCelPollNS, k*m.OverheadNS, k*m.LatencyNS, k*m.HopNS, k*m.ByteNS))
	}
	return out
}

// gcelDtWorlds returns the gcel model at Δt = 100 to 10⁴ nodes, without
// a poll cost, with the assumed one, and with ten times that (what a poll
// would have to cost for a small Δt to lose on the simulated GCel).
func gcelDtWorlds() []string {
	var out []string
	for _, poll := range []string{"", fmt.Sprintf(" --poll-ns %d", GCelPollNS), fmt.Sprintf(" --poll-ns %d", 10*GCelPollNS)} {
		for _, b := range []int{100, 300, 1000, 3000, 10000} {
			out = append(out, fmt.Sprintf("sim:gcel --budget %d%s", b, poll))
		}
	}
	return out
}
