package campaign

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/treelb/treelb/lb"
)

// The validation of the simulator against real runs (preset validate,
// scripts/validate.sh): every instance at every P and budget Δt runs in
// one real world, Repeats times, and once in the simulator with that
// world's calibrated model (a file per world, app and budget, written by
// the command's --calibrate --budget before the campaign); the report sets the
// simulated virtual seconds against the median measured seconds, with the
// error and, where the model misses, the share of the difference that the
// work, the idle time and the rest (polls, messages, start-up) explain.

// ValidateInstances are the validation's default instances: about 1 s each
// sequentially on the 2-core development machine (AMD EPYC, unloaded), by
// their nodes times the apps' measured node costs.
var ValidateInstances = []string{
	"golomb --count 85 12",                     // exhaustive: 7.6·10⁷ nodes, the same at every P
	"fifteen --korf 7",                         // IDA*: 3.9·10⁸ nodes; the last iteration stops at a solution
	"uts --tree T1 --depth 11 --granularity 2", // exhaustive geometric tree, 1.65·10⁷ nodes of 2 SHA-1 each
	"knapsack --search core <(knapsack gen --class sanders -m 2000 --seed 20)", // branch and bound: 2.3·10⁸ nodes sequentially
}

// The validation's targets: every row's error within 15 %, their median
// within 10 % (issue 21).
const (
	ValidateRowTarget    = 15.0
	ValidateMedianTarget = 10.0
)

// ValidateWorlds are the real worlds the validation knows, and the world
// spec each runs as (both MPI libraries run as mpi; the command's build and
// the launcher pick the library).
var ValidateWorlds = map[string]string{"embedded": "embedded", "openmpi": "mpi", "mpich": "mpi"}

// MachineFile returns the file in dir of the model of world and app that
// --calibrate --budget budget measured (WORLD-APP-bBUDGET.json): the cost
// of a work slice depends on the budget, so each budget has its own.
func MachineFile(dir, world, app string, budget int64) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s-b%d.json", world, app, budget))
}

// MedianMachine returns the model whose every cost (each float64 field of
// lb.Machine) is the median (Median) of that cost in ms, the models of
// repeated calibrations of one configuration: scripts/validate.sh
// calibrates before each repeat of the real runs, so that the model follows
// the machine's speed over the minutes the runs take, not over the seconds
// of one calibration. The other fields (name, topology, switches) must agree;
// the source names every calibration.
func MedianMachine(ms []lb.Machine) (lb.Machine, error) {
	if len(ms) == 0 {
		return lb.Machine{}, errors.New("campaign: the median of no models")
	}
	out := ms[0]
	v := reflect.ValueOf(&out).Elem()
	sources := make([]string, len(ms))
	for i, m := range ms {
		sources[i] = m.Source
	}
	for f := range v.NumField() {
		field := v.Type().Field(f)
		if field.Name == "Source" {
			continue
		}
		if field.Type.Kind() != reflect.Float64 {
			for i, m := range ms[1:] {
				if w := reflect.ValueOf(m).Field(f); !w.Equal(v.Field(f)) {
					return lb.Machine{}, fmt.Errorf("campaign: model %d of %d has %s %v, the first %v", i+2, len(ms), field.Name, w, v.Field(f))
				}
			}
			continue
		}
		xs := make([]float64, len(ms))
		for i, m := range ms {
			xs[i] = reflect.ValueOf(m).Field(f).Float()
		}
		v.Field(f).SetFloat(Median(xs))
	}
	out.Source = fmt.Sprintf("the median, cost by cost, of %d calibrations: %s", len(ms), strings.Join(sources, "; then "))
	return out, out.Validate()
}

func validatePreset() Preset {
	return Preset{Name: "validate", Doc: "the simulator against real runs: every instance at each P and budget in one real world (--set world), " +
		"and simulated with that world's calibrated model (--set machines: DIR/WORLD-APP-bBUDGET.json, from the command's --calibrate --budget BUDGET; scripts/validate.sh does it all)",
		Defaults: Plan{NPs: []int{1, 2}, Balancers: []string{"rp"}, Instances: slices.Clone(ValidateInstances), Seeds: []int64{1}, Repeats: 3},
		Params: []Param{{"world", "embedded", "the real world: embedded, openmpi or mpich (for MPI give --bin-dir of that build and --launcher)"},
			{"machines", "results/validate/machines", "directory of the calibrated models, WORLD-APP-bBUDGET.json"},
			{"budgets", "10,100,1000,10000", "the budgets Δt in nodes, comma-separated"},
			{"table", "", "also write the comparison as CSV to this `FILE`"},
			{"simulate", "yes", "no: leave the simulated runs out (scripts/validate.sh's runs between two calibrations, before the model, the median of them, is made)"},
			{"provenance", "", "what made the campaign (scripts/validate.sh's command line, commit, machine): the table's \"campaign\" column, before the provenance.* columns of each row's runs"}},
		CSV: "results/validate/validate.csv", Title: "the simulator against real runs",
		Make: validateKeys}
}

