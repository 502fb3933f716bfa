//go:build tools

// Command theorem1 measures seed 002's Theorem 1 on the simulator: the
// excess T_par − T_seq/P of asynchronous random polling (rp) against the
// bound's term h·(T_rout + T_split), sweeping the tree's height h, the
// routing time T_rout and the split cost T_split separately
// (docs/seed002.md, results/seed002-theorem1/).
//
// The trees are UTS balanced binary trees (uts -t 3 -b 2 -d D: 2^(D+1) − 1
// nodes, every inner node two children): a split gives away half of the
// pending children of the shallowest levels, so a piece is split about
// once per level before it is a single path, h = D. The machine is the
// cluster model with every cost but three zeroed: a node costs --node-ns
// (1 µs), a message T_rout = --latency-ns (no overhead, gap or bandwidth
// term), a split --split-ns. T_seq is nodes × node cost, the sequential
// solver's virtual time in the same model; T_par is the run's virtual
// time, termination detection included. Δt (--budget nodes) is held fixed.
//
//	go run -tags tools ./scripts/theorem1                  # the sweep, results/seed002-theorem1/
//	go run -tags tools ./scripts/theorem1 --plot-only      # the plot of the CSV
//
// It is a maintainer's tool behind the build tag tools, so that
// go install ./... installs only the user-facing commands.
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/treelb/treelb/version"
)

// point is one configuration of the sweep.
type point struct {
	sweep   string // h, rout or split: the parameter varied
	depth   int
	latency float64 // ns
	split   float64 // ns
}

