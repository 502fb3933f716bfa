package campaign

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/treelb/treelb/apps/integrate/alphatree"
	"github.com/treelb/treelb/apps/integrate/quad"
	"github.com/treelb/treelb/apps/integrate/stats"
	"gonum.org/v1/gonum/stat"
)

// Seed 003's Tables 1 and 2 (§4): KOSO against KOSO* on rings of p = 8 …
// 16 processors in the seed's unit-time step model, trials per condition,
// the normalized parallelization factor NPF = N/(p·T) of every trial and a
// two-sample two-tailed t-test of the two policies' NPF per ring size.
//
// A trial is one run of the integrate command on the simulated world's
// unit machine with a budget of one node:
//
//	integrate --json --world sim --np P --machine unit --budget 1 --balancer koso alpha --alpha A --tree-seed S
//
// where a rank expands one node per step and a message arrives in the next
// step, the seed's model; T is the step of the last node (the command's
// last_work_seconds in µs), without the termination detection and the
// final reduction, which the seed's simulator does not have; N is the
// tree's nodes.
//
// The seed generated its α-trees on-line, a new tree for every trial of
// every policy (§4.1), and ran the same 100 polynomials under both
// policies (§4.2). alpha-trees=distinct (the default) does the former: the
// tree seed of trial i is i+1 plus trials times the condition's index
// (policy, α, p); alpha-trees=shared runs the trees 1..trials under both
// policies and every ring size, a paired design with less variance.

// seedPolicies are the two balancers the seed compares, KOSO first.
var seedPolicies = [2]string{"koso", "koso-star"}

// The t-statistics of the seed's Tables 1 and 2 by ring size 8, 10, 12,
// 14, 16, and the t of its "entire sample" test of §4.1, which it calls
// "significant at the p < .001 level" (Table 2 has none).
var (
	seedRings  = []int{8, 10, 12, 14, 16}
	seedTable1 = []float64{12.46, 44.81, 43.28, 40.92, 31.77}
	seedTable2 = []float64{18.82, 21.97, 24.16, 25.10, 25.21}
)

const seedEntireT = 2.89

// seed003World is the world of every trial.
const seed003World = "sim:unit --budget 1"

func seed003Preset() Preset {
	return Preset{Name: "seed003", Doc: "seed 003 Tables 1 and 2: KOSO against KOSO* (NPF and t-tests) on rings of p = 8..16 in the unit step model",
		Defaults: Plan{Worlds: []string{seed003World}, NPs: []int{8, 10, 12, 14, 16}, Balancers: seedPolicies[:], Seeds: []int64{1}, Repeats: 1},
		Params: []Param{
			{"trials", "100", "trials per condition (trees per α, polynomials per θ_a)"},
			{"alphas", joinFloats(alphatree.SeedAlphas()), "Table 1: the α of the α-trees"},
			{"thetas", joinFloats(quad.SeedThetaA()), "Table 2: the accuracy thresholds θ_a"},
			{"rules", "absolute,relative", "Table 2: the accuracy rules, a table each"},
			{"tables", "1,2", "the tables to run: 1, 2 or 1,2"},
			{"alpha-trees", "distinct", "Table 1: distinct (a new tree for every trial, as the seed) or shared (trees 1..trials under both policies)"},
		},
		CSV: "results/seed003/seed003.csv", Jobs: 2,
		Make: seed003Keys}
}

