// Command integrate-tables reproduces seed 003's Tables 1 and 2 with the
// integrate command: KOSO against KOSO* on rings of p = 8, 10, 12, 14 and 16
// processors in the seed's unit-time step model, 100 trials per condition,
// the normalized parallelization factor NPF = N/(p·T) of every trial, and a
// two-sample two-tailed t-test of the two policies' NPF per ring size.
//
//	go run ./scripts/integrate-tables                        # both tables, both rules of Table 2
//	go run ./scripts/integrate-tables -trials 10 -ps 8,16     # a quick look
//	go run ./scripts/integrate-tables -from apps/integrate/results/seed003.csv
//
// Table 1 (§4.1) runs the synthetic α-trees, α ∈ {0.96, 0.965, 0.97};
// Table 2 (§4.2) the adaptive trapezoid rule on the random polynomials of
// --poly-seed 1..100, θ_a ∈ {10⁻⁶, 10⁻⁸, 10⁻¹⁰}, θ_r = 10⁻¹⁰, once under
// each -rules (the seed's absolute accuracy test, and the relative one;
// see the integrate command's --help).
//
// A trial is one run of the command as a user would type it:
//
//	integrate alpha --alpha A --tree-seed S -b koso --world sim --machine unit --np P --budget 1 --json
//
// On the unit machine with a budget of one node a rank expands one node per
// step and a message arrives in the next step, the seed's model; T is the
// step of the last node (the command's last_work_seconds in µs), without
// the termination detection and the final reduction, which the seed's
// simulator does not have (it stops when all queues are empty). N is the
// tree's nodes.
//
// The seed generated its α-trees on-line, a new tree for every trial of
// every policy (§4.1), and ran the same 100 polynomials under both
// policies (§4.2). -alpha-trees distinct (the default) does the former:
// the tree seed of trial i is i+1 plus -trials times the condition's index
// (policy, α, p); -alpha-trees shared runs the trees 1..trials under both
// policies and every ring size, a paired design with less variance.
//
// Each t-test compares the 3 × trials NPF values of KOSO* with those of
// KOSO at one ring size (Welch's test; with equal sample sizes the
// statistic is Student's pooled one, only the degrees of freedom differ;
// package stats), and the "entire sample" line all ring sizes at once, as
// the seed's text does. The output is PREFIX.csv (one line per trial) and
// PREFIX.txt (the tables beside the seed's).
package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/treelb/treelb/apps/integrate/alphatree"
	"github.com/treelb/treelb/apps/integrate/quad"
	"github.com/treelb/treelb/apps/integrate/stats"
	"github.com/treelb/treelb/internal/benchutil"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "integrate-tables:", err)
		os.Exit(1)
	}
}

// policies are the two balancers the seed compares, KOSO first.
var policies = [2]string{"koso", "koso-star"}

// seedT are the t-statistics of the seed's Tables 1 and 2, by ring size
// 8, 10, 12, 14, 16, and the t of its "entire sample" test of §4.1 (Table
// 2 has none).
var (
	seedRings  = []int{8, 10, 12, 14, 16}
	seedTable1 = []float64{12.46, 44.81, 43.28, 40.92, 31.77}
	seedTable2 = []float64{18.82, 21.97, 24.16, 25.10, 25.21}
)

// seedEntireT is the seed's t for the whole of the first experiment
// (§4.1), which it calls "significant at the p < .001 level".
const seedEntireT = 2.89

// config is the campaign the flags describe.
type config struct {
	bin        string
	ps         []int
	alphas     []float64
	thetas     []float64
	rules      []string
	trials     int
	jobs       int
	distinct   bool
	out        string
	skipAlpha  bool
	skipPoly   bool
	maxSeconds float64
}

