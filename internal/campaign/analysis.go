package campaign

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/treelb/treelb/internal/benchutil"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Point is what the plots and the summary read from one parallel run.
type Point struct {
	Key
	Seq, Par    float64 // sequential and parallel time in seconds (virtual in the simulator)
	Speedup     float64 // Seq/Par; NaN without a baseline
	Messages    float64 // the sum of the messages.* columns; NaN without them
	Busy        float64 // busy_fraction; NaN without it
	Height      float64 // the tree height h (the Derive column); NaN without it
	Iterations  []Iteration
	NodeSeconds float64 // sim: seconds per node (machine.node_ns); NaN otherwise
}

// Iteration is one iteration of an iterated search in a run's JSON (the
// 15-puzzle's IDA*): its nodes, time and whether it failed (was exhaustive).
type Iteration struct {
	Threshold int64   `json:"threshold"`
	Nodes     int64   `json:"nodes"`
	Seconds   float64 `json:"seconds"`
	Failed    bool    `json:"failed"`
}

// Derive returns a Point for every run of t that is not a sequential
// baseline. A simulated run's times and speedup are its own
// (seq_virtual_seconds, virtual_seconds); a real run's sequential time is
// the median "seconds" of the baseline runs of its world and instance.
// height names the columns that may hold the tree height, comma-separated
// (the first a row has counts; a number counts for every row; "" for
// none).
func Derive(t *Table, height string) ([]Point, error) {
	keys, err := t.Keys()
	if err != nil {
		return nil, err
	}
	type wi struct{ world, instance string }
	base := map[wi][]float64{}
	for i, k := range keys {
		if k.Baseline() {
			if s, ok := t.Float(i, "seconds"); ok {
				base[wi{k.World, k.Instance}] = append(base[wi{k.World, k.Instance}], s)
			}
		}
	}
	var msgCols []string
	for _, c := range t.Columns {
		if strings.HasPrefix(c, "messages.") {
			msgCols = append(msgCols, c)
		}
	}
	nan := math.NaN()
	var pts []Point
	for i, k := range keys {
		if k.Baseline() {
			continue
		}
		p := Point{Key: k, Seq: nan, Par: nan, Speedup: nan, Messages: nan, Busy: nan, Height: nan, NodeSeconds: nan}
		w, err := ParseWorld(k.World)
		if err != nil {
			return nil, err
		}
		ok := false
		if w.Real() {
			p.Par, ok = t.Float(i, "seconds")
			if b := base[wi{k.World, k.Instance}]; ok && len(b) > 0 {
				p.Seq = benchutil.Median(b)
				p.Speedup = p.Seq / p.Par
			}
		} else {
			p.Seq, _ = t.Float(i, "seq_virtual_seconds")
			p.Par, ok = t.Float(i, "virtual_seconds")
			p.Speedup = p.Seq / p.Par
			if ns, ok := t.Float(i, "machine.node_ns"); ok {
				p.NodeSeconds = ns * 1e-9
			}
		}
		if !ok {
			return nil, fmt.Errorf("campaign: row %d (%s): no time", i+1, k)
		}
		for _, c := range msgCols {
			if v, ok := t.Float(i, c); ok {
				if math.IsNaN(p.Messages) {
					p.Messages = 0
				}
				p.Messages += v
			}
		}
		if v, ok := t.Float(i, "busy_fraction"); ok {
			p.Busy = v
		}
		for _, h := range strings.Split(height, ",") {
			if v, err := strconv.ParseFloat(h, 64); err == nil {
				p.Height = v
			} else if v, ok := t.Float(i, h); ok {
				p.Height = v
			}
			if !math.IsNaN(p.Height) {
				break
			}
		}
		if it := t.Get(i, "iterations"); it != "" {
			if err := json.Unmarshal([]byte(it), &p.Iterations); err != nil {
				return nil, fmt.Errorf("campaign: row %d (%s): iterations: %w", i+1, k, err)
			}
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// Group is the runs of one configuration (world, instance, balancer, P)
// over seeds and repeats, with the medians of their figures.
type Group struct {
	World, Instance, Balancer string
	NP                        int
	Runs                      int
	Seq, Par, Speedup         float64
	Messages, Busy, Height    float64
}

// Groups returns the groups of pts in the order of their first run.
func Groups(pts []Point) []Group {
	type gk struct {
		world, instance, balancer string
		np                        int
	}
	idx := map[gk]int{}
	var keys []gk
	members := map[gk][]Point{}
	for _, p := range pts {
		k := gk{p.World, p.Instance, p.Balancer, p.NP}
		if _, ok := idx[k]; !ok {
			idx[k] = len(keys)
			keys = append(keys, k)
		}
		members[k] = append(members[k], p)
	}
	out := make([]Group, len(keys))
	for i, k := range keys {
		m := members[k]
		med := func(f func(Point) float64) float64 {
			var xs []float64
			for _, p := range m {
				if v := f(p); !math.IsNaN(v) {
					xs = append(xs, v)
				}
			}
			return benchutil.Median(xs)
		}
		out[i] = Group{World: k.world, Instance: k.instance, Balancer: k.balancer, NP: k.np, Runs: len(m),
			Seq:      med(func(p Point) float64 { return p.Seq }),
			Par:      med(func(p Point) float64 { return p.Par }),
			Speedup:  med(func(p Point) float64 { return p.Speedup }),
			Messages: med(func(p Point) float64 { return p.Messages }),
			Busy:     med(func(p Point) float64 { return p.Busy }),
			Height:   med(func(p Point) float64 { return p.Height })}
	}
	return out
}

// Summarize writes a Markdown table of the groups: medians of the
// sequential and parallel times, speedup, efficiency, busy fraction,
// messages per rank and, where the height is known, messages/(h·P).
func Summarize(w io.Writer, gs []Group) error {
	f := func(v float64, format string) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf(format, v)
	}
	var b strings.Builder
	b.WriteString("| world | instance | balancer | P | runs | T_seq s | T_par s | speedup | efficiency | busy | messages/rank | h | messages/(h·P) |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, g := range gs {
		p := float64(g.NP)
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			g.World, g.Instance, g.Balancer, g.NP, g.Runs, f(g.Seq, "%.4g"), f(g.Par, "%.4g"), f(g.Speedup, "%.1f"),
			f(g.Speedup/p, "%.3f"), f(g.Busy, "%.3f"), f(g.Messages/p, "%.1f"), f(g.Height, "%g"),
			f(g.Messages/(g.Height*p), "%.2f"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sortedBy returns xs sorted by key, stably.
func sortedBy[T any, K cmp.Ordered](xs []T, key func(T) K) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return out
}
