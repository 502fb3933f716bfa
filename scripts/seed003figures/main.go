//go:build tools

// Command seed003figures redraws the time series and histograms of seed 003
// (Barrows et al., §4; docs/seed003.md, results/seed003-figures/): the busy
// PEs and the queue sizes over a trial under KOSO and KOSO* on rings of
// p = 8, 12 and 16 (the seed's Figs. 3 and 4 on an α-tree, Figs. 7 and 8 on
// a random polynomial at θ_a = 10⁻¹⁰), and the distributions of the trees'
// sizes N and heights h in the trials of Tables 1 and 2 (Figs. 9 and 10).
//
// Every trial is a run of the integrate command on the simulated unit
// machine with a budget of one node (the seed's step model) and --trace,
// which records the busy ranks and every rank's tasks queued, averaged over
// buckets of whole steps (one step while a run is shorter than 1024 steps,
// two for the trees here). The histograms read the trials of
// results/seed003/seed003.csv.gz (the campaign preset seed003's CSV,
// compressed), one entry per distinct tree.
//
//	go run -tags tools ./scripts/seed003figures               # the runs, the CSVs, the plots, a summary on stdout
//	go run -tags tools ./scripts/seed003figures --plot-only   # the plots and summary of the committed CSVs
//
// It is a maintainer's tool behind the build tag tools, so that
// go install ./... installs only the user-facing commands.
package main

import (
	"cmp"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/treelb/treelb/version"
)

// workload is one tree the time series run on.
type workload struct {
	name string   // its name in the CSVs
	fig  [2]int   // the seed's figures of busy PEs and queue sizes
	file string   // the plots' file name stem
	args []string // integrate's workload arguments
	what string   // for the plots' titles
}

// The trees: of about the same size (13 000 to 15 000 nodes), as the seed's
// Fig. 3 shows "six trees of approximately equal size". Polynomial 82 is
// one of the 12 of Table 2's 100 whose tree has more than one node under
// the seed's absolute rule at θ_a = 10⁻¹⁰; the relative rule on the same
// polynomial is the other run of Figs. 7 and 8.
var workloads = []workload{
	{"alpha", [2]int{3, 4}, "fig3-4", []string{"alpha", "--alpha", "0.965", "--tree-seed", "4"}, "α-tree α = 0.965, tree seed 4"},
	{"poly-absolute", [2]int{7, 8}, "fig7-8", []string{"poly", "--poly-seed", "82", "--theta-a", "1e-10", "--theta-r", "1e-10", "--rule", "absolute"},
		"polynomial 82, θ_a = 1e-10, absolute rule"},
	{"poly-relative", [2]int{7, 8}, "fig7-8-relative", []string{"poly", "--poly-seed", "82", "--theta-a", "1e-10", "--theta-r", "1e-10", "--rule", "relative"},
		"polynomial 82, θ_a = 1e-10, relative rule"},
}

var (
	rings    = []int{8, 12, 16}
	policies = []string{"koso", "koso-star"}
	names    = map[string]string{"koso": "KOSO", "koso-star": "KOSO*"}
)

// maxP is the largest ring: the traces CSV has a queue column per rank.
const maxP = 16

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "seed003figures:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "results/seed003-figures", "output `DIR`: the CSVs and the plots")
	tables := flag.String("tables", "results/seed003/seed003.csv.gz", "the trials of Tables 1 and 2, for the histograms: the campaign preset seed003's CSV, gzipped or not (`FILE`)")
	plotOnly := flag.Bool("plot-only", false, "draw the plots and the summary of DIR's CSVs, run nothing")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	if !*plotOnly {
		// integrate is built before provenance.txt is written: a build
		// from a tree with that file changed stamped every row "modified".
		bin, err := os.MkdirTemp("", "seed003figures")
		if err != nil {
			return err
		}
		defer os.RemoveAll(bin)
		integrate := filepath.Join(bin, "integrate")
		// -buildvcs=auto: every row's provenance names the commit.
		if b, err := exec.Command("go", "build", "-buildvcs=auto", "-o", integrate, "./apps/integrate").CombinedOutput(); err != nil {
			return fmt.Errorf("go build ./apps/integrate: %v\n%s", err, b)
		}
		if err := provenance(filepath.Join(*out, "provenance.txt")); err != nil {
			return err
		}
		if err := runTraces(*out, integrate); err != nil {
			return err
		}
		if err := writeTrees(*tables, filepath.Join(*out, "trees.csv")); err != nil {
			return err
		}
	}
	runs, err := readCSV(filepath.Join(*out, "runs.csv"))
	if err != nil {
		return err
	}
	traces, err := readCSV(filepath.Join(*out, "traces.csv.gz"))
	if err != nil {
		return err
	}
	trees, err := readCSV(filepath.Join(*out, "trees.csv"))
	if err != nil {
		return err
	}
	for _, w := range workloads {
		if err := plotSeries(*out, w, traces); err != nil {
			return err
		}
	}
	if err := plotHistograms(*out, trees); err != nil {
		return err
	}
	return summary(os.Stdout, runs, trees)
}

