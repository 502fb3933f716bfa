// Command knapsack-speedup measures seed 002's Fig. 4 for the knapsack
// command: the speedup of the parallel search against the sequential one,
// per instance, plotted against the sequential time, with the nodes each
// searched. The instances are seed 002's class (knapsack gen --class
// sanders) for a list of sizes and seeds.
//
// It runs the knapsack command as a user would, one process per run, and
// reads its --json output: for every instance the sequential run (the -seq
// flags, --balancer seq by default) and the parallel run (the -par flags,
// behind the -launch prefix if any) alternate, several times, and the
// medians are kept. Every parallel run must find the sequential run's
// optimal profit (the command itself checks that its items are feasible
// and sum to it). Another world is a change of flags, not of this program:
//
//	go run ./scripts/knapsack-speedup                                   # P = 2, embedded world
//	go run ./scripts/knapsack-speedup -par-bin bin/knapsack.mpi -launch 'mpirun -np 2' -par '--balancer rp'
//	go run ./scripts/knapsack-speedup -instances '2000:1-256' -par '--world sim --machine gcel --np 1024 --budget 300' -reps 1
//
// Times: t_seq and t_par are the command's "seconds", the wall time of
// sorting and search inside the process (not its start or the reading of
// the file). The sequential time on the plot's axis is the sequential
// run's CPU time, which a shared machine disturbs far less than its wall
// time. In the simulated world both times are virtual, on the simulated
// machine: t_par is the parallel run's "sim_seconds", and t_seq is the
// sequential search's nodes times the machine's node cost for knapsack
// (its "machine"."node_ns"), the time one processor of that machine takes
// for the sequential search; that t_seq is the plot's axis then, and the
// CPU times (of this machine, the simulator's included) are only recorded.
// Otherwise the
// speedup is t_seq/t_par of the medians, both wall times taken under the
// same load, alternately; cpu_ratio is the sequential CPU time over the
// parallel run's CPU time of all ranks (1: the ranks together did the
// sequential work; above 1: less). The summary adds the cores each kind of
// run had (CPU over wall time), which tells whether the machine let the
// ranks run at once. The load average is printed at the start and the end
// and recorded per instance. With -from FILE it measures nothing and
// summarizes and plots an earlier run's CSV.
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
	"text/tabwriter"
	"time"

	"github.com/treelb/treelb/apps/knapsack/knap"
	"github.com/treelb/treelb/internal/benchutil"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "knapsack-speedup:", err)
		os.Exit(1)
	}
}

// config is the campaign the flags describe.
type config struct {
	bin, parBin    string
	launch         []string // prefix of the parallel runs, e.g. mpirun -np 2
	seq, par       []string // flags of the sequential and parallel runs
	search         string
	instances      []instance
	reps           int // 0: by the sequential time (repsFor)
	minSeq, maxSeq float64
	maxSeconds     float64
	out            string // path prefix of the CSV and PNG files
}

// instance is one instance of seed 002's class.
type instance struct {
	m    int
	seed uint64
	file string
}

// record is the part of the command's JSON output the campaign reads.
type record struct {
	Balancer   string  `json:"balancer"`
	Ranks      int     `json:"ranks"`
	World      string  `json:"world"`
	Profit     int64   `json:"profit"`
	Nodes      int64   `json:"nodes"`
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpu_seconds"`
	SimSeconds float64 `json:"sim_seconds"`
	// LastWork is when the simulated run's last node ended: its virtual
	// time without the termination detection and the final reduction.
	LastWork float64 `json:"last_work_seconds"`
	Machine  *struct {
		Name   string  `json:"name"`
		NodeNS float64 `json:"node_ns"`
	} `json:"machine"`
}

// time returns the run's time: virtual in the simulator, wall otherwise.
func (r record) time() float64 {
	if r.SimSeconds > 0 {
		return r.SimSeconds
	}
	return r.Seconds
}

