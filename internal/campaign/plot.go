package campaign

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plots writes the campaign's plots of pts, each as PREFIX-NAME.png and
// PREFIX-NAME.svg, and returns the files written:
//
//   - speedup: speedup against P on log-log axes, one line per world,
//     balancer and instance, with the ideal speedup P (with several P);
//   - seqtime: speedup against the instance's sequential time T_seq, one
//     point per instance (at the same x under every balancer) and a series
//     per world, balancer and P, with lines at P (seed 002 Figs. 3 and 4);
//   - iterations: the same for every failing iteration of runs that report
//     iterations (the 15-puzzle's IDA*, as seed 002 Fig. 3 counts them),
//     when there are any;
//   - overhead: search overhead (nodes over the sequential solver's)
//     against T_seq, when some run's differs from 1 (branch and bound);
//   - messages: messages per rank against P on log-log axes (with several
//     P).
//
// A plot without a point to draw is left out. Every plot's title is
// Title(label, pts): what ran, on which machine, at which P.
func Plots(prefix, label string, pts []Point) ([]string, error) {
	gs := Groups(pts)
	title := Title(label, pts)
	worlds := map[string]bool{}
	for _, g := range gs {
		worlds[g.World] = true
	}
	var pList []int
	for _, g := range gs {
		pList = addNew(pList, g.NP)
	}
	slices.Sort(pList)
	name := func(g Group, instance bool) string {
		return seriesName(g, instance, len(worlds) > 1, false)
	}
	// The series against T_seq name their P only when there are several
	// (the title names the one there is).
	scatterName := func(g Group) string { return seriesName(g, false, len(worlds) > 1, len(pList) > 1) }
	var files []string
	save := func(pl *plot.Plot, name string) error {
		pad(pl)
		for _, ext := range []string{".png", ".svg"} {
			f := prefix + "-" + name + ext
			if err := saveBeside(pl, 9*vg.Inch, 6*vg.Inch, f); err != nil {
				return fmt.Errorf("campaign: plot %s: %w", f, err)
			}
			files = append(files, f)
		}
		return nil
	}
	seqAxis := "T_seq = " + seqMeaning(pts)

	// Speedup and messages per rank against P.
	byLine := func(y func(Group) float64) ([]string, map[string]plotter.XYs) {
		var names []string
		lines := map[string]plotter.XYs{}
		for _, g := range sortedBy(gs, func(g Group) int { return g.NP }) {
			v := y(g)
			if !(v > 0) || math.IsInf(v, 0) {
				continue
			}
			n := name(g, true)
			if _, ok := lines[n]; !ok {
				names = append(names, n)
			}
			lines[n] = append(lines[n], plotter.XY{X: float64(g.NP), Y: v})
		}
		return names, lines
	}
	// Against P: only when there are several.
	if len(pList) < 2 {
		byLine = func(func(Group) float64) ([]string, map[string]plotter.XYs) { return nil, nil }
	}
	if names, lines := byLine(func(g Group) float64 { return g.Speedup.Median }); len(names) > 0 {
		pl := logLog(title, "P (ranks)", "speedup T_seq / T_par (median of the runs)\n"+seqAxis)
		pl.X.Tick.Marker = logTicks{PowersOfTwo{}}
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
		pl := logLog(title, "P (ranks)", "messages per rank (median of the runs)")
		pl.X.Tick.Marker = logTicks{PowersOfTwo{}}
		if err := addLines(pl, names, lines); err != nil {
			return nil, err
		}
		if err := save(pl, "messages"); err != nil {
			return nil, err
		}
	}

	// Against the sequential time: instances, iterations, overhead.
	scatter := func(file, xlabel, ylabel string, pts map[string]plotter.XYs, names []string, refs []float64, refName func(float64) string) error {
		if len(names) == 0 {
			return nil
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, xys := range pts {
			for _, p := range xys {
				lo, hi = min(lo, p.X), max(hi, p.X)
			}
		}
		pl := logLog(title, xlabel, ylabel)
		for _, r := range refs {
			// Across the padded width (pad), so that a line stays visible
			// when every point has the same T_seq.
			if err := dashed(pl, refName(r), plotter.XYs{{X: lo / padFactor, Y: r}, {X: hi * padFactor, Y: r}}, color.Gray{Y: 110}); err != nil {
				return err
			}
		}
		var args []any
		for _, n := range names {
			args = append(args, n, logXY(pts[n]))
		}
		if err := plotutil.AddScatters(pl, args...); err != nil {
			return fmt.Errorf("campaign: plot: %w", err)
		}
		return save(pl, file)
	}
	var names, itNames, ovNames []string
	inst, iter, over := map[string]plotter.XYs{}, map[string]plotter.XYs{}, map[string]plotter.XYs{}
	branching := false
	for _, g := range gs {
		n := scatterName(g)
		if g.Speedup.Median > 0 && g.Seq.Median > 0 && !math.IsInf(g.Speedup.Median, 0) {
			if _, ok := inst[n]; !ok {
				names = append(names, n)
			}
			inst[n] = append(inst[n], plotter.XY{X: g.Seq.Median, Y: g.Speedup.Median})
		}
		if g.Overhead.Median > 0 && g.Seq.Median > 0 && !math.IsInf(g.Overhead.Median, 0) {
			if _, ok := over[n]; !ok {
				ovNames = append(ovNames, n)
			}
			over[n] = append(over[n], plotter.XY{X: g.Seq.Median, Y: g.Overhead.Median})
			branching = branching || math.Abs(g.Overhead.Median-1) > 1e-9
		}
	}
	for _, p := range pts {
		n := scatterName(Group{World: p.World, Balancer: p.Balancer, NP: p.NP})
		for _, it := range p.Iterations {
			if _, ok := iter[n]; !ok {
				itNames = append(itNames, n)
			}
			iter[n] = append(iter[n], plotter.XY{X: it.Seq, Y: it.Seq / it.Par})
		}
	}
	ps := make([]float64, len(pList))
	for i, p := range pList {
		ps[i] = float64(p)
	}
	speedupAt := func(p float64) string { return "speedup " + Number(p) }
	if err := scatter("seqtime", seqAxis+", per instance (s)", "speedup T_seq / T_par (median of the runs)", inst, names, ps, speedupAt); err != nil {
		return nil, err
	}
	if err := scatter("iterations", seqAxis+", per failing iteration (s)", "speedup T_seq / T_par of the iteration", iter, itNames, ps, speedupAt); err != nil {
		return nil, err
	}
	if branching {
		if err := scatter("overhead", seqAxis+", per instance (s)", "search overhead: nodes / sequential solver's nodes", over, ovNames,
			[]float64{1}, func(float64) string { return "the sequential nodes" }); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// Title returns the title of a campaign's plots: label and the instance
// set of pts (the instances, or how many there are) on one line, and on
// the next the machines and the P that ran them.
func Title(label string, pts []Point) string {
	var apps, instances, machines []string
	var ps []int
	for _, p := range pts {
		apps = addNew(apps, App(p.Instance))
		instances = addNew(instances, p.Instance)
		machines = addNew(machines, p.Machine)
		ps = addNew(ps, p.NP)
	}
	slices.Sort(ps)
	set := fmt.Sprintf("%s, %d instances", strings.Join(apps, ", "), len(instances))
	if len(instances) <= 3 {
		set = strings.Join(instances, "; ")
	}
	switch {
	case label == "":
		label = set
	case len(instances) <= 3:
		label += " (" + set + ")"
	default:
		label += fmt.Sprintf(" (%d instances)", len(instances))
	}
	var pl string
	switch {
	case len(ps) == 1:
		pl = "P = " + Number(float64(ps[0]))
	case len(ps) <= 4:
		s := make([]string, len(ps))
		for i, p := range ps {
			s[i] = Number(float64(p))
		}
		pl = "P = " + strings.Join(s, ", ")
	case len(ps) > 4:
		pl = "P = " + Number(float64(ps[0])) + " … " + Number(float64(ps[len(ps)-1]))
	}
	return label + "\n" + strings.Join(machines, "; ") + ", " + pl
}

// seqMeaning says what the sequential time T_seq of pts is.
func seqMeaning(pts []Point) string {
	sim, real := false, false
	for _, p := range pts {
		sim, real = sim || p.Simulated, real || !p.Simulated
	}
	const (
		simText  = "the sequential solver's nodes × node cost (virtual)"
		realText = "the median wall time of --balancer seq"
	)
	switch {
	case sim && real:
		// Two lines: on one the speedup plot's vertical label ran past
		// the plot's height and was cut.
		return "seq's nodes × node cost (simulated worlds, virtual)\nor " + realText + " (real worlds)"
	case sim:
		return simText
	}
	return realText
}

// logLog returns a plot with logarithmic axes, readable ticks and a grid.
// The axes are linear axes of the logarithms (logXY), labelled with the
// values (logTicks): gonum places the axis labels' glyph boxes at the
// arithmetic middle of a logarithmic axis, which squeezes the data area.
func logLog(title, x, y string) *plot.Plot {
	pl := plot.New()
	pl.Title.Text = title
	pl.Title.Padding = vg.Points(6)
	pl.X.Label.Text, pl.Y.Label.Text = x, y
	pl.X.Tick.Marker, pl.Y.Tick.Marker = logTicks{Steps125{}}, logTicks{Steps125{}}
	pl.Legend.Top, pl.Legend.Left = true, true
	pl.Add(plotter.NewGrid())
	return pl
}

// saveBeside writes pl to file (its extension the format: png, svg) with
// the plot area w × h and the legend in a column of its own to the right,
// where it hides no point.
func saveBeside(pl *plot.Plot, w, h vg.Length, file string) error {
	legend := pl.Legend
	pl.Legend = plot.NewLegend()
	defer func() { pl.Legend = legend }()
	m := vg.Points(12)
	lr := legend.Rectangle(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
	lw := lr.Max.X - lr.Min.X + 2*m
	c, err := draw.NewFormattedCanvas(w+lw, h, strings.TrimPrefix(filepath.Ext(file), "."))
	if err != nil {
		return err
	}
	dc := draw.New(c)
	pl.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	top := pl.Title.TextStyle.Rectangle(pl.Title.Text)
	legend.Top, legend.Left = true, true
	legend.Draw(draw.Crop(dc, w+m, 0, 0, -(top.Max.Y-top.Min.Y)-pl.Title.Padding-m))
	return writeFile(file, func(f io.Writer) error {
		_, err := c.WriteTo(f)
		return err
	})
}

// logXY returns the base-10 logarithms of xys, for logLog's axes.
func logXY(xys plotter.XYs) plotter.XYs {
	out := make(plotter.XYs, len(xys))
	for i, p := range xys {
		out[i] = plotter.XY{X: math.Log10(p.X), Y: math.Log10(p.Y)}
	}
	return out
}

// logTicks marks an axis of logarithms with the ticks of its ticker on
// the values, at their logarithms.
type logTicks struct{ ticker plot.Ticker }

// Ticks returns the ticks between lo and hi, logarithms of values.
func (l logTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := l.ticker.Ticks(math.Pow(10, lo), math.Pow(10, hi))
	for i := range ts {
		ts[i].Value = math.Log10(ts[i].Value)
	}
	return ts
}

// padFactor is the factor by which pad widens an axis at each end.
const padFactor = 1.3

// pad widens both logarithmic axes by a factor 1.3 at each end, so that
// points and reference lines do not sit on the frame.
func pad(pl *plot.Plot) {
	d := math.Log10(padFactor)
	pl.X.Min, pl.X.Max = pl.X.Min-d, pl.X.Max+d
	pl.Y.Min, pl.Y.Max = pl.Y.Min-d, pl.Y.Max+d
}

// dashed adds a dashed reference line to pl and the legend.
func dashed(pl *plot.Plot, name string, xys plotter.XYs, c color.Color) error {
	l, err := plotter.NewLine(logXY(xys))
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
		args = append(args, n, logXY(lines[n]))
	}
	if err := plotutil.AddLinePoints(pl, args...); err != nil {
		return fmt.Errorf("campaign: plot: %w", err)
	}
	return nil
}

// Number formats a number for a reader: no exponent, at most six
// significant digits, the integer part grouped by thousands with a space
// ("1 000", "16 384", "2 500.5"), the fewest decimals that say it
// ("0.005", "2.5").
func Number(v float64) string {
	if v < 0 {
		return "-" + Number(-v)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	whole, frac, _ := strings.Cut(strconv.FormatFloat(r, 'f', -1, 64), ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Steps125 marks a logarithmic axis at 1, 2 and 5 times the powers of ten,
// labelled with Number (1 000, 2 000, 5 000; never 1e+03), at the powers
// alone over more than four decades, or at every digit times them when
// that gives fewer than three ticks, so that an axis spanning less than a
// decade has ticks too. Its zero value is ready to use.
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
					ticks = append(ticks, plot.Tick{Value: v, Label: Number(v)})
				}
			}
		}
		if len(ticks) >= 3 {
			break
		}
	}
	return ticks
}

// PowersOfTwo marks a logarithmic axis of rank counts at the powers of two
// (every second one when there would be more than 12), labelled with
// Number. Its zero value is ready to use.
type PowersOfTwo struct{}

// Ticks returns the ticks between lo and hi.
func (PowersOfTwo) Ticks(lo, hi float64) []plot.Tick {
	first, last := math.Ceil(math.Log2(lo)), math.Floor(math.Log2(hi))
	step := 1.0
	if last-first >= 12 {
		step = 2
	}
	var ticks []plot.Tick
	for e := first; e <= last; e += step {
		v := math.Pow(2, e)
		ticks = append(ticks, plot.Tick{Value: v, Label: Number(v)})
	}
	if len(ticks) < 2 {
		return Steps125{}.Ticks(lo, hi)
	}
	return ticks
}

// seriesName names a series of a plot: the balancer, then the instance
// (with instance), the world (with worlds: when the plot has several) and
// P (with ps: when the plot has several; the title names a single P).
func seriesName(g Group, instance, worlds, ps bool) string {
	s := g.Balancer
	if instance {
		s += " · " + g.Instance
	}
	if worlds {
		s += " · " + g.World
	}
	if ps {
		s += " · P = " + Number(float64(g.NP))
	}
	return s
}

// sortedBy returns xs sorted by key, stably.
func sortedBy[T any, K interface{ ~int | ~string | ~float64 }](xs []T, key func(T) K) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	return out
}