// seed003Keys returns the trials of the tables as runs.
func seed003Keys(plan Plan, p Params) (Setup, error) {
	trials, err := strconv.Atoi(p["trials"])
	if err != nil || trials < 2 {
		return Setup{}, fmt.Errorf("--set trials=%s: need at least 2 trials (a variance)", p["trials"])
	}
	alphas, err := parseFloats(p["alphas"])
	if err != nil {
		return Setup{}, fmt.Errorf("--set alphas: %w", err)
	}
	thetas, err := parseFloats(p["thetas"])
	if err != nil {
		return Setup{}, fmt.Errorf("--set thetas: %w", err)
	}
	rules := strings.Split(p["rules"], ",")
	for _, r := range rules {
		if _, err := quad.ParseRule(r); err != nil {
			return Setup{}, fmt.Errorf("--set rules: %w", err)
		}
	}
	var distinct bool
	switch p["alpha-trees"] {
	case "distinct":
		distinct = true
	case "shared":
	default:
		return Setup{}, fmt.Errorf("--set alpha-trees=%s: want distinct or shared", p["alpha-trees"])
	}
	var t1, t2 bool
	switch p["tables"] {
	case "1,2", "2,1":
		t1, t2 = true, true
	case "1":
		t1 = true
	case "2":
		t2 = true
	default:
		return Setup{}, fmt.Errorf("--set tables=%s: want 1, 2 or 1,2", p["tables"])
	}
	if len(plan.Worlds) != 1 || len(plan.Seeds) != 1 || plan.Repeats != 1 || !slices.Equal(plan.Balancers, seedPolicies[:]) {
		return Setup{}, fmt.Errorf("seed003: the trials run in one world (%s), with one seed, once, under koso and koso-star", seed003World)
	}
	world, seed := plan.Worlds[0], plan.Seeds[0]
	var keys []Key
	add := func(np int, policy, instance string) {
		keys = append(keys, Key{World: world, NP: np, Balancer: policy, Instance: instance, Seed: seed})
	}
	if t1 {
		for pi, policy := range seedPolicies {
			for ai, a := range alphas {
				for ri, np := range plan.NPs {
					base := 0
					if distinct {
						base = trials * ((pi*len(alphas)+ai)*len(plan.NPs) + ri)
					}
					for i := range trials {
						add(np, policy, fmt.Sprintf("integrate alpha --alpha %s --tree-seed %d", fmtFloat(a), base+i+1))
					}
				}
			}
		}
	}
	if t2 {
		for _, rule := range rules {
			for _, policy := range seedPolicies {
				for _, th := range thetas {
					for _, np := range plan.NPs {
						for i := range trials {
							add(np, policy, fmt.Sprintf("integrate poly --poly-seed %d --theta-a %s --theta-r %s --rule %s",
								i+1, fmtFloat(th), fmtFloat(quad.SeedThetaR), rule))
						}
					}
				}
			}
		}
	}
	return Setup{Keys: keys, Report: Seed003Report, NoPlots: true}, nil
}

// trial is one run of the tables: its condition and what it measured.
type trial struct {
	table    int     // 1: α-trees, 2: polynomials
	rule     string  // table 2: the accuracy rule
	param    float64 // α or θ_a
	p        int
	seed     uint64 // tree seed or polynomial seed
	policy   string
	nodes    int64
	height   int64
	steps    int64 // T: the step of the last node
	virtual  int64 // the steps with termination and reduction
	npf      float64
	messages int64 // work messages
}

// trialOf reads the trial of row i: the condition from its key, the
// figures from the command's JSON. It fails unless the run was on the unit
// machine in whole steps.
func trialOf(t *Table, i int, k Key) (trial, error) {
	tr := trial{p: k.NP, policy: k.Balancer}
	f := strings.Fields(k.Instance)
	flag := func(name string) string {
		if j := slices.Index(f, name); j >= 0 && j+1 < len(f) {
			return f[j+1]
		}
		return ""
	}
	var err1, err2 error
	switch {
	case len(f) > 1 && f[1] == "alpha":
		tr.table = 1
		tr.param, err1 = strconv.ParseFloat(flag("--alpha"), 64)
		tr.seed, err2 = strconv.ParseUint(flag("--tree-seed"), 10, 64)
	case len(f) > 1 && f[1] == "poly":
		tr.table, tr.rule = 2, flag("--rule")
		tr.param, err1 = strconv.ParseFloat(flag("--theta-a"), 64)
		tr.seed, err2 = strconv.ParseUint(flag("--poly-seed"), 10, 64)
	default:
		return tr, fmt.Errorf("row %d: %q is no trial of seed 003's tables", i+1, k.Instance)
	}
	if err := errors.Join(err1, err2); err != nil {
		return tr, fmt.Errorf("row %d: %q: %w", i+1, k.Instance, err)
	}
	if !slices.Contains(seedPolicies[:], tr.policy) || t.Get(i, "machine.name") != "unit" {
		return tr, fmt.Errorf("row %d: %s on machine %q: want koso or koso-star on the unit machine", i+1, tr.policy, t.Get(i, "machine.name"))
	}
	ns, ok1 := t.Float(i, "machine.node_ns")
	last, ok2 := t.Float(i, "last_work_seconds")
	virt, ok3 := t.Float(i, "virtual_seconds")
	nodes, ok4 := t.Float(i, "nodes")
	height, ok5 := t.Float(i, "height")
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || !(ns > 0) {
		return tr, fmt.Errorf("row %d: no node cost, last_work_seconds, virtual_seconds, nodes or height", i+1)
	}
	step := ns * 1e-9
	tr.nodes, tr.height = int64(nodes), int64(height)
	if v, ok := t.Float(i, "messages.work"); ok {
		tr.messages = int64(v)
	}
	tr.steps, tr.virtual = int64(math.Round(last/step)), int64(math.Round(virt/step))
	if math.Abs(float64(tr.steps)*step-last) > 1e-3*step {
		return tr, fmt.Errorf("row %d: the last node at %g s, not a whole step of %g s", i+1, last, step)
	}
	var err error
	tr.npf, err = stats.NPF(tr.nodes, tr.p, tr.steps)
	return tr, err
}