var runColumns = []string{"workload", "policy", "p", "nodes", "height", "steps", "npf", "bucket_steps", "saturated_fraction",
	"last_saturated_fraction", "mean_disparity", "mean_disparity_saturated", "max_queue", "min_rank_nodes", "max_rank_nodes",
	"ranks_below_quarter", "command"}

// provColumns are the provenance columns every row of runs.csv and
// traces.csv ends with (the run's, from its JSON) and trees.csv (this
// process's: it derives the trees from the tables' trials).
var provColumns, _ = version.Provenance{}.Columns()

var traceColumns = func() []string {
	c := []string{"workload", "policy", "p", "start_step", "end_step", "busy", "queued"}
	for r := range maxP {
		c = append(c, fmt.Sprintf("queue_%d", r))
	}
	return append(c, provColumns...)
}()

// report is what the runs' JSON says.
type report struct {
	Nodes           int64   `json:"nodes"`
	Height          int     `json:"height"`
	VirtualSeconds  float64 `json:"virtual_seconds"`
	LastWorkSeconds float64 `json:"last_work_seconds"`
	Stats           struct {
		Ranks []struct {
			Nodes    int64 `json:"nodes"`
			MaxQueue int64 `json:"max_queue"`
		} `json:"ranks"`
	} `json:"stats"`
	Provenance version.Provenance `json:"provenance"`
}

// runTraces runs every workload on every ring under both policies and
// writes runs.csv and traces.csv.gz.
func runTraces(dir, integrate string) error {
	rf, rw, err := createCSV(filepath.Join(dir, "runs.csv"), append(slices.Clone(runColumns), provColumns...))
	if err != nil {
		return err
	}
	tf, tw, err := createCSV(filepath.Join(dir, "traces.csv.gz"), traceColumns)
	if err != nil {
		rf.Close()
		return err
	}
	err = func() error {
		for _, w := range workloads {
			var nodes int64 = -1
			for _, p := range rings {
				for _, pol := range policies {
					trace := filepath.Join(filepath.Dir(integrate), "trace.csv")
					args := append([]string{"--json", "--stats", "--world", "sim", "--machine", "unit", "--budget", "1", "--np", strconv.Itoa(p), "-b", pol,
						"--trace", trace}, w.args...)
					cmd := "integrate " + strings.Join(args, " ")
					fmt.Fprintln(os.Stderr, cmd)
					b, err := exec.Command(integrate, args...).Output()
					if err != nil {
						return fmt.Errorf("%s: %v", cmd, err)
					}
					var rep report
					if err := json.Unmarshal(b, &rep); err != nil {
						return fmt.Errorf("%s: %v", cmd, err)
					}
					if nodes >= 0 && rep.Nodes != nodes || len(rep.Stats.Ranks) != p {
						return fmt.Errorf("%s: %d nodes (%d before), %d ranks", cmd, rep.Nodes, nodes, len(rep.Stats.Ranks))
					}
					nodes = rep.Nodes
					rows, err := readCSV(trace)
					if err != nil {
						return err
					}
					row, err := traceRows(tw, w.name, pol, p, rep, rows)
					if err != nil {
						return fmt.Errorf("%s: %w", cmd, err)
					}
					_, prov := rep.Provenance.Columns()
					rw.Write(append(append(row, strings.Replace(cmd, "--trace "+trace, "--trace FILE", 1)), prov...))
				}
			}
		}
		return nil
	}()
	return errors.Join(err, closeCSV(rf, rw), closeCSV(tf, tw))
}