// trial is one run: its condition and what it measured.
type trial struct {
	table    int     // 1: α-trees, 2: polynomials
	rule     string  // table 2: the accuracy rule
	param    float64 // α or θ_a
	p        int
	index    int    // 0 .. trials−1
	seed     uint64 // tree seed or polynomial seed
	policy   string
	nodes    int64
	height   int64
	steps    int64 // T: the step of the last node
	virtual  int64 // the steps with termination and reduction
	npf      float64
	messages int64 // work messages
}

// record is the part of the command's JSON output the campaign reads.
type record struct {
	Balancer        string  `json:"balancer"`
	Ranks           int     `json:"ranks"`
	World           string  `json:"world"`
	Nodes           int64   `json:"nodes"`
	Height          int64   `json:"height"`
	VirtualSeconds  float64 `json:"virtual_seconds"`
	LastWorkSeconds float64 `json:"last_work_seconds"`
	Machine         struct {
		Name   string  `json:"name"`
		NodeNS float64 `json:"node_ns"`
	} `json:"machine"`
	Messages struct {
		Work int64 `json:"work"`
	} `json:"messages"`
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("integrate-tables", flag.ContinueOnError)
	bin := fs.String("bin", "", "the integrate command (default: go build ./apps/integrate into a temporary directory)")
	ps := fs.String("ps", "8,10,12,14,16", "ring sizes p")
	alphas := fs.String("alphas", floats(alphatree.SeedAlphas()), "Table 1: the α of the α-trees")
	thetas := fs.String("thetas", floats(quad.SeedThetaA()), "Table 2: the accuracy thresholds θ_a")
	rules := fs.String("rules", "absolute,relative", "Table 2: the accuracy rules, each a table")
	trials := fs.Int("trials", 100, "trials per condition (trees per α, polynomials per θ_a)")
	jobs := fs.Int("jobs", 2, "runs at once")
	trees := fs.String("alpha-trees", "distinct", "Table 1: 'distinct' (a new tree for every trial, as the seed) or 'shared' (trees 1..trials under both policies)")
	only := fs.String("tables", "1,2", "the tables to run")
	maxSeconds := fs.Float64("max-seconds", 3600, "fail after this many seconds")
	out := fs.String("out", "out/seed003", "path prefix of the output: PREFIX.csv and PREFIX.txt")
	from := fs.String("from", "", "measure nothing: tabulate the CSV `FILE` of an earlier run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *from != "" {
		ts, err := readCSV(*from)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "# %s: %d trials\n", *from, len(ts))
		return tabulate(w, ts)
	}
	cfg := config{bin: *bin, trials: *trials, jobs: *jobs, out: *out, maxSeconds: *maxSeconds}
	var err error
	if cfg.ps, err = parseInts(*ps); err != nil {
		return fmt.Errorf("-ps: %w", err)
	}
	if cfg.alphas, err = parseFloats(*alphas); err != nil {
		return fmt.Errorf("-alphas: %w", err)
	}
	if cfg.thetas, err = parseFloats(*thetas); err != nil {
		return fmt.Errorf("-thetas: %w", err)
	}
	cfg.rules = strings.Split(*rules, ",")
	for _, r := range cfg.rules {
		if _, err := quad.ParseRule(r); err != nil {
			return fmt.Errorf("-rules: %w", err)
		}
	}
	switch *trees {
	case "distinct":
		cfg.distinct = true
	case "shared":
	default:
		return fmt.Errorf("-alpha-trees %q: want distinct or shared", *trees)
	}
	switch *only {
	case "1,2", "2,1":
	case "1":
		cfg.skipPoly = true
	case "2":
		cfg.skipAlpha = true
	default:
		return fmt.Errorf("-tables %q: want 1, 2 or 1,2", *only)
	}
	if cfg.trials < 2 || cfg.jobs < 1 {
		return fmt.Errorf("-trials %d, -jobs %d: need at least 2 trials (a variance) and 1 job", cfg.trials, cfg.jobs)
	}
	if cfg.bin == "" {
		dir, err := os.MkdirTemp("", "integrate-tables")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if cfg.bin, err = benchutil.Build(dir, "./apps/integrate"); err != nil {
			return err
		}
	}
	return campaign(cfg, w)
}