// Seed003Report writes seed 003's tables of a campaign's CSV: per table
// the mean NPF of each policy, the t-test per ring size beside the seed's
// t, the test of the entire sample, and the mean NPF and steps per
// parameter and ring size.
func Seed003Report(w io.Writer, t *Table) error {
	keys, err := t.Keys()
	if err != nil {
		return err
	}
	var ts []trial
	for i, k := range keys {
		if k.Baseline() {
			continue
		}
		tr, err := trialOf(t, i, k)
		if err != nil {
			return err
		}
		ts = append(ts, tr)
	}
	fmt.Fprintf(w, "\n# seed 003 Tables 1 and 2: %d trials on %s; NPF = N/(p·T), T the step of the last node\n", len(ts), seed003World)
	return tabulate(w, ts)
}

// trialGroup is the trials of one table (and rule).
type trialGroup struct {
	name string
	ts   []trial
}

// groupTrials splits the trials into their tables: Table 1, then Table 2
// per rule in the order they appear.
func groupTrials(ts []trial) []trialGroup {
	var gs []trialGroup
	for _, t := range ts {
		name := "Table 1: α-trees"
		if t.table == 2 {
			name = "Table 2: random polynomials, " + t.rule + " rule"
		}
		i := slices.IndexFunc(gs, func(g trialGroup) bool { return g.name == name })
		if i < 0 {
			gs, i = append(gs, trialGroup{name: name}), len(gs)
		}
		gs[i].ts = append(gs[i].ts, t)
	}
	return gs
}

