package campaign

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plots writes the campaign's plots of pts, each as PREFIX-NAME.png and
// PREFIX-NAME.svg, and returns the files written:
//
//   - speedup: speedup against P on log-log axes, one line per world,
//     balancer and instance, with the ideal speedup P;
//   - seqtime: speedup against the sequential time, one point per instance
//     and a series per world, balancer and P, with lines at P (seed 002
//     Figs. 3 and 4);
//   - iterations: the same for every failing iteration of simulated runs
//     that report iterations (the 15-puzzle's IDA*, as seed 002 Fig. 3
//     counts them), when there are any;
//   - messages: messages per rank against P on log-log axes.
//
// A plot without a point to draw is left out. title heads every plot.
func Plots(prefix, title string, pts []Point) ([]string, error) {
	gs := Groups(pts)
	worlds := map[string]bool{}
	for _, g := range gs {
		worlds[g.World] = true
	}
	label := func(g Group, instance bool) string {
		s := g.Balancer
		if instance {
			s += " · " + g.Instance
		}
		if len(worlds) > 1 {
			s += " · " + g.World
		}
		return s
	}
	var files []string
	save := func(pl *plot.Plot, name string) error {
		pad(pl)
		for _, ext := range []string{".png", ".svg"} {
			f := prefix + "-" + name + ext
			if err := pl.Save(9*vg.Inch, 6*vg.Inch, f); err != nil {
				return fmt.Errorf("campaign: plot %s: %w", f, err)
			}
			files = append(files, f)
		}
		return nil
	}

	// Speedup and messages per rank against P.
	byLine := func(y func(Group) float64) ([]string, map[string]plotter.XYs) {
		var names []string
		lines := map[string]plotter.XYs{}
		for _, g := range sortedBy(gs, func(g Group) int { return g.NP }) {
			v := y(g)
			if !(v > 0) || math.IsInf(v, 0) {
				continue
			}
			n := label(g, true)
			if _, ok := lines[n]; !ok {
				names = append(names, n)
			}
			lines[n] = append(lines[n], plotter.XY{X: float64(g.NP), Y: v})
		}
		return names, lines
	}
	nps := map[int]bool{}
	for _, g := range gs {
		nps[g.NP] = true
	}
	pList := slices.Sorted(func(yield func(int) bool) {
		for p := range nps {
			if !yield(p) {
				return
			}
		}
	})
	if names, lines := byLine(func(g Group) float64 { return g.Speedup }); len(names) > 0 {
		pl := logLog(title, "P (ranks)", "speedup T_seq / T_par")
		pl.Legend.Top, pl.Legend.Left = false, false
		lo, hi := float64(pList[0]), float64(pList[len(pList)-1])
		if err := dashed(pl, "ideal (speedup P)", plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}}, color.RGBA{R: 200, A: 255}); err != nil {
			return nil, err
		}
		if err := addLines(pl, names, lines); err != nil {
			return nil, err
		}
		if err := save(pl, "speedup"); err != nil {
			return nil, err
		}
	}
	if names, lines := byLine(func(g Group) float64 { return g.Messages / float64(g.NP) }); len(names) > 0 {
		pl := logLog(title, "P (ranks)", "messages per rank")
		if err := addLines(pl, names, lines); err != nil {
			return nil, err
		}
		if err := save(pl, "messages"); err != nil {
			return nil, err
		}
	}

	// Speedup against the sequential time: instances, then iterations.
	seqPlot := func(name, xlabel string, pts map[string]plotter.XYs, names []string, ps []int) error {
		if len(names) == 0 {
			return nil
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, xys := range pts {
			for _, p := range xys {
				lo, hi = min(lo, p.X), max(hi, p.X)
			}
		}
		pl := logLog(title, xlabel, "speedup T_seq / T_par")
		pl.Legend.Top, pl.Legend.Left = false, false
		for _, p := range ps {
			if err := dashed(pl, "speedup "+strconv.Itoa(p), plotter.XYs{{X: lo, Y: float64(p)}, {X: hi, Y: float64(p)}}, color.Gray{Y: 110}); err != nil {
				return err
			}
		}
		var args []any
		for _, n := range names {
			args = append(args, n, pts[n])
		}
		if err := plotutil.AddScatters(pl, args...); err != nil {
			return fmt.Errorf("campaign: plot: %w", err)
		}
		return save(pl, name)
	}
	var names, itNames []string
	inst, iter := map[string]plotter.XYs{}, map[string]plotter.XYs{}
	for _, g := range gs {
		if g.Speedup > 0 && g.Seq > 0 && !math.IsInf(g.Speedup, 0) {
			n := label(g, false) + " · P=" + strconv.Itoa(g.NP)
			if _, ok := inst[n]; !ok {
				names = append(names, n)
			}
			inst[n] = append(inst[n], plotter.XY{X: g.Seq, Y: g.Speedup})
		}
	}
	for _, p := range pts {
		if math.IsNaN(p.NodeSeconds) {
			continue
		}
		n := label(Group{World: p.World, Balancer: p.Balancer}, false) + " · P=" + strconv.Itoa(p.NP)
		for _, it := range p.Iterations {
			seq := float64(it.Nodes) * p.NodeSeconds
			if !it.Failed || it.Seconds <= 0 || seq <= 0 {
				continue
			}
			if _, ok := iter[n]; !ok {
				itNames = append(itNames, n)
			}
			iter[n] = append(iter[n], plotter.XY{X: seq, Y: seq / it.Seconds})
		}
	}
	if err := seqPlot("seqtime", "sequential time T_seq per instance (s)", inst, names, pList); err != nil {
		return nil, err
	}
	if err := seqPlot("iterations", "sequential time T_seq per failing iteration (s)", iter, itNames, pList); err != nil {
		return nil, err
	}
	return files, nil
}