// plan returns the trials of the campaign, not yet run.
func plan(cfg config) []trial {
	var ts []trial
	if !cfg.skipAlpha {
		for pi, policy := range policies {
			for ai, a := range cfg.alphas {
				for ri, p := range cfg.ps {
					base := uint64(0)
					if cfg.distinct {
						base = uint64(cfg.trials) * uint64((pi*len(cfg.alphas)+ai)*len(cfg.ps)+ri)
					}
					for i := range cfg.trials {
						ts = append(ts, trial{table: 1, param: a, p: p, index: i, seed: base + uint64(i) + 1, policy: policy})
					}
				}
			}
		}
	}
	if !cfg.skipPoly {
		for _, rule := range cfg.rules {
			for _, policy := range policies {
				for _, th := range cfg.thetas {
					for _, p := range cfg.ps {
						for i := range cfg.trials {
							ts = append(ts, trial{table: 2, rule: rule, param: th, p: p, index: i, seed: uint64(i) + 1, policy: policy})
						}
					}
				}
			}
		}
	}
	return ts
}

// args returns the command line of a trial.
func (t trial) args() []string {
	common := []string{"-b", t.policy, "--world", "sim", "--machine", "unit", "--np", strconv.Itoa(t.p), "--budget", "1", "--json"}
	if t.table == 1 {
		return append([]string{"alpha", "--alpha", fmtFloat(t.param), "--tree-seed", strconv.FormatUint(t.seed, 10)}, common...)
	}
	return append([]string{"poly", "--poly-seed", strconv.FormatUint(t.seed, 10), "--theta-a", fmtFloat(t.param),
		"--theta-r", fmtFloat(quad.SeedThetaR), "--rule", t.rule}, common...)
}

// campaign runs the trials, -jobs at a time, and writes the CSV and the
// tables.
func campaign(cfg config, w io.Writer) error {
	ts := plan(cfg)
	start, loadStart := time.Now(), benchutil.LoadAvg()
	jobs := make(chan int)
	errs := make([]error, len(ts))
	var wg sync.WaitGroup
	for range cfg.jobs {
		wg.Go(func() {
			for i := range jobs {
				if time.Since(start).Seconds() > cfg.maxSeconds {
					errs[i] = fmt.Errorf("time budget of %.0f s used", cfg.maxSeconds)
					continue
				}
				errs[i] = ts[i].measure(cfg.bin)
			}
		})
	}
	for i := range ts {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
		return err
	}
	if err := writeCSV(cfg.out+".csv", ts); err != nil {
		return err
	}
	f, err := os.Create(cfg.out + ".txt")
	if err != nil {
		return err
	}
	mw := io.MultiWriter(w, f)
	fmt.Fprintf(mw, "# seed 003 Tables 1 and 2: integrate on --world sim --machine unit --budget 1, %d trials per condition, %s α-trees\n",
		cfg.trials, map[bool]string{true: "distinct", false: "shared"}[cfg.distinct])
	fmt.Fprintf(mw, "# %d runs of %s in %.0f s (%d at once); load average at the start %s, at the end %s\n",
		len(ts), filepath.Base(cfg.bin), time.Since(start).Seconds(), cfg.jobs, loadStart, benchutil.LoadAvg())
	fmt.Fprintf(mw, "# trials: %s.csv\n", cfg.out)
	err = tabulate(mw, ts)
	return errors.Join(err, f.Close())
}