// tabulate writes the tables of the trials.
func tabulate(w io.Writer, ts []trial) error {
	for _, g := range groupTrials(ts) {
		seedT := seedTable1
		if g.ts[0].table == 2 {
			seedT = seedTable2
		}
		fmt.Fprintf(w, "\n## %s\n\n", g.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		ps := ringSizes(g.ts)
		fmt.Fprintf(tw, "p\ttrials per policy\tNPF KOSO\tNPF KOSO*\tt (Welch)\tdf\ttwo-tailed p\tBonferroni p (×%d)\tt of the seed\tt (paired)\t1-node trees\t\n", len(ps))
		var all [2][]float64
		var allTrials []trial
		for _, p := range ps {
			var npf [2][]float64
			var at []trial
			ones := 0
			for _, t := range g.ts {
				if t.p != p {
					continue
				}
				at = append(at, t)
				k := slices.Index(seedPolicies[:], t.policy)
				npf[k] = append(npf[k], t.npf)
				if t.nodes == 1 {
					ones++
				}
			}
			all[0], all[1], allTrials = append(all[0], npf[0]...), append(all[1], npf[1]...), append(allTrials, at...)
			tt, err := stats.Welch(npf[1], npf[0])
			if err != nil {
				return fmt.Errorf("%s, p = %d: %w", g.name, p, err)
			}
			st := "—"
			if i := slices.Index(seedRings, p); i >= 0 {
				st = fmt.Sprintf("%.2f", seedT[i])
			}
			fmt.Fprintf(tw, "%d\t%d\t%.4f\t%.4f\t%.2f\t%.0f\t%.3g\t%.3g\t%s\t%s\t%d\t\n", p, len(npf[0]), mean(npf[0]), mean(npf[1]),
				tt.T, tt.DF, tt.P, stats.Bonferroni(tt.P, len(ps)), st, paired(at), ones)
		}
		tt, err := stats.Welch(all[1], all[0])
		if err != nil {
			return fmt.Errorf("%s: %w", g.name, err)
		}
		st := "—"
		if g.ts[0].table == 1 {
			st = fmt.Sprintf("%.2f", seedEntireT)
		}
		fmt.Fprintf(tw, "all\t%d\t%.4f\t%.4f\t%.2f\t%.0f\t%.3g\t\t%s\t%s\t\t\n", len(all[0]), mean(all[0]), mean(all[1]), tt.T, tt.DF, tt.P, st, paired(allTrials))
		tw.Flush()
		if g.ts[0].table == 1 {
			df := float64(2*len(all[0]) - 2)
			fmt.Fprintf(w, "\nThe seed's entire-sample t = %.2f on %d − 2 = %.0f degrees of freedom has the two-tailed p-value %.2g "+
				"(Student), not p < .001: |t| > %.2f would be needed for that.\n", seedEntireT, 2*len(all[0]), df,
				stats.StudentTwoTailed(seedEntireT, df), criticalT(0.001, df))
		}
		fmt.Fprintf(w, "\nMean NPF, mean T (steps to the last node) and mean N per condition:\n\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		pname := "α"
		if g.ts[0].table == 2 {
			pname = "θ_a"
		}
		fmt.Fprintf(tw, "%s\tp\tNPF KOSO\tNPF KOSO*\tT KOSO\tT KOSO*\tN KOSO\tN KOSO*\tmedian N\t\n", pname)
		for _, param := range trialParams(g.ts) {
			for _, p := range ps {
				var npf, steps, nodes [2][]float64
				var all []float64
				for _, t := range g.ts {
					if t.p == p && t.param == param {
						k := slices.Index(seedPolicies[:], t.policy)
						npf[k], steps[k], nodes[k] = append(npf[k], t.npf), append(steps[k], float64(t.steps)), append(nodes[k], float64(t.nodes))
						all = append(all, float64(t.nodes))
					}
				}
				fmt.Fprintf(tw, "%g\t%d\t%.4f\t%.4f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", param, p, mean(npf[0]), mean(npf[1]),
					mean(steps[0]), mean(steps[1]), mean(nodes[0]), mean(nodes[1]), Median(all))
			}
		}
		tw.Flush()
	}
	return nil
}

// paired returns the paired t of KOSO*'s NPF against KOSO's over trials
// that ran the same tree under both policies (the same table, rule, α or
// θ_a, ring size and seed), or a dash when some trial has no partner, as
// with distinct α-trees.
func paired(ts []trial) string {
	type key struct {
		table int
		rule  string
		param float64
		p     int
		seed  uint64
	}
	var x, y []float64
	partner := map[key]float64{}
	for _, t := range ts {
		if t.policy == seedPolicies[0] {
			partner[key{t.table, t.rule, t.param, t.p, t.seed}] = t.npf
		}
	}
	for _, t := range ts {
		if t.policy != seedPolicies[1] {
			continue
		}
		v, ok := partner[key{t.table, t.rule, t.param, t.p, t.seed}]
		if !ok {
			return "—"
		}
		x, y = append(x, t.npf), append(y, v)
	}
	if len(x) != len(partner) {
		return "—"
	}
	tt, err := stats.Paired(x, y)
	if err != nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", tt.T)
}

// criticalT returns the |t| whose two-tailed p-value under Student's
// distribution with df degrees of freedom is p, by bisection.
func criticalT(p, df float64) float64 {
	lo, hi := 0.0, 100.0
	for range 200 {
		mid := (lo + hi) / 2
		if stats.StudentTwoTailed(mid, df) > p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// ringSizes returns the ring sizes of the trials, ascending.
func ringSizes(ts []trial) []int {
	var ps []int
	for _, t := range ts {
		ps = addNew(ps, t.p)
	}
	slices.Sort(ps)
	return ps
}

// trialParams returns the α or θ_a of the trials, in order of appearance.
func trialParams(ts []trial) []float64 {
	var out []float64
	for _, t := range ts {
		out = addNew(out, t.param)
	}
	return out
}

// mean is the arithmetic mean (gonum's stat.Mean; NaN of nothing).
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Mean(xs, nil)
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// joinFloats formats xs as a comma-separated list.
func joinFloats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmtFloat(x)
	}
	return strings.Join(s, ",")
}

// parseFloats parses a comma-separated list of positive numbers.
func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("%q: want positive numbers", s)
		}
		out = append(out, v)
	}
	return out, nil
}