// traceRows writes the run's trace to tw, checked against its report, and
// returns its row of runs.csv but the command.
func traceRows(tw *csv.Writer, name, pol string, p int, rep report, rows [][]string) ([]string, error) {
	if len(rows) < 2 || len(rows[0]) != 6+p || rows[0][5] != "queued_tasks" || rows[0][6] != "queue_0" {
		return nil, fmt.Errorf("trace: %d rows, header %q", len(rows), rows[0])
	}
	steps := math.Round(rep.LastWorkSeconds * 1e6)
	var busySum, sat, lastSat, disp, dispSat, satSteps, width float64
	var maxQ float64
	for i, row := range rows[1:] {
		v := make([]float64, len(row))
		for k, x := range row {
			var err error
			if v[k], err = strconv.ParseFloat(x, 64); err != nil {
				return nil, fmt.Errorf("trace row %d: %v", i+1, err)
			}
		}
		lo, hi := math.Round(v[1]*1e6*1e6)/1e6, math.Round(v[2]*1e6*1e6)/1e6 // steps, to 1e-6
		if i == 0 {
			width = hi - lo
		}
		busy, queues := v[3], v[6:]
		busySum += busy * (hi - lo)
		rec := []string{name, pol, strconv.Itoa(p), g(lo), g(hi), row[3], row[5]}
		for r := range maxP {
			if r < p {
				rec = append(rec, row[6+r])
			} else {
				rec = append(rec, "")
			}
		}
		_, prov := rep.Provenance.Columns()
		tw.Write(append(rec, prov...))
		if lo >= steps {
			continue
		}
		d := slices.Max(queues) - slices.Min(queues)
		maxQ = max(maxQ, slices.Max(queues))
		disp += d * (hi - lo)
		if busy >= float64(p)-1e-3 {
			sat += hi - lo
			lastSat = hi
			dispSat += d * (hi - lo)
			satSteps += hi - lo
		}
	}
	// The trace against the run: its busy rank-steps are the nodes.
	if math.Abs(busySum-float64(rep.Nodes)) > 1e-4*float64(rep.Nodes) {
		return nil, fmt.Errorf("trace: %g busy rank-steps, %d nodes", busySum, rep.Nodes)
	}
	var lo, hi int64 = math.MaxInt64, 0
	below := 0
	for _, r := range rep.Stats.Ranks {
		lo, hi = min(lo, r.Nodes), max(hi, r.Nodes)
		if float64(r.Nodes) < float64(rep.Nodes)/float64(p)/4 {
			below++
		}
	}
	ds := math.NaN()
	if satSteps > 0 {
		ds = dispSat / satSteps
	}
	return []string{name, pol, strconv.Itoa(p), strconv.FormatInt(rep.Nodes, 10), strconv.Itoa(rep.Height), g(steps),
		g(float64(rep.Nodes) / (float64(p) * steps)), g(width), g(sat / steps), g(lastSat / steps), g(disp / steps), g(ds), g(maxQ),
		strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10), strconv.Itoa(below)}, nil
}