// measure runs the trial and fills in what it measured. The command must
// report the unit machine, the ring size asked for and whole steps.
func (t *trial) measure(bin string) error {
	cmd := exec.Command(bin, t.args()...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("integrate %s: %v: %s", strings.Join(t.args(), " "), err, stderr.String())
	}
	var r record
	if err := json.Unmarshal(out, &r); err != nil {
		return fmt.Errorf("integrate %s: %v in %q", strings.Join(t.args(), " "), err, out)
	}
	if r.World != "sim" || r.Machine.Name != "unit" || r.Ranks != t.p || r.Balancer != t.policy || r.Machine.NodeNS <= 0 {
		return fmt.Errorf("integrate %s: ran %s on %d ranks of %s, machine %q", strings.Join(t.args(), " "), r.Balancer, r.Ranks, r.World, r.Machine.Name)
	}
	step := r.Machine.NodeNS * 1e-9
	t.nodes, t.height, t.messages = r.Nodes, r.Height, r.Messages.Work
	t.steps, t.virtual = int64(math.Round(r.LastWorkSeconds/step)), int64(math.Round(r.VirtualSeconds/step))
	if math.Abs(float64(t.steps)*step-r.LastWorkSeconds) > 1e-3*step {
		return fmt.Errorf("integrate %s: the last node at %g s, not a whole step of %g s", strings.Join(t.args(), " "), r.LastWorkSeconds, step)
	}
	t.npf, err = stats.NPF(t.nodes, t.p, t.steps)
	return err
}

// group is the trials of one table (and rule) by policy and ring size.
type group struct {
	name string
	ts   []trial
}

// groups splits the trials into their tables: Table 1, then Table 2 per
// rule in the order they appear.
func groups(ts []trial) []group {
	var gs []group
	for _, t := range ts {
		name := "Table 1: α-trees"
		if t.table == 2 {
			name = "Table 2: random polynomials, " + t.rule + " rule"
		}
		i := slices.IndexFunc(gs, func(g group) bool { return g.name == name })
		if i < 0 {
			gs, i = append(gs, group{name: name}), len(gs)
		}
		gs[i].ts = append(gs[i].ts, t)
	}
	return gs
}

