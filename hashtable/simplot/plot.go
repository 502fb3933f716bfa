// Package simplot draws seed 004's Figure 1 from the points of the
// hashtable package's counting model: the load balance factor η against p
// for q ∈ {1, lg p, lg² p, lg³ p}, one panel per load W ∈ {X, XY, X^(2)}.
// It is separate from hashtable so that the table itself does not depend on
// a plotting library.
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

// Fig1PNG writes a PNG of Fig. 1 drawn from pts (as returned by
// hashtable.Simulate on hashtable.Fig1Configs), with the values the seed's
// text states marked as crosses. Safe for concurrent use; O(len(pts)).
func Fig1PNG(w io.Writer, pts []hashtable.SimPoint, title string) error {
	loads := []struct{ w, name string }{{"X", "(a) W = X"}, {"XY", "(b) W = XY"}, {"X2", "(c) W = X^(2)"}}
	labels := []string{"1", "lg p", "lg^2 p", "lg^3 p"}
	var ticks []plot.Tick
	for _, pt := range pts {
		if pt.Q == 1 && pt.W == "X" {
			ticks = append(ticks, plot.Tick{Value: float64(pt.P), Label: strconv.Itoa(pt.P)})
		}
	}
	if len(ticks) == 0 {
		return fmt.Errorf("simplot: no points with q = 1")
	}
	row := make([]*plot.Plot, len(loads))
	for i, l := range loads {
		p := plot.New()
		p.Title.Text = l.name
		p.X.Label.Text = "p (processors)"
		p.Y.Label.Text = "load balance factor η"
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = ticks[0].Value/1.3, ticks[len(ticks)-1].Value*1.3
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(plotter.NewGrid())
		var args []any
		for _, lab := range labels {
			var xys plotter.XYs
			for _, pt := range pts {
				if pt.W == l.w && pt.QLabel == lab {
					xys = append(xys, plotter.XY{X: float64(pt.P), Y: pt.Eta})
				}
			}
			if len(xys) > 0 {
				args = append(args, "q = "+lab, xys)
			}
		}
		if err := plotutil.AddLinePoints(p, args...); err != nil {
			return fmt.Errorf("simplot: %w", err)
		}
		var seed plotter.XYs
		for _, s := range hashtable.SeedFig1() {
			if s.W.String() == l.w {
				seed = append(seed, plotter.XY{X: float64(s.P), Y: s.Eta})
			}
		}
		if len(seed) > 0 {
			sc, err := plotter.NewScatter(seed)
			if err != nil {
				return fmt.Errorf("simplot: %w", err)
			}
			sc.GlyphStyle.Shape = draw.CrossGlyph{}
			sc.GlyphStyle.Radius = vg.Points(5)
			p.Add(sc)
			p.Legend.Add("seed's text", sc)
		}
		p.Legend.Top = false
		p.Legend.Left = true
		p.Legend.XOffs = vg.Millimeter * 3
		row[i] = p
	}
	return writeTiles(w, [][]*plot.Plot{row}, 15*vg.Inch, 5.4*vg.Inch, title)
}

// writeTiles draws the plots as a grid of tiles (rows of equal length) on a
// PNG of the size given, with the title, if any, above them, and writes it
// to w.
func writeTiles(w io.Writer, rows [][]*plot.Plot, width, height vg.Length, title string) error {
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(rows), Cols: len(rows[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 10, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align(rows, tiles, dc)
	for r, row := range rows {
		for i, p := range row {
			p.Draw(canvases[r][i])
		}
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