// row is the measurement of one instance: medians over reps runs of each
// kind.
type row struct {
	in                instance
	reps              int
	profit            int64
	seqNodes          int64
	parNodes          [3]int64 // median, least, most
	tSeq, tPar        float64
	tWork             float64 // simulated: t_par up to the last node; NaN otherwise
	cpuSeq, cpuPar    float64
	ranks             int
	world, balancer   string
	load              string
	speedup, cpuRatio float64
	nodeRatio         float64
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("knapsack-speedup", flag.ContinueOnError)
	bin := fs.String("bin", "", "the knapsack command (default: go build ./apps/knapsack into a temporary directory)")
	parBin := fs.String("par-bin", "", "the command of the parallel runs, e.g. the -tags mpi build (default: -bin)")
	launch := fs.String("launch", "", "prefix of the parallel runs, e.g. 'mpirun -np 2'")
	seq := fs.String("seq", "--balancer seq", "flags of the sequential runs")
	par := fs.String("par", "--np 2 --balancer rp", "flags of the parallel runs")
	search := fs.String("search", "hs", "--search of both: hs (seed 002's Horowitz–Sahni) or core")
	list := fs.String("instances", "2000:1-40 1000:1-24 500:1-12", "instances of the sanders class: M:SEEDS ..., SEEDS a list of seeds and ranges A-B")
	reps := fs.Int("reps", 0, "runs of each kind per instance (0: 9 below 10 ms of sequential time, 7 below 0.1 s, 5 below 1 s, else 3)")
	minSeq := fs.Float64("min-seq", 0, "leave out instances whose first sequential run takes less CPU time, in seconds")
	maxSeq := fs.Float64("max-seq", 12, "leave out instances whose first sequential run takes more CPU time, in seconds")
	maxSeconds := fs.Float64("max-seconds", 3600, "start no new instance after this many seconds")
	out := fs.String("out", "out/knapsack-speedup", "path prefix of the output: PREFIX.csv and PREFIX.png")
	from := fs.String("from", "", "measure nothing: summarize the CSV `FILE` of an earlier run and plot it to -out's PNG")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *from != "" {
		rows, err := readCSV(*from)
		if err != nil {
			return err
		}
		if err := writePlot(*out+".png", rows, fmt.Sprintf("knapsack, sanders class: %s on P = %d (%s world) against the sequential search", rows[0].balancer, rows[0].ranks, rows[0].world)); err != nil {
			return err
		}
		fmt.Fprintf(w, "# %s: %d instances; plot: %s.png\n", *from, len(rows), *out)
		summarize(w, rows)
		return nil
	}
	cfg := config{bin: *bin, parBin: *parBin, launch: strings.Fields(*launch), seq: strings.Fields(*seq), par: strings.Fields(*par),
		search: *search, reps: *reps, minSeq: *minSeq, maxSeq: *maxSeq, maxSeconds: *maxSeconds, out: *out}
	if _, err := knap.ParseSearch(cfg.search); err != nil {
		return err
	}
	if cfg.reps < 0 {
		return fmt.Errorf("-reps %d: need 0 or more", cfg.reps)
	}
	var err error
	if cfg.instances, err = parseInstances(*list); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "knapsack-speedup")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if cfg.bin == "" {
		if cfg.bin, err = benchutil.Build(dir, "./apps/knapsack"); err != nil {
			return err
		}
	}
	if cfg.parBin == "" {
		cfg.parBin = cfg.bin
	}
	for i := range cfg.instances {
		in := &cfg.instances[i]
		if in.file, err = writeInstance(dir, in.m, in.seed); err != nil {
			return err
		}
	}
	return runCampaign(cfg, w)
}

// runCampaign measures the instances and writes the CSV, the plot and the
// summary.
func runCampaign(cfg config, w io.Writer) error {
	loadStart, start := benchutil.LoadAvg(), time.Now()
	if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
		return err
	}
	f, err := os.Create(cfg.out + ".csv")
	if err != nil {
		return err
	}
	defer f.Close()
	cw := csv.NewWriter(f)
	if err := cw.Write(csvHeader()); err != nil {
		return err
	}
	var rows []row
	skipped := 0
	for _, in := range cfg.instances {
		if time.Since(start).Seconds() > cfg.maxSeconds {
			fmt.Fprintf(w, "# time budget of %.0f s used: stopped before m = %d, seed %d\n", cfg.maxSeconds, in.m, in.seed)
			break
		}
		r, ok, err := measure(cfg, in)
		if err != nil {
			return fmt.Errorf("m = %d, seed %d: %w", in.m, in.seed, err)
		}
		if !ok {
			skipped++
			continue
		}
		rows = append(rows, r)
		if err := cw.Write(r.csv()); err != nil {
			return err
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return fmt.Errorf("writing %s.csv: %w", cfg.out, err)
		}
	}
	if len(rows) == 0 {
		return errors.New("no instance measured")
	}
	title := fmt.Sprintf("knapsack --search %s, sanders class: %s on P = %d (%s world) against %s", cfg.search,
		rows[0].balancer, rows[0].ranks, rows[0].world, strings.Join(cfg.seq, " "))
	if err := writePlot(cfg.out+".png", rows, title); err != nil {
		return err
	}
	fmt.Fprintf(w, "# knapsack speedup (seed 002 Fig. 4): --search %s, sanders class, %d instances measured, %d left out (sequential time outside %g..%g s)\n",
		cfg.search, len(rows), skipped, cfg.minSeq, cfg.maxSeq)
	fmt.Fprintf(w, "# sequential: knapsack %s; parallel: %s knapsack %s (%s world, P = %d)\n",
		strings.Join(cfg.seq, " "), strings.Join(cfg.launch, " "), strings.Join(cfg.par, " "), rows[0].world, rows[0].ranks)
	fmt.Fprintf(w, "# runs alternate sequential and parallel; medians of each; %.0f s in all\n", time.Since(start).Seconds())
	fmt.Fprintf(w, "# load average at the start: %s; at the end: %s\n", loadStart, benchutil.LoadAvg())
	fmt.Fprintf(w, "# output: %s.csv, %s.png\n", cfg.out, cfg.out)
	summarize(w, rows)
	return nil
}