// validateKeys returns the validation's runs: by repeat, instance, budget,
// balancer and P, the real runs (and a sequential baseline per instance and
// repeat) first, so that repeats are spread over the campaign; then the
// simulated runs, once each (the simulator is deterministic).
func validateKeys(plan Plan, p Params) (Setup, error) {
	world := p["world"]
	real, ok := ValidateWorlds[world]
	if !ok {
		return Setup{}, fmt.Errorf("--set world=%s: want embedded, openmpi or mpich", world)
	}
	if len(plan.Worlds) > 0 {
		return Setup{}, errors.New("campaign: preset validate: give the real world by --set world=, not --world")
	}
	budgets, err := ParseInts(p["budgets"])
	if err != nil {
		return Setup{}, fmt.Errorf("--set budgets: %w", err)
	}
	if plan.Repeats < 1 || len(plan.NPs) == 0 || len(plan.Balancers) == 0 || len(plan.Instances) == 0 || len(plan.Seeds) == 0 {
		return Setup{}, errors.New("campaign: preset validate: need repeats, P, balancers, instances and seeds")
	}
	balancers, err := normalise("balancer", plan.Balancers)
	if err != nil {
		return Setup{}, err
	}
	if err := checkBalancers(balancers, plan.NPs); err != nil {
		return Setup{}, err
	}
	instances, err := normalise("instance", plan.Instances)
	if err != nil {
		return Setup{}, err
	}
	if n := float64(plan.Repeats) * float64(len(instances)) * (1 + 2*float64(len(budgets)*len(plan.Seeds)*len(balancers)*len(plan.NPs))); n > MaxRuns {
		return Setup{}, fmt.Errorf("campaign: preset validate: a plan of more than %d runs", MaxRuns)
	}
	if len(budgets) == 0 {
		return Setup{}, errors.New("--set budgets: need at least one budget")
	}
	for _, b := range budgets {
		if b < 1 {
			return Setup{}, fmt.Errorf("--set budgets: %d: need at least 1 node", b)
		}
	}
	simulate := p["simulate"]
	if simulate != "yes" && simulate != "no" {
		return Setup{}, fmt.Errorf("--set simulate=%s: want yes or no", simulate)
	}
	machines := p["machines"]
	if strings.ContainsAny(machines, " \t\n") {
		return Setup{}, fmt.Errorf("--set machines=%q: a directory without blanks (world specs split at blanks)", machines)
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
	bf := func(b int64) string { return " --stats --budget " + strconv.FormatInt(b, 10) }
	for r := range plan.Repeats {
		for _, in := range instances {
			if err := add(Key{World: real, NP: 1, Balancer: Seq, Instance: in, Repeat: r}); err != nil {
				return Setup{}, err
			}
			for _, b := range budgets {
				for _, seed := range plan.Seeds {
					for _, bal := range balancers {
						for _, np := range plan.NPs {
							if err := add(Key{World: real + bf(b), NP: np, Balancer: bal, Instance: in, Seed: seed, Repeat: r}); err != nil {
								return Setup{}, err
							}
						}
					}
				}
			}
		}
	}
	if simulate == "no" {
		return Setup{Keys: keys, NoPlots: true, Report: func(w io.Writer, _ *Table) error {
			_, err := fmt.Fprintln(w, "### The real runs only (--set simulate=no): no comparison")
			return err
		}}, nil
	}
	for _, in := range instances {
		// The sequential row checks the node cost alone: the first
		// budget's model.
		if err := add(Key{World: "sim:" + MachineFile(machines, world, App(in), budgets[0]), NP: 1, Balancer: Seq, Instance: in}); err != nil {
			return Setup{}, err
		}
		for _, b := range budgets {
			sim := "sim:" + MachineFile(machines, world, App(in), b)
			for _, seed := range plan.Seeds {
				for _, bal := range balancers {
					for _, np := range plan.NPs {
						if err := add(Key{World: sim + bf(b), NP: np, Balancer: bal, Instance: in, Seed: seed}); err != nil {
							return Setup{}, err
						}
					}
				}
			}
		}
	}
	table, prov := p["table"], p["provenance"]
	return Setup{Keys: keys, NoPlots: true, Report: func(w io.Writer, t *Table) error {
		rows, err := Validation(t)
		if err != nil {
			return err
		}
		if table != "" {
			if err := WriteValidation(table, rows, prov); err != nil {
				return err
			}
		}
		return ValidationMarkdown(w, world, rows)
	}}, nil
}

// ValidationRow is one configuration of the validation: the real runs'
// measured seconds against the simulated run's virtual seconds, with the
// counters of both that say where they differ.
type ValidationRow struct {
	Instance, Balancer string
	NP                 int
	Budget             int64  // 0 for the sequential solver
	Real               Spread // the real runs' own seconds ("seconds": the run, without the launch)
	Wall               Spread // the real runs' process wall time (run_wall_seconds: with the launch)
	LoadMin, LoadMax   float64
	Sim                float64    // the simulated run's virtual seconds
	ErrorPct           float64    // (Sim − Real.Median) / Real.Median · 100
	Nodes              [2]float64 // real (median), simulated
	Slices             [2]float64 // polls: the work slices
	Messages           [2]float64
	NodeNS             [2]float64 // real: work seconds / nodes; simulated: the model's node cost
	// SliceNS is the model's cost of a work slice beyond its nodes: its
	// poll and the rest of the loop's cost per slice (PollNS + SliceNS,
	// which --calibrate measures at the row's budget).
	SliceNS float64
	// DWork and DRest split Real.Median − Sim per rank: the ranks' work
	// (their nodes' time: node cost and node count) and the rest (polls,
	// messages, idle time, the start and the end). The worlds count idle
	// time differently (the simulator's includes the loop's charges), so
	// the two are not split further.
	DWork, DRest float64
	// Explains names the larger part when the error misses the row target:
	// "nodes" (the real run searched other nodes), "node cost" or "loop".
	Explains string
	// Provenance is the provenance.* columns of the configuration's first
	// real run, in the runs table's order (what was run, where, and the
	// load): WriteValidation copies them into every row.
	Provenance []Field
}

// Validation returns the validation rows of a validate campaign's table:
// each configuration run in a real world paired with its simulated run.
func Validation(t *Table) ([]ValidationRow, error) {
	type cfg struct {
		inst, bal string
		np        int
		budget    int64
		seed      string
	}
	budgetOf := func(world string) int64 {
		f := strings.Fields(world)
		for i := range f {
			if f[i] == "--budget" && i+1 < len(f) {
				b, _ := strconv.ParseInt(f[i+1], 10, 64)
				return b
			}
		}
		return 0
	}
	real := map[cfg][]int{}
	sim := map[cfg]int{}
	nodeCost := map[string]float64{} // the first budget's model's, by instance
	var order []cfg
	for i := range t.Rows {
		w, err := ParseWorld(t.Get(i, ColWorld))
		if err != nil {
			return nil, err
		}
		np, _ := strconv.Atoi(t.Get(i, ColNP))
		c := cfg{t.Get(i, ColInstance), t.Get(i, ColBalancer), np, budgetOf(t.Get(i, ColWorld)), t.Get(i, ColSeed)}
		if w.Real() {
			if _, ok := real[c]; !ok {
				order = append(order, c)
			}
			real[c] = append(real[c], i)
		} else if w.Machine != "" {
			sim[c] = i
			// The first budget's, whose model the sequential row ran with
			// (the simulated sequential solver reports no machine).
			if v, ok := t.Float(i, "machine.node_ns"); ok {
				if _, seen := nodeCost[c.inst]; !seen {
					nodeCost[c.inst] = v
				}
			}
		}
	}
	num := func(i int, col string) float64 {
		v, ok := t.Float(i, col)
		if !ok {
			return math.NaN()
		}
		return v
	}
	var rows []ValidationRow
	for _, c := range order {
		si, ok := sim[c]
		if !ok {
			continue
		}
		r := ValidationRow{Instance: c.inst, Balancer: c.bal, NP: c.np, Budget: c.budget, LoadMin: math.Inf(1), LoadMax: math.Inf(-1)}
		var secs, walls, nodes, slices, msgs, nodeNS, work []float64
		for _, i := range real[c] {
			s := num(i, "seconds")
			secs = append(secs, s)
			walls = append(walls, num(i, ColWall))
			for _, col := range []string{ColLoadBefore, ColLoadAfter} {
				if l := num(i, col); !math.IsNaN(l) {
					r.LoadMin, r.LoadMax = math.Min(r.LoadMin, l), math.Max(r.LoadMax, l)
				}
			}
			n := num(i, "nodes")
			nodes = append(nodes, n)
			slices = append(slices, num(i, "stats.total.slices"))
			msgs = append(msgs, num(i, "stats.total.messages_sent"))
			ws := num(i, "stats.total.work_seconds")
			if c.budget == 0 {
				ws = s // the sequential solver: all its time is work
			}
			nodeNS = append(nodeNS, ws*1e9/n)
			work = append(work, ws)
		}
		r.Real, r.Wall = SpreadOf(secs), SpreadOf(walls)
		for _, col := range t.Columns {
			if strings.HasPrefix(col, "provenance.") {
				r.Provenance = append(r.Provenance, Field{col, t.Get(real[c][0], col)})
			}
		}
		r.Sim = num(si, "virtual_seconds")
		if c.budget == 0 {
			// The simulator runs the sequential solver without a clock: its
			// time is its nodes at the model's node cost.
			cost := nodeCost[c.inst]
			if v, ok := t.Float(si, "machine.node_ns"); ok {
				cost = v
			}
			r.Sim = num(si, "nodes") * cost * 1e-9
		}
		r.ErrorPct = (r.Sim - r.Real.Median) / r.Real.Median * 100
		r.Nodes = [2]float64{Median(nodes), num(si, "nodes")}
		r.Slices = [2]float64{Median(slices), num(si, "stats.total.slices")}
		r.Messages = [2]float64{Median(msgs), num(si, "stats.total.messages_sent")}
		model := nodeCost[c.inst]
		if v, ok := t.Float(si, "machine.node_ns"); ok {
			model = v // the row's own model (a model per budget)
		}
		if v, ok := t.Float(si, "machine.busy_node_ns"); ok && v > 0 && c.np > 1 {
			model = v // what the simulator charges more than one rank
		}
		r.NodeNS = [2]float64{Median(nodeNS), model}
		for _, col := range []string{"machine.poll_ns", "machine.slice_ns"} {
			if v, ok := t.Float(si, col); ok {
				r.SliceNS += v
			}
		}
		if c.budget > 0 {
			r.DWork = (Median(work) - num(si, "stats.total.work_seconds")) / float64(c.np)
		} else {
			// The sequential solver keeps no counters: its time is its work.
			r.DWork = r.Real.Median - r.Sim
		}
		r.DRest = r.Real.Median - r.Sim - r.DWork
		if math.Abs(r.ErrorPct) > ValidateRowTarget {
			switch {
			case math.Abs(r.DRest) > math.Abs(r.DWork):
				r.Explains = "loop"
			case math.Abs(r.Nodes[0]-r.Nodes[1]) > 0.05*r.Nodes[1]:
				r.Explains = "nodes"
			default:
				r.Explains = "node cost"
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, errors.New("campaign: validate: no configuration with both a real and a simulated run")
	}
	return rows, nil
}

// ValidationColumns returns the columns of WriteValidation's CSV before
// the provenance: "campaign" (the command line, commit, machine and start
// of the campaign that wrote the table), then the provenance.* columns of
// the row's real runs (version.Provenance.Columns).
func ValidationColumns() []string {
	return []string{"instance", "balancer", "np", "budget", "real_seconds_median", "real_seconds_min", "real_seconds_max", "repeats",
		"wall_seconds_median", "load_min", "load_max", "sim_seconds", "error_pct", "nodes_real", "nodes_sim", "slices_real", "slices_sim",
		"messages_real", "messages_sim", "node_ns_real", "node_ns_sim", "slice_ns_sim", "d_work_seconds", "d_rest_seconds", "explains", "campaign"}
}

// WriteValidation writes the rows as CSV to path: ValidationColumns, with
// campaign in the "campaign" column of every row, then the provenance.*
// columns of the rows' runs (Validation takes them from one table, so
// every row has the same ones in the same order).
func WriteValidation(path string, rows []ValidationRow, campaign string) error {
	if len(rows) == 0 {
		return fmt.Errorf("campaign: %s: no rows to write", path)
	}
	var prov []string
	for _, p := range rows[0].Provenance {
		prov = append(prov, p.Name)
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	return writeFile(path, func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write(append(ValidationColumns(), prov...))
		for _, r := range rows {
			rec := []string{r.Instance, r.Balancer, strconv.Itoa(r.NP), strconv.FormatInt(r.Budget, 10), g(r.Real.Median), g(r.Real.Min), g(r.Real.Max),
				strconv.Itoa(r.Real.N), g(r.Wall.Median), g(r.LoadMin), g(r.LoadMax), g(r.Sim), g(r.ErrorPct), g(r.Nodes[0]), g(r.Nodes[1]),
				g(r.Slices[0]), g(r.Slices[1]), g(r.Messages[0]), g(r.Messages[1]), g(r.NodeNS[0]), g(r.NodeNS[1]),
				g(r.SliceNS), g(r.DWork), g(r.DRest), r.Explains, campaign}
			for _, p := range r.Provenance {
				rec = append(rec, p.Value)
			}
			w.Write(rec)
		}
		w.Flush()
		return w.Error()
	})
}

// ValidationMarkdown writes the rows as a Markdown table, then the
// verdict against the targets.
func ValidationMarkdown(w io.Writer, world string, rows []ValidationRow) error {
	fmt.Fprintf(w, "\n### The simulator against the %s world\n\n", world)
	fmt.Fprintln(w, "| instance | P | Δt | measured s, median (min–max) | load | simulated s | error | nodes real / sim | polls real / sim | messages real / sim | ns/node real / model | ns/slice model | Δ work / loop s | misses by |")
	fmt.Fprintln(w, "|---|--:|--:|---|---|--:|--:|---|---|---|---|--:|---|---|")
	var errs []float64
	miss := 0
	for _, r := range rows {
		budget, bal := "–", r.Balancer
		if r.Budget > 0 {
			budget = strconv.FormatInt(r.Budget, 10)
		}
		inst := r.Instance
		if bal != "rp" {
			inst += " (" + bal + ")"
		}
		e := math.Abs(r.ErrorPct)
		errs = append(errs, e)
		if !(e <= ValidateRowTarget) {
			miss++
		}
		slice := "–"
		if r.Budget > 0 {
			slice = strconv.FormatFloat(r.SliceNS, 'f', 0, 64)
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %.2f–%.2f | %.4g | %+.1f %% | %s / %s | %s / %s | %s / %s | %.3g / %.3g | %s | %+.3f / %+.3f | %s |\n",
			inst, r.NP, budget, r.Real.Format("%.4g"), r.LoadMin, r.LoadMax, r.Sim, r.ErrorPct, count(r.Nodes[0]), count(r.Nodes[1]),
			count(r.Slices[0]), count(r.Slices[1]), count(r.Messages[0]), count(r.Messages[1]), r.NodeNS[0], r.NodeNS[1],
			slice, r.DWork, r.DRest, r.Explains)
	}
	med := Median(errs)
	verdict := "meets"
	if miss > 0 || !(med <= ValidateMedianTarget) {
		verdict = "misses"
	}
	fmt.Fprintf(w, "\n%d rows; %d outside ±%.0f %%; median |error| %.1f %% (target ≤ %.0f %%): the model %s the target in the %s world.\n",
		len(rows), miss, ValidateRowTarget, med, ValidateMedianTarget, verdict, world)
	fmt.Fprintln(w, "Measured s: the runs' own seconds (from the start of the search to the result on rank 0, the launch left out); "+
		"polls: work slices, each ended by a poll; ns/node: the real ranks' work seconds per node against the model's node cost; "+
		"ns/slice model: what the model charges per slice besides its nodes (the poll and the loop's other costs per slice, calibrated at the row's Δt); "+
		"Δ work / loop: the measured less the simulated seconds per rank, split into the ranks' work (nodes × node cost) and the rest "+
		"(polls, messages, idle time, start and end); 'misses by' says which where the error exceeds the row target: "+
		"node cost, nodes (the real search expanded other nodes than the simulated one) or loop.")
	fmt.Fprintln(w, "\n"+validationBias(rows))
	return nil
}

// validationBias returns the line of ValidationMarkdown that gives the
// signed error's median by kind of row (the sequential solver's rows, and
// the balanced runs' at each P), with the number of rows: a bias common
// to a kind is a cost the model lacks or miscounts for it, where a spread
// about 0 is the machine's noise (docs/simulator.md).
func validationBias(rows []ValidationRow) string {
	errs := map[int][]float64{} // by P; 0: the sequential solver
	for _, r := range rows {
		np := r.NP
		if r.Budget == 0 {
			np = 0
		}
		errs[np] = append(errs[np], r.ErrorPct)
	}
	var parts []string
	for _, np := range slices.Sorted(maps.Keys(errs)) {
		name := "sequential"
		if np > 0 {
			name = fmt.Sprintf("P = %d", np)
		}
		parts = append(parts, fmt.Sprintf("%s %+.1f %% (n = %d)", name, Median(errs[np]), len(errs[np])))
	}
	return "The signed error's median by kind of row (+: the model slower): " + strings.Join(parts, ", ") +
		"; a bias common to a kind is a cost the model lacks for it, a spread about 0 the machine's noise."
}

// count formats a counter compactly ("" for unknown).
func count(v float64) string {
	switch {
	case math.IsNaN(v):
		return "?"
	case v >= 1e6:
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