var columns = []string{"sweep", "h", "np", "budget_nodes", "node_ns", "t_rout_ns", "t_split_ns", "seed", "nodes",
	"t_seq_s", "t_par_s", "last_work_s", "excess_s", "h_rout_split_s", "h_dt_rout_split_s", "excess_over_term", "requests", "work", "command"}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "theorem1:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "results/seed002-theorem1", "output `DIR`: theorem1.csv and the plots")
	np := flag.Int("np", 64, "ranks P")
	budget := flag.Int("budget", 100, "Δt in nodes")
	nodeNS := flag.Float64("node-ns", 1000, "virtual ns per node")
	seeds := flag.Int("seeds", 3, "seeds per configuration")
	plotOnly := flag.Bool("plot-only", false, "draw the plot of DIR/theorem1.csv, run nothing")
	flag.Parse()
	path := filepath.Join(*out, "theorem1.csv")
	if *plotOnly {
		return plotCSV(path, *out)
	}
	var pts []point
	for _, d := range []int{10, 12, 14, 16, 18, 20} {
		pts = append(pts, point{"h", d, 50e3, 0})
	}
	for _, l := range []float64{10e3, 30e3, 100e3, 300e3, 1e6} {
		pts = append(pts, point{"rout", 16, l, 0})
	}
	for _, s := range []float64{10e3, 30e3, 100e3, 300e3, 1e6} {
		pts = append(pts, point{"split", 16, 10e3, s})
	}
	bin, err := os.MkdirTemp("", "theorem1")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	uts := filepath.Join(bin, "uts")
	// -buildvcs=auto: every row's provenance names the commit (and whether
	// the tree was modified), whatever GOFLAGS says.
	if b, err := exec.Command("go", "build", "-buildvcs=auto", "-o", uts, "./apps/uts").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./apps/uts: %v\n%s", err, b)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	provNames, _ := version.Provenance{}.Columns()
	w.Write(append(slices.Clone(columns), provNames...))
	for i, p := range pts {
		for seed := 1; seed <= *seeds; seed++ {
			args := []string{"--json", "--world", "sim", "--np", strconv.Itoa(*np), "--machine", "cluster",
				"--node-ns", fmt.Sprint(*nodeNS), "--overhead-ns", "0", "--gap-ns", "0", "--byte-ns", "0",
				"--latency-ns", fmt.Sprint(p.latency), "--split-ns", fmt.Sprint(p.split), "--budget", strconv.Itoa(*budget),
				"-b", "rp", "--seed", strconv.Itoa(seed), "--", "-t", "3", "-b", "2", "-d", strconv.Itoa(p.depth)}
			fmt.Fprintf(os.Stderr, "run %d of %d: uts %s\n", i**seeds+seed, len(pts)**seeds, strings.Join(args, " "))
			b, err := exec.CommandContext(context.Background(), uts, args...).Output()
			if err != nil {
				return fmt.Errorf("uts %s: %v", strings.Join(args, " "), err)
			}
			var r struct {
				Nodes          int64              `json:"nodes"`
				Depth          int                `json:"depth"`
				VirtualSeconds float64            `json:"virtual_seconds"`
				LastWork       float64            `json:"last_work_seconds"`
				Messages       map[string]int64   `json:"messages"`
				Provenance     version.Provenance `json:"provenance"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				return fmt.Errorf("uts %s: %v", strings.Join(args, " "), err)
			}
			if r.Depth != p.depth || r.Nodes != 1<<(p.depth+1)-1 {
				return fmt.Errorf("uts -d %d: %d nodes of depth %d, want %d of depth %d", p.depth, r.Nodes, r.Depth, 1<<(p.depth+1)-1, p.depth)
			}
			h := float64(p.depth)
			tseq := float64(r.Nodes) * *nodeNS / 1e9
			excess := r.VirtualSeconds - tseq/float64(*np)
			term := h * (p.latency + p.split) / 1e9
			termDt := h * (float64(*budget)**nodeNS + p.latency + p.split) / 1e9
			row := []string{p.sweep, strconv.Itoa(p.depth), strconv.Itoa(*np), strconv.Itoa(*budget), fmt.Sprint(*nodeNS),
				fmt.Sprint(p.latency), fmt.Sprint(p.split), strconv.Itoa(seed), strconv.FormatInt(r.Nodes, 10),
				g(tseq), g(r.VirtualSeconds), g(r.LastWork), g(excess), g(term), g(termDt), g(excess / term),
				strconv.FormatInt(r.Messages["request"], 10), strconv.FormatInt(r.Messages["work"], 10),
				"uts " + strings.Join(args, " ")}
			_, prov := r.Provenance.Columns()
			w.Write(append(row, prov...))
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return plotCSV(path, *out)
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// plotCSV draws the measured excess against h·(T_rout + T_split), one
// series per sweep, the medians of the seeds with their range, and prints
// per configuration the median ratio excess / term.
func plotCSV(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return err
	}
	provNames, _ := version.Provenance{}.Columns()
	if len(rows) < 2 || !slices.Equal(rows[0], append(slices.Clone(columns), provNames...)) {
		return errors.New(path + ": not theorem1's columns")
	}
	col := map[string]int{}
	for i, c := range columns {
		col[c] = i
	}
	num := func(r []string, c string) float64 { x, _ := strconv.ParseFloat(r[col[c]], 64); return x }
	type key struct {
		sweep        string
		h, rout, spl float64
		term, termDt float64
		tseqOverP    float64
	}
	ex, lw := map[key][]float64{}, map[key][]float64{}
	var keys []key
	for _, r := range rows[1:] {
		k := key{r[col["sweep"]], num(r, "h"), num(r, "t_rout_ns"), num(r, "t_split_ns"), num(r, "h_rout_split_s"),
			num(r, "h_dt_rout_split_s"), num(r, "t_seq_s") / num(r, "np")}
		if _, ok := ex[k]; !ok {
			keys = append(keys, k)
		}
		ex[k] = append(ex[k], num(r, "excess_s"))
		lw[k] = append(lw[k], num(r, "last_work_s")-num(r, "t_seq_s")/num(r, "np"))
	}
	pl := plot.New()
	pl.Title.Text = "seed 002 Theorem 1: rp on 64 simulated ranks, UTS binary trees"
	pl.X.Label.Text = "h·(T_rout + T_split) (ms)"
	pl.Y.Label.Text = "T_par − T_seq/P (ms)"
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Add(plotter.NewGrid())
	names := map[string]string{"h": "h = 10…20 (T_rout 50 µs)", "rout": "T_rout 10 µs…1 ms (h = 16)", "split": "T_split 10 µs…1 ms (h = 16, T_rout 10 µs)"}
	colors := map[string]color.Color{"h": color.RGBA{R: 200, A: 255}, "rout": color.RGBA{B: 200, A: 255}, "split": color.RGBA{G: 150, A: 255}}
	shapes := map[string]draw.GlyphDrawer{"h": draw.CircleGlyph{}, "rout": draw.SquareGlyph{}, "split": draw.TriangleGlyph{}}
	fmt.Printf("| sweep | h | T_rout µs | T_split µs | T_seq/P ms | h·(T_rout+T_split) ms | excess ms (median, min–max) | excess / term | excess / h·(Δt+T_rout+T_split) | excess to the last node / term |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range []string{"h", "rout", "split"} {
		var xys, lo, hi plotter.XYs
		for _, k := range keys {
			if k.sweep != s {
				continue
			}
			v := slices.Clone(ex[k])
			slices.Sort(v)
			med := stat.Quantile(0.5, stat.Empirical, v, nil)
			xys = append(xys, plotter.XY{X: k.term * 1e3, Y: med * 1e3})
			lo = append(lo, plotter.XY{X: k.term * 1e3, Y: v[0] * 1e3})
			hi = append(hi, plotter.XY{X: k.term * 1e3, Y: v[len(v)-1] * 1e3})
			u := slices.Clone(lw[k])
			slices.Sort(u)
			fmt.Printf("| %s | %g | %g | %g | %.3f | %.3f | %.3f (%.3f–%.3f) | %.2f | %.2f | %.2f |\n", s, k.h, k.rout/1e3, k.spl/1e3, k.tseqOverP*1e3,
				k.term*1e3, med*1e3, v[0]*1e3, v[len(v)-1]*1e3, med/k.term, med/k.termDt, stat.Quantile(0.5, stat.Empirical, u, nil)/k.term)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		line.Color, points.Color, points.Shape = colors[s], colors[s], shapes[s]
		pl.Add(line, points)
		pl.Legend.Add(names[s], line, points)
		for _, r := range []plotter.XYs{lo, hi} {
			sc, err := plotter.NewScatter(r)
			if err != nil {
				return err
			}
			sc.Color, sc.Shape, sc.Radius = colors[s], draw.CrossGlyph{}, vg.Points(2)
			pl.Add(sc)
		}
	}
	for _, ext := range []string{"png", "svg"} {
		if err := pl.Save(7*vg.Inch, 5*vg.Inch, filepath.Join(dir, "theorem1-excess."+ext)); err != nil {
			return err
		}
	}
	return nil
}