// writePlot writes the plot of rows to the PNG file path.
func writePlot(path string, rows []row, title string) error {
	png, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := plotFig4(png, rows, title); err != nil {
		png.Close()
		return err
	}
	return png.Close()
}

// measure runs one instance: a first sequential run to see its size, then
// reps alternations of parallel and sequential runs. ok is false when the
// instance is left out for its size.
func measure(cfg config, in instance) (row, bool, error) {
	seqArgs := append(append([]string{"--json", "--search", cfg.search}, cfg.seq...), in.file)
	parCmd := append(append(append(slices.Clone(cfg.launch), cfg.parBin, "--json", "--search", cfg.search), cfg.par...), in.file)
	first, err := runJSON(append([]string{cfg.bin}, seqArgs...))
	if err != nil {
		return row{}, false, err
	}
	if first.CPUSeconds < cfg.minSeq || first.CPUSeconds > cfg.maxSeq {
		return row{}, false, nil
	}
	reps := cfg.reps
	if reps == 0 {
		reps = repsFor(first.CPUSeconds)
	}
	var seqs, pars []record
	for k := range reps {
		for j := range 2 {
			if (j+k)%2 == 0 { // the order alternates from one repetition to the next
				r, err := runJSON(parCmd)
				if err != nil {
					return row{}, false, err
				}
				pars = append(pars, r)
				continue
			}
			r, err := runJSON(append([]string{cfg.bin}, seqArgs...))
			if err != nil {
				return row{}, false, err
			}
			seqs = append(seqs, r)
		}
	}
	r := row{in: in, reps: reps, profit: first.Profit, seqNodes: first.Nodes, ranks: pars[0].Ranks, world: pars[0].World,
		balancer: pars[0].Balancer, load: benchutil.LoadAvg()}
	for _, s := range seqs {
		if s.Profit != first.Profit || s.Nodes != first.Nodes {
			return row{}, false, fmt.Errorf("sequential runs differ: profit %d nodes %d, then %d %d", first.Profit, first.Nodes, s.Profit, s.Nodes)
		}
	}
	var nodes []float64
	for _, p := range pars {
		if p.Profit != first.Profit {
			return row{}, false, fmt.Errorf("the parallel run finds profit %d, the sequential %d", p.Profit, first.Profit)
		}
		nodes = append(nodes, float64(p.Nodes))
	}
	r.parNodes = [3]int64{int64(benchutil.Median(nodes)), int64(slices.Min(nodes)), int64(slices.Max(nodes))}
	r.tSeq, r.cpuSeq = benchutil.Median(field(seqs, record.time)), benchutil.Median(field(seqs, func(x record) float64 { return x.CPUSeconds }))
	r.tPar, r.cpuPar = benchutil.Median(field(pars, record.time)), benchutil.Median(field(pars, func(x record) float64 { return x.CPUSeconds }))
	if r.simulated() {
		m := pars[0].Machine
		if m == nil || !(m.NodeNS > 0) {
			return row{}, false, errors.New("the simulated run reports no machine with a node cost")
		}
		r.tSeq = float64(first.Nodes) * m.NodeNS * 1e-9
		r.tWork = benchutil.Median(field(pars, func(x record) float64 { return x.LastWork }))
	} else {
		r.tWork = math.NaN()
	}
	r.speedup, r.cpuRatio = r.tSeq/r.tPar, r.cpuSeq/r.cpuPar
	r.nodeRatio = float64(r.parNodes[0]) / float64(r.seqNodes)
	return r, true, nil
}

// simulated reports whether the parallel runs were in the simulated world,
// where t_seq and t_par are virtual times of the simulated machine.
func (r row) simulated() bool { return r.world == "sim" }

