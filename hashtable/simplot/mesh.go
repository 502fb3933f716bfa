package simplot

import (
	"fmt"
	"image/color"
	"io"
	"strconv"

	"github.com/treelb/treelb/hashtable"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// MeshPNG writes a PNG of the dispatch times of the mesh model
// (hashtable.MeshDispatch): one panel per q label, the time per element
// generated on a rank (time / (q·β)) against p on log-log axes, with the
// simulated dispatch of every allocation and routing in pts, and for the
// first of them the lower bounds (busiest link, the seed's traffic /
// capacity, the senders' overheads) and the zero-load latency of the
// farthest message. Safe for concurrent use; O(len(pts)).
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
	row := make([]*plot.Plot, len(labels))
	for i, lab := range labels {
		p := plot.New()
		p.Title.Text = "q = " + lab
		if lab == "" {
			p.Title.Text = "q as given"
		}
		p.X.Label.Text = "p (ranks on a √p × √p mesh)"
		p.Y.Label.Text = "time per element generated on a rank (µs)"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		p.X.Min, p.X.Max = ticks[0].Value/1.3, ticks[len(ticks)-1].Value*1.3
		p.Add(plotter.NewGrid())
		per := func(pt hashtable.MeshPoint, ns float64) float64 { return ns / 1e3 / (float64(pt.Q) * pt.Beta) }
		series := map[string]plotter.XYs{}
		var order []string
		add := func(name string, xy plotter.XY) {
			if _, ok := series[name]; !ok {
				order = append(order, name)
			}
			series[name] = append(series[name], xy)
		}
		for _, pt := range pts {
			if pt.QLabel != lab || pt.Dispatch <= 0 {
				continue
			}
			x := float64(pt.P)
			add("dispatch, "+pt.Alloc+", "+pt.Routing, plotter.XY{X: x, Y: per(pt, pt.Dispatch)})
			if pt.Alloc+" "+pt.Routing != first {
				continue
			}
			add("bound: busiest link", plotter.XY{X: x, Y: per(pt, pt.TimeLink)})
			add("bound: seed's traffic / capacity", plotter.XY{X: x, Y: per(pt, pt.TimeCapacityPaper)})
			add("bound: sender's overheads", plotter.XY{X: x, Y: per(pt, pt.TimeSend)})
			add("zero-load latency, farthest message", plotter.XY{X: x, Y: per(pt, pt.ZeroLoadMax)})
		}
		var args []any
		for _, name := range order {
			args = append(args, name, series[name])
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return fmt.Errorf("simplot: %w", err)
		}
		p.Legend.Top = true
		p.Legend.Left = true
		p.Legend.XOffs = vg.Millimeter * 3
		row[i] = p
	}
	width, height := vg.Length(len(row))*5*vg.Inch, 5.4*vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 10, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}
	if title != "" {
		fnt := plot.DefaultFont
		fnt.Size = vg.Points(14)
		sty := draw.TextStyle{Color: color.Black, Font: fnt, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
		dc.FillText(sty, vg.Point{X: width / 2, Y: height - vg.Millimeter*2}, title)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("simplot: writing PNG: %w", err)
	}
	return nil
}