// logLog returns a plot with logarithmic axes and a grid.
func logLog(title, x, y string) *plot.Plot {
	pl := plot.New()
	pl.Title.Text = title
	pl.X.Label.Text, pl.Y.Label.Text = x, y
	pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = Steps125{}, Steps125{}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Add(plotter.NewGrid())
	return pl
}

// pad widens both logarithmic axes by a factor 1.3 at each end, so that
// points and reference lines do not sit on the frame.
func pad(pl *plot.Plot) {
	pl.X.Min, pl.X.Max = pl.X.Min/1.3, pl.X.Max*1.3
	pl.Y.Min, pl.Y.Max = pl.Y.Min/1.3, pl.Y.Max*1.3
}

// dashed adds a dashed reference line to pl and the legend.
func dashed(pl *plot.Plot, name string, xys plotter.XYs, c color.Color) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("campaign: plot: %w", err)
	}
	l.Color, l.Dashes = c, []vg.Length{vg.Points(4), vg.Points(3)}
	pl.Add(l)
	pl.Legend.Add(name, l)
	return nil
}

// addLines adds one line with points per name.
func addLines(pl *plot.Plot, names []string, lines map[string]plotter.XYs) error {
	var args []any
	for _, n := range names {
		args = append(args, n, lines[n])
	}
	if err := plotutil.AddLinePoints(pl, args...); err != nil {
		return fmt.Errorf("campaign: plot: %w", err)
	}
	return nil
}

// Steps125 marks a logarithmic axis at 1, 2 and 5 times the powers of ten,
// labelled (at the powers alone over more than four decades), or at every
// digit times them when that gives fewer than three ticks, so that an axis spanning less than a decade has ticks too. Its
// zero value is ready to use.
type Steps125 struct{}

// Ticks returns the ticks between lo and hi.
func (Steps125) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	steps := [][]float64{{1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}
	if hi > lo*1e4 {
		steps = [][]float64{{1}} // more than four decades: powers of ten only
	}
	for _, ms := range steps {
		ticks = ticks[:0]
		for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
			for _, m := range ms {
				if v := m * math.Pow(10, e); v >= lo && v <= hi {
					ticks = append(ticks, plot.Tick{Value: v, Label: strings.TrimSuffix(strconv.FormatFloat(v, 'g', 3, 64), ".0")})
				}
			}
		}
		if len(ticks) >= 3 {
			break
		}
	}
	return ticks
}
