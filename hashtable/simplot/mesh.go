package simplot

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/treelb/treelb/hashtable"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// MeshPNG writes a PNG of the mesh model's dispatch (hashtable.MeshDispatch)
// with one column per q label and two rows, p on log-log axes: above, the
// simulated dispatch time of every allocation and routing in pts, and for
// the first of them its lower bounds (the busiest link, the seed's
// traffic / capacity, the senders' overheads); below, the mean latency of
// a message under the dispatch's load against the zero-load latency t_s +
// t_h·D + t_w·L. Safe for concurrent use; O(len(pts)).
func MeshPNG(w io.Writer, pts []hashtable.MeshPoint, title string) error {
	if len(pts) == 0 {
		return fmt.Errorf("simplot: no mesh points")
	}
	var labels []string
	seen := map[string]bool{}
	for _, pt := range pts {
		if !seen[pt.QLabel] {
			seen[pt.QLabel] = true
			labels = append(labels, pt.QLabel)
		}
	}
	var ticks []plot.Tick
	done := map[int]bool{}
	for _, pt := range pts {
		if !done[pt.P] {
			done[pt.P] = true
			ticks = append(ticks, plot.Tick{Value: float64(pt.P), Label: strconv.Itoa(pt.P)})
		}
	}
	first := pts[0].Alloc + " " + pts[0].Routing
	ms := func(ns float64) float64 { return ns / 1e6 }
	panel := func(name, ylabel string) *plot.Plot {
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = "p (ranks on a √p × √p mesh)"
		p.Y.Label.Text = ylabel
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Y.Tick.Marker = labelledLogTicks{}
		p.X.Min, p.X.Max = ticks[0].Value/1.3, ticks[len(ticks)-1].Value*1.3
		p.Add(plotter.NewGrid())
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs = vg.Millimeter * 3
		return p
	}
	// lines draws the named series in order, with room above them for the
	// legend (a fifth of the log range per entry).
	lines := func(p *plot.Plot, order []string, series map[string]plotter.XYs) error {
		var args []any
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, name := range order {
			args = append(args, name, series[name])
			for _, xy := range series[name] {
				lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
			}
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return fmt.Errorf("simplot: %w", err)
		}
		switch {
		case lo > 0 && hi > lo:
			span := math.Log10(hi / lo)
			p.Y.Min, p.Y.Max = lo/math.Pow(10, 0.05*span), hi*math.Pow(10, span*(0.1+0.13*float64(len(order))))
		case lo > 0 && hi == lo: // one value (one p, or times equal at every p): a decade around it
			p.Y.Min, p.Y.Max = lo/math.Pow(10, 0.05), hi*math.Pow(10, 0.1+0.13*float64(len(order)))
		default: // nothing to draw (a model whose times are all 0): an empty panel, not a log scale of nothing
			p.Y.Min, p.Y.Max = 1e-3, 1
		}
		return nil
	}
	rows := [][]*plot.Plot{make([]*plot.Plot, len(labels)), make([]*plot.Plot, len(labels))}
	for i, lab := range labels {
		name := "q = " + lab
		if lab == "" {
			name = "q as given"
		}
		top := panel(name+": dispatch time", "time (ms)")
		bottom := panel(name+": latency of a message", "mean latency (ms)")
		series := map[string]plotter.XYs{}
		var dispatch, bounds, latency, zero []string
		add := func(order *[]string, name string, xy plotter.XY) {
			if !(xy.Y > 0) { // a time of 0 has no place on a log scale
				return
			}
			if _, ok := series[name]; !ok {
				*order = append(*order, name)
			}
			series[name] = append(series[name], xy)
		}
		for _, pt := range pts {
			if pt.QLabel != lab || pt.Dispatch <= 0 {
				continue
			}
			x := float64(pt.P)
			add(&dispatch, "dispatch, "+pt.Alloc+", "+pt.Routing, plotter.XY{X: x, Y: ms(pt.Dispatch)})
			add(&latency, "under load, "+pt.Alloc+", "+pt.Routing, plotter.XY{X: x, Y: ms(pt.LatencyMean)})
			if pt.Alloc+" "+pt.Routing != first {
				continue
			}
			add(&bounds, "bound: busiest link", plotter.XY{X: x, Y: ms(pt.TimeLink)})
			add(&bounds, "bound: seed's traffic / capacity", plotter.XY{X: x, Y: ms(pt.TimeCapacityPaper)})
			add(&bounds, "bound: sender's overheads", plotter.XY{X: x, Y: ms(pt.TimeSend)})
			add(&zero, "zero-load, "+pt.Routing, plotter.XY{X: x, Y: ms(pt.ZeroLoadMean)})
		}
		if err := lines(top, append(dispatch, bounds...), series); err != nil {
			return err
		}
		if err := lines(bottom, append(latency, zero...), series); err != nil {
			return err
		}
		rows[0][i], rows[1][i] = top, bottom
	}
	return writeTiles(w, rows, vg.Length(len(labels))*5*vg.Inch, 10*vg.Inch, title)
}

// labelledLogTicks are gonum's log ticks, which label only the powers of
// ten, with labels at 1, 2 and 5 times them, or at the axis's ends, on an
// axis that holds fewer than two powers of ten: a panel whose times stayed
// within a decade had no label to read them by.
type labelledLogTicks struct{}

// Ticks returns the ticks of [min, max].
func (labelledLogTicks) Ticks(min, max float64) []plot.Tick {
	ts := plot.LogTicks{Prec: -1}.Ticks(min, max)
	labels := 0
	for _, t := range ts {
		if t.Label != "" && t.Value >= min && t.Value <= max { // gonum's reach past the range
			labels++
		}
	}
	if labels >= 2 || !(min > 0 && max > min) {
		return ts
	}
	var out []plot.Tick
	for e := math.Floor(math.Log10(min)); math.Pow(10, e) <= max; e++ {
		for _, m := range []float64{1, 2, 5} {
			if v := m * math.Pow(10, e); v >= min && v <= max {
				out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
			}
		}
	}
	if len(out) < 2 {
		out = []plot.Tick{{Value: min, Label: strconv.FormatFloat(min, 'g', 3, 64)}, {Value: max, Label: strconv.FormatFloat(max, 'g', 3, 64)}}
	}
	return out
}