// writeTrees writes the distinct trees of the trials of Tables 1 and 2:
// the α-trees by α and tree seed, the polynomials by rule, θ_a and seed.
// tables is the campaign's CSV of the preset seed003 (a row per run: the
// condition in run_instance) or its predecessor's integrate-tables.csv
// (columns table, rule, param, seed).
func writeTrees(tables, path string) error {
	rows, err := readCSV(tables)
	if err != nil {
		return err
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	if _, ok := col["run_instance"]; ok {
		if rows, err = trialsOfCampaign(rows, col); err != nil {
			return fmt.Errorf("%s: %w", tables, err)
		}
		col = map[string]int{}
		for i, c := range rows[0] {
			col[c] = i
		}
	}
	for _, c := range []string{"table", "rule", "param", "seed", "nodes", "height"} {
		if _, ok := col[c]; !ok {
			return fmt.Errorf("%s: no column %s", tables, c)
		}
	}
	f, w, err := createCSV(path, append([]string{"experiment", "rule", "param", "seed", "nodes", "height"}, provColumns...))
	if err != nil {
		return err
	}
	_, prov := version.Collect("").Columns()
	seen := map[string]string{}
	var recs [][]string
	for _, r := range rows[1:] {
		exp := "alpha"
		if r[col["table"]] == "2" {
			exp = "poly"
		}
		key := strings.Join([]string{exp, r[col["rule"]], r[col["param"]], r[col["seed"]]}, ",")
		tree := r[col["nodes"]] + "," + r[col["height"]]
		if prev, ok := seen[key]; ok {
			if prev != tree {
				f.Close()
				return fmt.Errorf("%s: tree %s has nodes,height %s and %s", tables, key, prev, tree)
			}
			continue
		}
		seen[key] = tree
		recs = append(recs, []string{exp, r[col["rule"]], r[col["param"]], r[col["seed"]], r[col["nodes"]], r[col["height"]]})
	}
	// In the order of the experiment, rule, parameter and seed, whatever
	// the order in which the campaign's runs finished.
	num := func(x string) float64 { v, _ := strconv.ParseFloat(x, 64); return v }
	slices.SortFunc(recs, func(a, b []string) int {
		if c := strings.Compare(a[0]+","+a[1], b[0]+","+b[1]); c != 0 {
			return c
		}
		if c := cmp.Compare(num(a[2]), num(b[2])); c != 0 {
			return c
		}
		return cmp.Compare(num(a[3]), num(b[3]))
	})
	for _, r := range recs {
		w.Write(append(r, prov...))
	}
	return closeCSV(f, w)
}

// trialsOfCampaign turns the rows of the campaign's seed003 CSV into the
// columns table, rule, param, seed, nodes and height, reading each trial's
// condition from its instance (integrate alpha --alpha A --tree-seed S, or
// integrate poly --poly-seed S --theta-a T --theta-r R --rule RULE).
func trialsOfCampaign(rows [][]string, col map[string]int) ([][]string, error) {
	for _, c := range []string{"run_instance", "nodes", "height"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("no column %s", c)
		}
	}
	out := [][]string{{"table", "rule", "param", "seed", "nodes", "height"}}
	for i, r := range rows[1:] {
		f := strings.Fields(r[col["run_instance"]])
		flag := func(name string) string {
			if j := slices.Index(f, name); j >= 0 && j+1 < len(f) {
				return f[j+1]
			}
			return ""
		}
		var rec []string
		switch {
		case len(f) > 1 && f[1] == "alpha":
			rec = []string{"1", "", flag("--alpha"), flag("--tree-seed")}
		case len(f) > 1 && f[1] == "poly":
			rec = []string{"2", flag("--rule"), flag("--theta-a"), flag("--poly-seed")}
		default:
			return nil, fmt.Errorf("row %d: %q is no trial of seed 003's tables", i+2, r[col["run_instance"]])
		}
		if slices.Contains(rec[2:], "") {
			return nil, fmt.Errorf("row %d: %q lacks its parameter or seed", i+2, r[col["run_instance"]])
		}
		out = append(out, append(rec, r[col["nodes"]], r[col["height"]]))
	}
	return out, nil
}

// provenance writes what made the runs: the commit (and whether the tree
// had changes), the date, the host, its CPU and load, Go's version. The runs
// are virtual steps: they do not depend on the machine or its load.
func provenance(path string) error {
	git := func(args ...string) string {
		b, err := exec.Command("git", args...).Output()
		if err != nil {
			return "unknown"
		}
		return strings.TrimSpace(string(b))
	}
	commit := git("rev-parse", "HEAD")
	if st := git("status", "--porcelain", "--untracked-files=no"); st != "" && st != "unknown" {
		commit += " (with uncommitted changes)"
	}
	host, _ := os.Hostname()
	cpu := "unknown"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	load := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	gov, _ := exec.Command("go", "env", "GOVERSION").Output()
	text := fmt.Sprintf("commit: %s\ndate: %s\nhost: %s, %s, %d cores, %s\nload before: %s\ncommand: go run -tags tools ./scripts/seed003figures\n",
		commit, time.Now().UTC().Format(time.RFC3339), host, cpu, runtime.NumCPU(), strings.TrimSpace(string(gov)), load)
	return os.WriteFile(path, []byte(text), 0o644)
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// createCSV creates the CSV file path with its header, gzipped when the
// path ends in .gz (traces.csv.gz: 3.9 MB as text).
func createCSV(path string, header []string) (io.Closer, *csv.Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	var c io.Closer = f
	var out io.Writer = f
	if strings.HasSuffix(path, ".gz") {
		z, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
		c, out = gzFile{z, f}, z
	}
	w := csv.NewWriter(out)
	w.Write(header)
	return c, w, nil
}

// gzFile closes a gzip stream and then its file.
type gzFile struct {
	z *gzip.Writer
	f *os.File
}

func (g gzFile) Close() error { return errors.Join(g.z.Close(), g.f.Close()) }

func closeCSV(f io.Closer, w *csv.Writer) error {
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var in io.Reader = f
	if strings.HasSuffix(path, ".gz") { // the seed003 campaign's CSV is committed compressed
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		in = z
	}
	r := csv.NewReader(in)
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("%s: no data", path)
	}
	return rows, nil
}