// seqTime returns the sequential time on the plot's axis: virtual time in
// the simulated world, CPU time otherwise.
func (r row) seqTime() float64 {
	if r.simulated() {
		return r.tSeq
	}
	return r.cpuSeq
}

// axisLabel returns the name of the sequential time on the plot's axis and
// in the summary.
func (r row) axisLabel() string {
	if r.simulated() {
		return "sequential time (virtual)"
	}
	return "sequential CPU time"
}

// runJSON runs a command line and decodes its JSON output.
func runJSON(cmdline []string) (record, error) {
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return record{}, fmt.Errorf("%s: %v: %s", strings.Join(cmdline, " "), err, stderr.String())
	}
	var r record
	if err := json.Unmarshal(out, &r); err != nil {
		return record{}, fmt.Errorf("%s: %v in %q", strings.Join(cmdline, " "), err, out)
	}
	return r, nil
}

// repsFor returns the runs of each kind for an instance whose sequential
// search takes cpu seconds: more for short ones, whose times are noisier.
func repsFor(cpu float64) int {
	switch {
	case cpu < 0.01:
		return 9
	case cpu < 0.1:
		return 7
	case cpu < 1:
		return 5
	}
	return 3
}

// field returns f of every record.
func field(rs []record, f func(record) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

func csvHeader() []string {
	return []string{"m", "seed", "profit", "reps", "seq_nodes", "par_nodes", "par_nodes_min", "par_nodes_max", "node_ratio",
		"t_seq", "t_par", "speedup", "cpu_seq", "cpu_par", "cpu_ratio", "ranks", "balancer", "world", "load", "t_par_work"}
}

// oldColumns is the number of columns before t_par_work, which the CSV
// files of the real worlds' campaigns lack.
const oldColumns = 19

func (r row) csv() []string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	d := func(x int64) string { return strconv.FormatInt(x, 10) }
	return []string{strconv.Itoa(r.in.m), strconv.FormatUint(r.in.seed, 10), d(r.profit), strconv.Itoa(r.reps),
		d(r.seqNodes), d(r.parNodes[0]), d(r.parNodes[1]), d(r.parNodes[2]), g(r.nodeRatio),
		g(r.tSeq), g(r.tPar), g(r.speedup), g(r.cpuSeq), g(r.cpuPar), g(r.cpuRatio),
		strconv.Itoa(r.ranks), r.balancer, r.world, r.load, g(r.tWork)}
}

// summarize prints, per decade of sequential CPU time and over all
// instances: the median speedup, the collective speedup Σt_seq/Σt_par,
// the cores each kind of run had on average (CPU time over wall time: on a
// shared machine the parallel run may get far fewer than P), the speedup
// that the CPU times allow, P·cpu_seq/cpu_par (what P dedicated cores
// would give if no rank waited; an upper bound where waiting ranks use no
// CPU, as in the embedded world), the median and summed ratios of the
// nodes, and how many instances were superlinear (speedup above P) and
// searched fewer nodes in parallel. For a simulated campaign it adds the
// speedups up to the last node (t_seq/t_par_work), without termination
// detection and the final reduction.
func summarize(w io.Writer, rows []row) {
	p := float64(rows[0].ranks)
	tab := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tab, rows[0].axisLabel()+"\tinstances\tmedian speedup\tΣt_seq/Σt_par\tcores seq\tcores par\tmedian P·cpu_seq/cpu_par\tmedian nodes par/seq\tΣnodes par/seq\tspeedup > P\tfewer nodes\tmedian t_seq/t_par_work\tΣt_seq/Σt_par_work\t")
	line := func(name string, rs []row) {
		if len(rs) == 0 {
			return
		}
		var sp, cs, cp, cr, nr, sw []float64
		var ts, tp, tw, ns, np float64
		super, fewer := 0, 0
		for _, r := range rs {
			sp, cr, nr = append(sp, r.speedup), append(cr, p*r.cpuRatio), append(nr, r.nodeRatio)
			cs, cp = append(cs, r.cpuSeq/r.tSeq), append(cp, r.cpuPar/r.tPar)
			if r.simulated() { // CPU time of this machine against virtual time
				cs, cp, cr = append(cs[:len(cs)-1], math.NaN()), append(cp[:len(cp)-1], math.NaN()), append(cr[:len(cr)-1], math.NaN())
			}
			ts, tp, tw = ts+r.tSeq, tp+r.tPar, tw+r.tWork
			sw = append(sw, r.tSeq/r.tWork)
			ns, np = ns+float64(r.seqNodes), np+float64(r.parNodes[0])
			if r.speedup > p {
				super++
			}
			if r.parNodes[0] < r.seqNodes {
				fewer++
			}
		}
		fmt.Fprintf(tab, "%s\t%d\t%.2f\t%.2f\t%s\t%s\t%s\t%.2f\t%.2f\t%d\t%d\t%s\t%s\t\n", name, len(rs), benchutil.Median(sp), ts/tp,
			f2(benchutil.Median(cs)), f2(benchutil.Median(cp)), f2(benchutil.Median(cr)), benchutil.Median(nr), np/ns, super, fewer,
			f2(benchutil.Median(sw)), f2(ts/tw))
	}
	for lo := 1e-4; lo < 1e5; lo *= 10 {
		var rs []row
		for _, r := range rows {
			if x := r.seqTime(); x >= lo && x < lo*10 || lo == 1e-4 && x < lo {
				rs = append(rs, r)
			}
		}
		name := fmt.Sprintf("%g .. %g s", lo, lo*10)
		if lo == 1e-4 {
			name = "below 1e-3 s"
		}
		line(name, rs)
	}
	line("all", rows)
	tab.Flush()
}

