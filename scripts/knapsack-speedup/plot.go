package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"github.com/treelb/treelb/internal/campaign"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// plotFig4 writes a PNG of two log-log panels against the sequential CPU
// time: (a) the speedup, as seed 002's Fig. 4, with lines at 1 and P;
// (b) the nodes of the parallel search over the sequential one's, with a
// line at 1.
func plotFig4(w io.Writer, rows []row, title string) error {
	p := float64(rows[0].ranks)
	lo, hi := math.Inf(1), math.Inf(-1)
	var speed, work, nodes plotter.XYs
	for _, r := range rows {
		x := r.seqTime()
		lo, hi = min(lo, x), max(hi, x)
		speed = append(speed, plotter.XY{X: x, Y: r.speedup})
		if !math.IsNaN(r.tWork) {
			work = append(work, plotter.XY{X: x, Y: r.tSeq / r.tWork})
		}
		nodes = append(nodes, plotter.XY{X: x, Y: r.nodeRatio})
	}
	lo, hi = lo/1.5, hi*1.5
	gray := color.Gray{Y: 96}
	type level struct {
		label string
		y     float64
		color color.Color
	}
	// panel plots pts as filled dots and, if any, alt as rings.
	panel := func(name, ylabel string, pts, alt plotter.XYs, altLabel string, lines []level) (*plot.Plot, error) {
		pl := plot.New()
		pl.Title.Text = name
		pl.X.Label.Text = "sequential time T_seq (CPU seconds)"
		if rows[0].simulated() {
			pl.X.Label.Text = "sequential time T_seq (virtual seconds: nodes × the machine's node cost)"
		}
		pl.Y.Label.Text = ylabel
		pl.X.Scale, pl.Y.Scale = plot.LogScale{}, plot.LogScale{}
		pl.X.Tick.Marker, pl.Y.Tick.Marker = plot.LogTicks{Prec: -1}, campaign.Steps125{}
		pl.X.Min, pl.X.Max = lo, hi
		ymin, ymax := 1.0, 1.0
		for _, l := range lines {
			ymin, ymax = min(ymin, l.y), max(ymax, l.y)
		}
		for _, pt := range append(slices.Clone(pts), alt...) {
			ymin, ymax = min(ymin, pt.Y), max(ymax, pt.Y)
		}
		pl.Y.Min, pl.Y.Max = ymin/1.5, ymax*1.5
		pl.Add(plotter.NewGrid())
		for _, lv := range lines {
			l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lv.y}, {X: hi, Y: lv.y}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes = lv.color, []vg.Length{vg.Points(4), vg.Points(3)}
			pl.Add(l)
			pl.Legend.Add(lv.label, l)
		}
		series := []struct {
			pts   plotter.XYs
			label string
			shape draw.GlyphDrawer
			color color.Color
		}{{pts, "instance (medians)", draw.CircleGlyph{}, color.RGBA{R: 31, G: 90, B: 180, A: 255}},
			{alt, altLabel, draw.RingGlyph{}, color.RGBA{R: 230, G: 120, B: 20, A: 255}}}
		for _, sr := range series {
			if len(sr.pts) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(sr.pts)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle.Shape, sc.GlyphStyle.Radius, sc.GlyphStyle.Color = sr.shape, vg.Points(2.5), sr.color
			pl.Add(sc)
			pl.Legend.Add(sr.label, sc)
		}
		pl.Legend.Top, pl.Legend.Left = true, true
		pl.Legend.XOffs = vg.Millimeter * 2
		return pl, nil
	}
	a, err := panel(fmt.Sprintf("(a) speedup on P = %d", int(p)), "speedup t_seq / t_par", speed, work,
		"up to the last node (no termination, no reduction)",
		[]level{{fmt.Sprintf("speedup %d (linear)", int(p)), p, color.RGBA{R: 200, A: 255}}, {"speedup 1", 1, gray}})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	b, err := panel("(b) nodes searched, parallel / sequential", "nodes par / seq", nodes, nil, "", []level{{"same nodes", 1, gray}})
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	row := []*plot.Plot{a, b}
	const width, height = 13 * vg.Inch, 5.6 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(row), PadX: vg.Millimeter * 6, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 10, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, dc)
	for i, pl := range row {
		pl.Draw(canvases[0][i])
	}
	fnt := plot.DefaultFont
	fnt.Size = vg.Points(13)
	sty := draw.TextStyle{Color: color.Black, Font: fnt, Handler: plot.DefaultTextHandler, XAlign: draw.XCenter, YAlign: draw.YTop}
	dc.FillText(sty, vg.Point{X: width / 2, Y: height - vg.Millimeter*2}, title)
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w); err != nil {
		return fmt.Errorf("plot: writing PNG: %w", err)
	}
	return nil
}