// tabulate writes, per table: the mean NPF of each policy, the t-test per
// ring size beside the seed's t, the test of the entire sample, and the
// mean NPF and steps per parameter and ring size.
func tabulate(w io.Writer, ts []trial) error {
	for _, g := range groups(ts) {
		seedT := seedTable1
		if g.ts[0].table == 2 {
			seedT = seedTable2
		}
		fmt.Fprintf(w, "\n## %s\n\n", g.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "p\ttrials per policy\tNPF KOSO\tNPF KOSO*\tt (Welch)\tdf\ttwo-tailed p\tBonferroni p (×5)\tt of the seed\tt (paired)\t1-node trees\t")
		var all [2][]float64
		var allTrials []trial
		ps := ringSizes(g.ts)
		for _, p := range ps {
			var npf [2][]float64
			var at []trial
			ones := 0
			for _, t := range g.ts {
				if t.p != p {
					continue
				}
				at = append(at, t)
				k := slices.Index(policies[:], t.policy)
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
			fmt.Fprintf(w, "\nThe seed's entire-sample t = %.2f on %d − 2 = %d degrees of freedom has the two-tailed p-value %.2g "+
				"(Student), not p < .001: |t| > %.2f would be needed for that.\n", seedEntireT, 2*len(all[0]), 2*len(all[0])-2,
				stats.StudentTwoTailed(seedEntireT, float64(2*len(all[0])-2)), criticalT(0.001, float64(2*len(all[0])-2)))
		}
		fmt.Fprintf(w, "\nMean NPF, mean T (steps to the last node) and mean N per condition:\n\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		pname := "α"
		if g.ts[0].table == 2 {
			pname = "θ_a"
		}
		fmt.Fprintf(tw, "%s\tp\tNPF KOSO\tNPF KOSO*\tT KOSO\tT KOSO*\tN KOSO\tN KOSO*\tmedian N\t\n", pname)
		for _, param := range params(g.ts) {
			for _, p := range ps {
				var npf, steps, nodes [2][]float64
				var all []float64
				for _, t := range g.ts {
					if t.p == p && t.param == param {
						k := slices.Index(policies[:], t.policy)
						npf[k], steps[k], nodes[k] = append(npf[k], t.npf), append(steps[k], float64(t.steps)), append(nodes[k], float64(t.nodes))
						all = append(all, float64(t.nodes))
					}
				}
				fmt.Fprintf(tw, "%g\t%d\t%.4f\t%.4f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t\n", param, p, mean(npf[0]), mean(npf[1]),
					mean(steps[0]), mean(steps[1]), mean(nodes[0]), mean(nodes[1]), benchutil.Median(all))
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
		if t.policy == policies[0] {
			partner[key{t.table, t.rule, t.param, t.p, t.seed}] = t.npf
		}
	}
	for _, t := range ts {
		if t.policy != policies[1] {
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
		if !slices.Contains(ps, t.p) {
			ps = append(ps, t.p)
		}
	}
	slices.Sort(ps)
	return ps
}

// params returns the α or θ_a of the trials, in order of appearance.
func params(ts []trial) []float64 {
	var out []float64
	for _, t := range ts {
		if !slices.Contains(out, t.param) {
			out = append(out, t.param)
		}
	}
	return out
}

func csvHeader() []string {
	return []string{"table", "rule", "param", "p", "trial", "seed", "policy", "nodes", "height", "steps", "virtual_steps", "npf", "work_messages"}
}

// writeCSV writes one line per trial.
func writeCSV(path string, ts []trial) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(f)
	cw.Write(csvHeader())
	for _, t := range ts {
		cw.Write([]string{strconv.Itoa(t.table), t.rule, fmtFloat(t.param), strconv.Itoa(t.p), strconv.Itoa(t.index),
			strconv.FormatUint(t.seed, 10), t.policy, strconv.FormatInt(t.nodes, 10), strconv.FormatInt(t.height, 10),
			strconv.FormatInt(t.steps, 10), strconv.FormatInt(t.virtual, 10), strconv.FormatFloat(t.npf, 'g', 8, 64),
			strconv.FormatInt(t.messages, 10)})
	}
	cw.Flush()
	return errors.Join(cw.Error(), f.Close())
}

// readCSV reads the trials of a CSV file that writeCSV wrote.
func readCSV(path string) ([]trial, error) {
	recs, err := benchutil.ReadCSV(path, csvHeader())
	if err != nil {
		return nil, err
	}
	ts := make([]trial, 0, len(recs))
	for i, rec := range recs {
		var t trial
		var errs []error
		atoi := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			errs = append(errs, err)
			return v
		}
		t.table, t.rule, t.p, t.index = int(atoi(rec[0])), rec[1], int(atoi(rec[3])), int(atoi(rec[4]))
		t.seed, t.policy = uint64(atoi(rec[5])), rec[6]
		t.nodes, t.height, t.steps, t.virtual, t.messages = atoi(rec[7]), atoi(rec[8]), atoi(rec[9]), atoi(rec[10]), atoi(rec[12])
		var e1, e2 error
		t.param, e1 = strconv.ParseFloat(rec[2], 64)
		t.npf, e2 = strconv.ParseFloat(rec[11], 64)
		if err := errors.Join(append(errs, e1, e2)...); err != nil || !slices.Contains(policies[:], t.policy) || t.table < 1 || t.table > 2 {
			return nil, fmt.Errorf("%s: line %d: bad trial %q (%v)", path, i+2, rec, err)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func fmtFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// floats formats xs as a comma-separated list.
func floats(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmtFloat(x)
	}
	return strings.Join(s, ",")
}

func parseFloats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || !(v > 0) {
			return nil, fmt.Errorf("%q: want positive numbers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%q: want positive integers", s)
		}
		out = append(out, v)
	}
	return out, nil
}