// f2 formats x with two decimals, or as a dash when it is not a number
// (the CPU figures of a simulated run).
func f2(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// readCSV reads the rows of a CSV file that an earlier campaign wrote.
func readCSV(path string) ([]row, error) {
	recs, err := benchutil.ReadCSV(path, csvHeader())
	if err != nil {
		// A file from before t_par_work.
		var err2 error
		if recs, err2 = benchutil.ReadCSV(path, csvHeader()[:oldColumns]); err2 != nil {
			return nil, err
		}
	}
	rows := make([]row, 0, len(recs))
	for i, rec := range recs {
		r, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, i+2, err)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// parseRow is the inverse of row.csv.
func parseRow(rec []string) (row, error) {
	var r row
	var errs []error
	atoi := func(s string) int {
		v, err := strconv.Atoi(s)
		errs = append(errs, err)
		return v
	}
	i64 := func(s string) int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		errs = append(errs, err)
		return v
	}
	f64 := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		errs = append(errs, err)
		return v
	}
	r.in.m, r.in.seed, r.profit, r.reps = atoi(rec[0]), uint64(i64(rec[1])), i64(rec[2]), atoi(rec[3])
	r.seqNodes, r.parNodes = i64(rec[4]), [3]int64{i64(rec[5]), i64(rec[6]), i64(rec[7])}
	r.nodeRatio, r.tSeq, r.tPar, r.speedup = f64(rec[8]), f64(rec[9]), f64(rec[10]), f64(rec[11])
	r.cpuSeq, r.cpuPar, r.cpuRatio, r.ranks = f64(rec[12]), f64(rec[13]), f64(rec[14]), atoi(rec[15])
	r.balancer, r.world, r.load, r.tWork = rec[16], rec[17], rec[18], math.NaN()
	if len(rec) > oldColumns {
		r.tWork = f64(rec[oldColumns])
	}
	return r, errors.Join(errs...)
}

// parseInstances parses "M:SEEDS ...", SEEDS a comma-separated list of
// seeds and ranges A-B.
func parseInstances(s string) ([]instance, error) {
	var out []instance
	for _, f := range strings.Fields(s) {
		ms, seeds, ok := strings.Cut(f, ":")
		m, err := strconv.Atoi(ms)
		if !ok || err != nil || m < 1 || m > knap.MaxItems {
			return nil, fmt.Errorf("-instances %q: want M:SEEDS with 1 ≤ M ≤ %d", f, knap.MaxItems)
		}
		for _, r := range strings.Split(seeds, ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, err := strconv.ParseUint(lo, 10, 64)
			b := a
			if err == nil && isRange {
				b, err = strconv.ParseUint(hi, 10, 64)
			}
			if err != nil || b < a {
				return nil, fmt.Errorf("-instances %q: bad seeds %q", f, r)
			}
			for seed := a; seed <= b; seed++ {
				out = append(out, instance{m: m, seed: seed})
			}
		}
	}
	if len(out) == 0 {
		return nil, errors.New("-instances: no instance")
	}
	return out, nil
}

// writeInstance writes the sanders instance of m items and the seed to a
// file in dir, as knapsack gen would, and returns its path.
func writeInstance(dir string, m int, seed uint64) (string, error) {
	in, err := knap.Generate(knap.GenConfig{Class: knap.Sanders, M: m, Seed: seed})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, fmt.Sprintf("sanders-m%d-seed%d.txt", m, seed))
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if _, err := in.WriteTo(f); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