// table indexes a CSV's rows by its header.
type table struct {
	col  map[string]int
	rows [][]string
}

func newTable(rows [][]string) table {
	t := table{col: map[string]int{}, rows: rows[1:]}
	for i, c := range rows[0] {
		t.col[c] = i
	}
	return t
}

func (t table) s(row []string, c string) string { return row[t.col[c]] }

func (t table) f(row []string, c string) float64 {
	v, err := strconv.ParseFloat(row[t.col[c]], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// series returns the trace of one run: the steps (bucket midpoints), the
// busy ranks and each rank's queue.
func series(tr table, w string, pol string, p int) (busy plotter.XYs, queues []plotter.XYs) {
	queues = make([]plotter.XYs, p)
	for _, row := range tr.rows {
		if tr.s(row, "workload") != w || tr.s(row, "policy") != pol || tr.s(row, "p") != strconv.Itoa(p) {
			continue
		}
		x := tr.f(row, "start_step")
		busy = append(busy, plotter.XY{X: x, Y: tr.f(row, "busy")})
		for r := range p {
			queues[r] = append(queues[r], plotter.XY{X: x, Y: tr.f(row, fmt.Sprintf("queue_%d", r))})
		}
	}
	return busy, queues
}

var policyColors = map[string]color.Color{"koso": color.RGBA{R: 200, G: 40, B: 40, A: 255}, "koso-star": color.RGBA{B: 200, G: 90, A: 255}}

// rankColor is the colour of rank r of p in the queue plots.
func rankColor(r, p int) color.Color {
	h := float64(r) / float64(p)
	// A hue wheel at full saturation, a little darkened.
	k := func(n float64) uint8 {
		x := math.Mod(n+h*6, 6)
		v := 1 - math.Max(0, math.Min(math.Min(x, 4-x), 1))
		return uint8(210 * v)
	}
	return color.RGBA{R: k(5), G: k(3), B: k(1), A: 255}
}

// plotSeries draws the workload's busy PEs (one panel per ring, both
// policies) and queue sizes (one panel per ring and policy, a line per
// rank) as FILE-busy.png and FILE-queues.png.
func plotSeries(dir string, w workload, traces [][]string) error {
	tr := newTable(traces)
	busyPlots := make([][]*plot.Plot, len(rings))
	queuePlots := make([][]*plot.Plot, len(rings))
	for i, p := range rings {
		bp := plot.New()
		bp.Title.Text = fmt.Sprintf("p = %d", p)
		bp.X.Label.Text, bp.Y.Label.Text = "step", "busy PEs"
		bp.Y.Min, bp.Y.Max = 0, float64(p)+0.5
		bp.Add(plotter.NewGrid())
		bp.Legend.Top = false
		bp.Legend.Left = true
		busyPlots[i] = []*plot.Plot{bp}
		for _, pol := range policies {
			busy, queues := series(tr, w.name, pol, p)
			if len(busy) == 0 {
				return fmt.Errorf("traces.csv: no trace of %s, %s, p = %d", w.name, pol, p)
			}
			l, err := plotter.NewLine(busy)
			if err != nil {
				return err
			}
			l.Color = policyColors[pol]
			bp.Add(l)
			bp.Legend.Add(names[pol], l)
			qp := plot.New()
			qp.Title.Text = fmt.Sprintf("%s, p = %d", names[pol], p)
			qp.X.Label.Text, qp.Y.Label.Text = "step", "queue size"
			qp.Y.Min = 0
			qp.Add(plotter.NewGrid())
			for r, q := range queues {
				l, err := plotter.NewLine(q)
				if err != nil {
					return err
				}
				l.Color = rankColor(r, p)
				l.Width = vg.Points(0.8)
				qp.Add(l)
			}
			queuePlots[i] = append(queuePlots[i], qp)
		}
	}
	// Common x (and, for the queues, y) ranges across the panels.
	var xmax, qmax float64
	for i := range rings {
		xmax = max(xmax, busyPlots[i][0].X.Max)
		for _, qp := range queuePlots[i] {
			qmax = max(qmax, qp.Y.Max)
		}
	}
	for i := range rings {
		busyPlots[i][0].X.Min, busyPlots[i][0].X.Max = 0, xmax
		for _, qp := range queuePlots[i] {
			qp.X.Min, qp.X.Max, qp.Y.Max = 0, xmax, qmax
		}
	}
	if err := saveGrid(filepath.Join(dir, w.file+"-busy.png"), fmt.Sprintf("Seed 003 Fig. %d: busy PEs over a trial, %s (treelb, unit step model)", w.fig[0], w.what),
		busyPlots, 8*vg.Inch, 9*vg.Inch); err != nil {
		return err
	}
	return saveGrid(filepath.Join(dir, w.file+"-queues.png"), fmt.Sprintf("Seed 003 Fig. %d: queue sizes (one line per PE), %s", w.fig[1], w.what),
		queuePlots, 11*vg.Inch, 9*vg.Inch)
}

// saveGrid draws the plots as a grid of rows under a title, as PNG.
func saveGrid(path, title string, plots [][]*plot.Plot, wd, ht vg.Length) error {
	img := vgimg.New(wd, ht)
	dc := draw.New(img)
	dc.FillPolygon(color.White, []vg.Point{{X: 0, Y: 0}, {X: 0, Y: ht}, {X: wd, Y: ht}, {X: wd, Y: 0}})
	th := vg.Points(34)
	titlePlot := plot.New()
	sty := titlePlot.Title.TextStyle
	sty.XAlign = draw.XCenter
	dc.FillText(sty, vg.Point{X: wd / 2, Y: ht - th/2 - sty.Font.Size/2}, title)
	body := draw.Crop(dc, 0, 0, 0, -th)
	cols := 0
	for _, r := range plots {
		cols = max(cols, len(r))
	}
	tiles := draw.Tiles{Rows: len(plots), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, body)
	for i := range plots {
		for j, p := range plots[i] {
			p.Draw(canvases[i][j])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// treeGroups are the histograms' series: the α-trees of Table 1 and the
// polynomials of Table 2 under each rule.
var treeGroups = []struct {
	name, exp, rule string
	color           color.Color
}{
	{"α-trees (Table 1)", "alpha", "", color.RGBA{R: 200, G: 40, B: 40, A: 255}},
	{"polynomials, absolute rule (Table 2)", "poly", "absolute", color.RGBA{B: 200, G: 90, A: 255}},
	{"polynomials, relative rule", "poly", "relative", color.RGBA{G: 140, A: 255}},
}

// treeValues returns a column of the trees of a group.
func treeValues(tt table, exp, rule, c string) []float64 {
	var v []float64
	for _, row := range tt.rows {
		if tt.s(row, "experiment") == exp && tt.s(row, "rule") == rule {
			v = append(v, tt.f(row, c))
		}
	}
	return v
}

// plotHistograms draws the distributions of h (Fig. 10) and of log₁₀ N
// (Fig. 9) of the distinct trees, one panel per group.
func plotHistograms(dir string, trees [][]string) error {
	tt := newTable(trees)
	for _, h := range []struct {
		file, col, xlabel string
		fig               int
		transform         func(float64) float64
	}{
		{"fig10-height.png", "height", "height h (longest root-to-leaf path)", 10, func(x float64) float64 { return x }},
		{"fig9-nodes.png", "nodes", "log10 N (tree size, nodes)", 9, func(x float64) float64 { return math.Log10(x) }},
	} {
		var rows [][]*plot.Plot
		var xmax float64
		for _, grp := range treeGroups {
			v := treeValues(tt, grp.exp, grp.rule, h.col)
			if len(v) == 0 {
				return fmt.Errorf("trees.csv: no %s", grp.name)
			}
			for i := range v {
				v[i] = h.transform(v[i])
				xmax = max(xmax, v[i])
			}
			pl := plot.New()
			pl.Title.Text = fmt.Sprintf("%s: %d trees", grp.name, len(v))
			pl.X.Label.Text, pl.Y.Label.Text = h.xlabel, "trees"
			var hist *plotter.Histogram
			var err error
			if h.col == "height" {
				hist, err = intHistogram(v)
			} else {
				hist, err = plotter.NewHist(plotter.Values(v), 40)
			}
			if err != nil {
				return err
			}
			hist.FillColor = grp.color
			pl.Y.Tick.Marker = intTicks{}
			if h.col == "height" {
				var ticks []plot.Tick
				for x := 0; x <= 60; x += 5 {
					ticks = append(ticks, plot.Tick{Value: float64(x), Label: strconv.Itoa(x)})
				}
				pl.X.Tick.Marker = plot.ConstantTicks(ticks)
			}
			hist.LineStyle.Width = vg.Points(0.3)
			pl.Add(hist)
			rows = append(rows, []*plot.Plot{pl})
		}
		for _, r := range rows {
			r[0].X.Min, r[0].X.Max = 0, xmax+1
		}
		if err := saveGrid(filepath.Join(dir, h.file), fmt.Sprintf("Seed 003 Fig. %d: distribution of %s over the trials' distinct trees (treelb)", h.fig,
			map[string]string{"height": "h", "nodes": "N"}[h.col]), rows, 8*vg.Inch, 9*vg.Inch); err != nil {
			return err
		}
	}
	return nil
}

// intHistogram is a histogram of integers with a bin per integer.
func intHistogram(v []float64) (*plotter.Histogram, error) {
	lo, hi := slices.Min(v), slices.Max(v)
	bins := make([]plotter.HistogramBin, 0, int(hi-lo)+1)
	for x := lo; x <= hi; x++ {
		bins = append(bins, plotter.HistogramBin{Min: x - 0.5, Max: x + 0.5})
	}
	for _, x := range v {
		bins[int(x-lo)].Weight++
	}
	h, err := plotter.NewHistogram(binsXYer(bins), len(bins))
	if err != nil {
		return nil, err
	}
	h.Bins = bins
	h.Width = 1
	return h, nil
}

// intTicks are plot's default ticks labelled without trailing zeros.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	t := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range t {
		if t[i].Label != "" {
			t[i].Label = strconv.FormatFloat(t[i].Value, 'g', -1, 64)
		}
	}
	return t
}

// binsXYer gives NewHistogram the bins' centres and weights.
type binsXYer []plotter.HistogramBin

func (b binsXYer) Len() int                    { return len(b) }
func (b binsXYer) XY(i int) (float64, float64) { return (b[i].Min + b[i].Max) / 2, b[i].Weight }

// summary prints the runs' table and the trees' distributions, for the
// README.
func summary(w io.Writer, runs, trees [][]string) error {
	rt := newTable(runs)
	fmt.Fprintln(w, "| trees | policy | p | N | h | T steps | NPF | all busy, share of T | last step all busy / T | mean queue disparity | ... while all busy | max queue | nodes per rank, min–max | ranks under ¼ of N/p |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, row := range rt.rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %.3f | %.2f | %.2f | %.2f | %s | %s | %s–%s | %s |\n",
			rt.s(row, "workload"), names[rt.s(row, "policy")], rt.s(row, "p"), rt.s(row, "nodes"), rt.s(row, "height"), rt.s(row, "steps"),
			rt.f(row, "npf"), rt.f(row, "saturated_fraction"), rt.f(row, "last_saturated_fraction"), rt.f(row, "mean_disparity"),
			fmtNaN(rt.f(row, "mean_disparity_saturated")), rt.s(row, "max_queue"), rt.s(row, "min_rank_nodes"), rt.s(row, "max_rank_nodes"),
			rt.s(row, "ranks_below_quarter"))
	}
	tt := newTable(trees)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| trees | count | h min | h median | h max | N min | N median | N max | one-node trees |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, grp := range treeGroups {
		h := treeValues(tt, grp.exp, grp.rule, "height")
		n := treeValues(tt, grp.exp, grp.rule, "nodes")
		slices.Sort(h)
		slices.Sort(n)
		ones := 0
		for _, x := range n {
			if x == 1 {
				ones++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %g | %g | %g | %g | %g | %g | %d |\n", grp.name, len(h), h[0], h[len(h)/2], h[len(h)-1],
			n[0], n[len(n)/2], n[len(n)-1], ones)
	}
	return nil
}

func fmtNaN(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.2f", x)
}
