package campaign

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/treelb/treelb/runner"
)

// Point is what the plots and the summary read from one parallel run.
type Point struct {
	Key
	// Seq is the instance's sequential time T_seq in seconds, the same for
	// every run of the instance in the world: in a real world the median
	// "seconds" of its baseline runs (SeqSpread their spread), in the
	// simulator the sequential solver's nodes × the machine's node cost
	// (virtual). NaN without a baseline.
	Seq       float64
	SeqSpread Spread
	Par       float64 // the run's time in seconds (virtual in the simulator)
	Speedup   float64 // Seq/Par; NaN without a baseline
	Nodes     float64 // the nodes the run printed
	SeqNodes  float64 // the sequential solver's nodes on the instance; NaN without a baseline
	Overhead  float64 // search overhead Nodes/SeqNodes; NaN without a baseline
	Messages  float64 // the sum of the messages.* columns; NaN without them
	Busy      float64 // busy_fraction (simulator); NaN without it
	Idle      float64 // stats.total.idle_seconds (with --stats); NaN without it
	Height    float64 // the tree height h (the Derive column); NaN without it
	// Iterations are the failing (exhaustive) iterations of an iterated
	// search (the 15-puzzle's IDA*), each with its own T_seq (from the
	// baseline's iteration of the same threshold) and time.
	Iterations []IterationPoint
	LoadBefore float64 // 1-minute load average before and after the run (NaN: unknown)
	LoadAfter  float64
	Warning    string // run_warning
	// SeqWarnings are the baseline runs behind Seq with a run_warning.
	SeqWarnings int
	Machine     string // where it ran, for titles: the simulated machine, or the host, CPU and cores
	Simulated   bool
}

// IterationPoint is one failing iteration of a run: its threshold, the
// sequential solver's time for it (as Point.Seq) and the run's.
type IterationPoint struct {
	Threshold int64
	Seq, Par  float64
}

// Iteration is one iteration of an iterated search in a run's JSON (the
// 15-puzzle's IDA*): its nodes, time and whether it failed (was exhaustive).
type Iteration struct {
	Threshold int64   `json:"threshold"`
	Nodes     int64   `json:"nodes"`
	Seconds   float64 `json:"seconds"`
	Failed    bool    `json:"failed"`
}

// checkRows checks that a run appears once in t, whose rows are keys, and
// that its times are times: a table with a row twice (two CSVs merged by
// hand) or a negative or NaN time is damaged, a *runner.UsageError (exit
// status 2). The runner asks it before its first run too: a damaged CSV
// was found only when the summary came, after the new runs.
func checkRows(t *Table, keys []Key) error {
	first := make(map[Key]int, len(keys))
	for i, k := range keys {
		if j, ok := first[k]; ok {
			return runner.Usagef("rows %d and %d are the same run (%s)", j+1, i+1, k)
		}
		first[k] = i
		for _, c := range []string{"seconds", "virtual_seconds"} {
			if t.Get(i, c) == "" {
				continue
			}
			if v, ok := t.Float(i, c); !ok || !(v >= 0) {
				return runner.Usagef("row %d (%s): %s %q is no time", i+1, k, c, t.Get(i, c))
			}
		}
	}
	return nil
}

// Derive returns a Point for every run of t that is not a sequential
// baseline, with its baseline: a real run's T_seq is the median "seconds"
// of the baseline runs of its world and instance; a simulated run's is
// the sequential solver's nodes on the instance (SeqNodes) times its
// machine's node cost (machine.node_ns), never its own nodes. height names
// the columns that may hold the tree height, comma-separated (the first a
// row has counts; a number counts for every row; "" for none).
func Derive(t *Table, height string) ([]Point, error) {
	keys, err := t.Keys()
	if err != nil {
		return nil, err
	}
	if err := checkRows(t, keys); err != nil {
		return nil, err
	}
	type wi struct{ world, instance string }
	base := map[wi][]float64{}
	baseWarned := map[wi]int{} // the baseline runs with a load warning
	type wit struct {
		world, instance string
		threshold       int64
	}
	iterSeq := map[wit][]float64{} // real: the baseline's seconds per iteration
	iterNodes := map[wit][]int64{} // the baseline's nodes per iteration
	for i, k := range keys {
		if !k.Baseline() {
			continue
		}
		if s, ok := t.Float(i, "seconds"); ok {
			base[wi{k.World, k.Instance}] = append(base[wi{k.World, k.Instance}], s)
			if t.Get(i, ColWarning) != "" {
				baseWarned[wi{k.World, k.Instance}]++
			}
		}
		its, err := iterationsOf(t, i)
		if err != nil {
			return nil, fmt.Errorf("campaign: row %d (%s): %w", i+1, k, err)
		}
		for _, it := range its {
			iterSeq[wit{k.World, k.Instance, it.Threshold}] = append(iterSeq[wit{k.World, k.Instance, it.Threshold}], it.Seconds)
			iterNodes[wit{"", k.Instance, it.Threshold}] = append(iterNodes[wit{"", k.Instance, it.Threshold}], it.Nodes)
		}
	}
	var msgCols []string
	for _, c := range t.Columns {
		if strings.HasPrefix(c, "messages.") {
			msgCols = append(msgCols, c)
		}
	}
	nan := math.NaN()
	seqNodes := map[string]float64{}
	var pts []Point
	for i, k := range keys {
		if k.Baseline() {
			continue
		}
		w, err := ParseWorld(k.World)
		if err != nil {
			return nil, err
		}
		p := Point{Key: k, Seq: nan, Par: nan, Speedup: nan, Nodes: nan, SeqNodes: nan, Overhead: nan, Messages: nan, Busy: nan,
			Idle: nan, Height: nan, LoadBefore: nan, LoadAfter: nan, Warning: t.Get(i, ColWarning), Simulated: !w.Real()}
		if _, ok := seqNodes[k.Instance]; !ok {
			seqNodes[k.Instance] = nan
			if n := SeqNodes(t, k.Instance); n > 0 {
				seqNodes[k.Instance] = float64(n)
			}
		}
		p.SeqNodes = seqNodes[k.Instance]
		if v, ok := t.Float(i, "nodes"); ok {
			p.Nodes = v
			p.Overhead = v / p.SeqNodes
		}
		ok := false
		nodeSeconds := nan
		if w.Real() {
			p.Par, ok = t.Float(i, "seconds")
			if b := base[wi{k.World, k.Instance}]; len(b) > 0 {
				p.SeqSpread = SpreadOf(b)
				p.Seq = p.SeqSpread.Median
				p.SeqWarnings = baseWarned[wi{k.World, k.Instance}]
			}
			p.Machine = realMachine(t, i, w)
		} else {
			p.Par, ok = t.Float(i, "virtual_seconds")
			if ns, ok := t.Float(i, "machine.node_ns"); ok {
				nodeSeconds = ns * 1e-9
				p.Seq = p.SeqNodes * nodeSeconds
				p.SeqSpread = SpreadOf([]float64{p.Seq})
			}
			p.Machine = "simulated " + cmp.Or(t.Get(i, "machine.name"), w.Machine, "machine")
		}
		if !ok {
			return nil, fmt.Errorf("campaign: row %d (%s): no time", i+1, k)
		}
		p.Speedup = p.Seq / p.Par
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
		if v, ok := t.Float(i, "stats.total.idle_seconds"); ok {
			p.Idle = v
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
		if v, ok := t.Float(i, ColLoadBefore); ok {
			p.LoadBefore = v
		}
		if v, ok := t.Float(i, ColLoadAfter); ok {
			p.LoadAfter = v
		}
		its, err := iterationsOf(t, i)
		if err != nil {
			return nil, fmt.Errorf("campaign: row %d (%s): %w", i+1, k, err)
		}
		for _, it := range its {
			if !it.Failed || !(it.Seconds > 0) {
				continue
			}
			seq := nan
			if w.Real() {
				seq = Median(iterSeq[wit{k.World, k.Instance, it.Threshold}])
			} else if ns := iterNodes[wit{"", k.Instance, it.Threshold}]; len(ns) > 0 {
				seq = float64(ns[0]) * nodeSeconds
			}
			if seq > 0 {
				p.Iterations = append(p.Iterations, IterationPoint{Threshold: it.Threshold, Seq: seq, Par: it.Seconds})
			}
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// iterationsOf returns the iterations of row i, none when it has none.
func iterationsOf(t *Table, i int) ([]Iteration, error) {
	it := t.Get(i, "iterations")
	if it == "" {
		return nil, nil
	}
	var out []Iteration
	if err := json.Unmarshal([]byte(it), &out); err != nil {
		return nil, fmt.Errorf("iterations: %w", err)
	}
	return out, nil
}

// realMachine describes where row i of a real world ran, from its
// provenance: the world, the host, its CPU and cores.
func realMachine(t *Table, i int, w World) string {
	host, cpu, cores := t.Get(i, "provenance.host"), t.Get(i, "provenance.cpu"), t.Get(i, "provenance.cores")
	if host == "" {
		return w.Name + " world"
	}
	s := fmt.Sprintf("%s world on %s", w.Name, host)
	if cpu != "" && cores != "" {
		s += fmt.Sprintf(" (%s, %s cores)", cpu, cores)
	}
	return s
}

// Group is the runs of one configuration (world, instance, balancer, P)
// over seeds and repeats, with the spread of their figures. Its speedup is
// the instance's T_seq over the median, the slowest and the fastest time
// (so that the median speedup is the median run's).
type Group struct {
	World, Instance, Balancer string
	NP                        int
	Runs                      int
	Seq                       Spread  // the instance's T_seq: its baseline runs (real) or the single virtual time
	SeqNodes                  float64 // the sequential solver's nodes on the instance; NaN without a baseline
	Par, Speedup, Overhead    Spread
	Messages, Busy, Idle      float64 // medians
	Height                    float64
	LoadBefore, LoadAfter     float64 // the highest of the runs
	Warnings                  int     // runs with a load warning, T_seq's baseline runs included
	Simulated                 bool
	Machine                   string
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
	type series struct{ world, instance, balancer string }
	first := map[series]int{} // the order in which the runs name each series
	for _, p := range pts {
		k := gk{p.World, p.Instance, p.Balancer, p.NP}
		if _, ok := idx[k]; !ok {
			idx[k] = len(keys)
			keys = append(keys, k)
		}
		if _, ok := first[series{k.world, k.instance, k.balancer}]; !ok {
			first[series{k.world, k.instance, k.balancer}] = len(first)
		}
		members[k] = append(members[k], p)
	}
	// Each series in the order of its first run, its P ascending (runs of
	// several jobs, or a campaign grown later, finish in any order).
	slices.SortStableFunc(keys, func(a, b gk) int {
		return cmp.Or(cmp.Compare(first[series{a.world, a.instance, a.balancer}], first[series{b.world, b.instance, b.balancer}]), cmp.Compare(a.np, b.np))
	})
	out := make([]Group, len(keys))
	for i, k := range keys {
		m := members[k]
		of := func(f func(Point) float64) []float64 {
			xs := make([]float64, len(m))
			for j, p := range m {
				xs[j] = f(p)
			}
			return xs
		}
		g := Group{World: k.world, Instance: k.instance, Balancer: k.balancer, NP: k.np, Runs: len(m), Seq: m[0].SeqSpread, SeqNodes: m[0].SeqNodes,
			Par:        SpreadOf(of(func(p Point) float64 { return p.Par })),
			Overhead:   SpreadOf(of(func(p Point) float64 { return p.Overhead })),
			Messages:   Median(of(func(p Point) float64 { return p.Messages })),
			Busy:       Median(of(func(p Point) float64 { return p.Busy })),
			Idle:       Median(of(func(p Point) float64 { return p.Idle })),
			Height:     Median(of(func(p Point) float64 { return p.Height })),
			LoadBefore: SpreadOf(of(func(p Point) float64 { return p.LoadBefore })).Max,
			LoadAfter:  SpreadOf(of(func(p Point) float64 { return p.LoadAfter })).Max,
			Simulated:  m[0].Simulated, Machine: m[0].Machine}
		// Every run's speedup is the instance's T_seq over its time: the
		// median speedup is that of the median time, the extremes those of
		// the extreme times.
		seq := m[0].Seq
		g.Speedup = Spread{N: g.Par.N, Median: seq / g.Par.Median, Min: seq / g.Par.Max, Max: seq / g.Par.Min}
		if g.Par.N == 0 || math.IsNaN(seq) {
			g.Speedup = SpreadOf(nil)
		}
		g.Warnings = m[0].SeqWarnings // a disturbed T_seq moves every speedup of the group
		for _, p := range m {
			if p.Warning != "" {
				g.Warnings++
			}
		}
		out[i] = g
	}
	return out
}

// Summarize writes a Markdown table of the groups: T_seq (the median and
// spread of the baseline runs in a real world), T_par (median, min–max
// over the runs) and the speedup (T_seq over them), efficiency (median speedup / P), search
// overhead (nodes / sequential nodes), busy fraction, idle seconds,
// messages per rank and, where the height is known, messages/(h·P); for
// real worlds the highest load average before and after a run and how
// many runs had a load warning.
func Summarize(w io.Writer, gs []Group) error {
	f := func(v float64, format string) string {
		if math.IsNaN(v) {
			return ""
		}
		return fmt.Sprintf(format, v)
	}
	var b strings.Builder
	b.WriteString("| world | instance | balancer | P | runs | T_seq s | T_par s | speedup | efficiency | search overhead | busy | idle s | messages/rank | h | messages/(h·P) | load before, after | load warnings |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, g := range gs {
		p := float64(g.NP)
		load, warn := "", ""
		if !g.Simulated {
			load = f(g.LoadBefore, "%.2f") + ", " + f(g.LoadAfter, "%.2f")
			warn = strconv.Itoa(g.Warnings)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			g.World, g.Instance, g.Balancer, g.NP, g.Runs, g.Seq.Format("%.4g"), g.Par.Format("%.4g"), g.Speedup.Format("%.3g"),
			f(g.Speedup.Median/p, "%.3f"), g.Overhead.Format("%.3g"), f(g.Busy, "%.3f"), f(g.Idle, "%.3f"), f(g.Messages/p, "%.1f"),
			f(g.Height, "%g"), f(g.Messages/(g.Height*p), "%.2f"), load, warn)
	}
	// What T_seq is measured as, by the kinds of world the table holds: a
	// real and a simulated one side by side printed times of two kinds in
	// one column, unnamed.
	var real, sim bool
	for _, g := range gs {
		real, sim = real || !g.Simulated, sim || g.Simulated
	}
	b.WriteString("\n")
	if real {
		b.WriteString("T_seq (real worlds): the median wall time of the sequential solver's runs (`--balancer seq`) of that world and instance; T_par the median of the runs'.\n")
	}
	if sim {
		b.WriteString("T_seq (simulated worlds): the sequential solver's nodes × the machine's node cost, virtual seconds, as T_par is.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SummaryColumns are the columns of WriteSummary's CSV before the
// provenance.
func SummaryColumns() []string {
	return []string{"world", "instance", "balancer", "np", "runs", "t_seq_median", "t_seq_min", "t_seq_max", "t_seq_runs",
		"t_par_median", "t_par_min", "t_par_max", "speedup_median", "speedup_min", "speedup_max", "efficiency",
		"search_overhead_median", "search_overhead_min", "search_overhead_max", "busy_fraction", "idle_seconds",
		"messages_per_rank", "height", "load_before_max", "load_after_max", "load_warnings"}
}

// WriteSummary writes the groups to a CSV file at path: a row per group
// with the columns of SummaryColumns, then the provenance columns of the
// campaign's table (provenance.*), each the distinct values of the group's
// runs joined by "; ".
func WriteSummary(path string, t *Table, gs []Group) error {
	var prov []string
	for _, c := range t.Columns {
		if strings.HasPrefix(c, "provenance.") {
			prov = append(prov, c)
		}
	}
	keys, err := t.Keys()
	if err != nil {
		return err
	}
	type gk struct {
		world, instance, balancer string
		np                        int
	}
	rows := map[gk][]int{}
	for i, k := range keys {
		rows[gk{k.World, k.Instance, k.Balancer, k.NP}] = append(rows[gk{k.World, k.Instance, k.Balancer, k.NP}], i)
	}
	num := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	var out [][]string
	out = append(out, append(SummaryColumns(), prov...))
	for _, g := range gs {
		rec := []string{g.World, g.Instance, g.Balancer, strconv.Itoa(g.NP), strconv.Itoa(g.Runs),
			num(g.Seq.Median), num(g.Seq.Min), num(g.Seq.Max), strconv.Itoa(g.Seq.N),
			num(g.Par.Median), num(g.Par.Min), num(g.Par.Max), num(g.Speedup.Median), num(g.Speedup.Min), num(g.Speedup.Max),
			num(g.Speedup.Median / float64(g.NP)), num(g.Overhead.Median), num(g.Overhead.Min), num(g.Overhead.Max),
			num(g.Busy), num(g.Idle), num(g.Messages / float64(g.NP)), num(g.Height), "", "", ""}
		if !g.Simulated { // the load is a real run's condition: a simulated one's time does not depend on it
			n := len(rec)
			rec[n-3], rec[n-2], rec[n-1] = num(g.LoadBefore), num(g.LoadAfter), strconv.Itoa(g.Warnings)
		}
		for _, c := range prov {
			var vals []string
			for _, i := range rows[gk{g.World, g.Instance, g.Balancer, g.NP}] {
				vals = addNew(vals, t.Get(i, c))
			}
			rec = append(rec, strings.Join(vals, "; "))
		}
		out = append(out, rec)
	}
	if err := writeFile(path, func(f io.Writer) error { return csv.NewWriter(f).WriteAll(out) }); err != nil {
		return err
	}
	return nil
}

// SummarizeBySize writes, per world, balancer and P, a Markdown table of
// the instances by decade of their sequential time (seed 002 Figs. 3 and
// 4 read speedup against it): the instances, the median speedup, the
// collective speedup ΣT_seq/ΣT_par over the instances (medians of each),
// and the median search overhead; and the same for the failing
// iterations of iterated searches when there are any.
func SummarizeBySize(w io.Writer, pts []Point) error {
	type cfg struct {
		world, balancer string
		np              int
	}
	type cell struct{ seq, par, overhead float64 }
	var order []cfg
	inst := map[cfg][]cell{}
	iters := map[cfg][]cell{}
	for _, g := range Groups(pts) {
		c := cfg{g.World, g.Balancer, g.NP}
		if _, ok := inst[c]; !ok {
			order = append(order, c)
		}
		if g.Seq.Median > 0 && g.Par.Median > 0 {
			inst[c] = append(inst[c], cell{g.Seq.Median, g.Par.Median, g.Overhead.Median})
		} else if _, ok := inst[c]; !ok {
			inst[c] = nil
		}
	}
	// Iterations: the median time of each (instance, threshold) over the
	// configuration's runs.
	type ik struct {
		c         cfg
		instance  string
		threshold int64
	}
	itPar := map[ik][]float64{}
	itSeq := map[ik]float64{}
	var itOrder []ik
	for _, p := range pts {
		for _, it := range p.Iterations {
			k := ik{cfg{p.World, p.Balancer, p.NP}, p.Instance, it.Threshold}
			if _, ok := itSeq[k]; !ok {
				itOrder = append(itOrder, k)
			}
			itSeq[k] = it.Seq
			itPar[k] = append(itPar[k], it.Par)
		}
	}
	for _, k := range itOrder {
		iters[k.c] = append(iters[k.c], cell{itSeq[k], Median(itPar[k]), math.NaN()})
	}
	table := func(title string, cells map[cfg][]cell) {
		any := false
		for _, c := range order {
			any = any || len(cells[c]) > 0
		}
		if !any {
			return
		}
		fmt.Fprintf(w, "\n%s\n\n| world | balancer | P | T_seq | n | median speedup | ΣT_seq/ΣT_par | median search overhead |\n|---|---|---:|---|---:|---:|---:|---:|\n", title)
		for _, c := range order {
			cs := cells[c]
			if len(cs) == 0 {
				continue
			}
			lo := math.Floor(math.Log10(slices.MinFunc(cs, func(a, b cell) int { return cmp.Compare(a.seq, b.seq) }).seq))
			hi := math.Floor(math.Log10(slices.MaxFunc(cs, func(a, b cell) int { return cmp.Compare(a.seq, b.seq) }).seq))
			line := func(label string, sel []cell) {
				if len(sel) == 0 {
					return
				}
				var sp, ov []float64
				var ts, tp float64
				for _, x := range sel {
					sp, ov = append(sp, x.seq/x.par), append(ov, x.overhead)
					ts, tp = ts+x.seq, tp+x.par
				}
				o := Median(ov)
				os := ""
				if !math.IsNaN(o) {
					os = fmt.Sprintf("%.3g", o)
				}
				fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %.3g | %.3g | %s |\n", c.world, c.balancer, c.np, label, len(sel), Median(sp), ts/tp, os)
			}
			for e := lo; e <= hi; e++ {
				var sel []cell
				for _, x := range cs {
					if math.Floor(math.Log10(x.seq)) == e {
						sel = append(sel, x)
					}
				}
				line(Seconds(math.Pow(10, e))+" – "+Seconds(math.Pow(10, e+1)), sel)
			}
			line("all", cs)
		}
	}
	table("By sequential time of the instance:", inst)
	table("By sequential time of the failing iteration:", iters)
	return nil
}

// Seconds formats a time in seconds with a unit a reader reads: µs, ms or
// s, thousands grouped ("1 000 s"), no exponent.
func Seconds(v float64) string {
	switch {
	case v == 0:
		return "0 s"
	case v < 1e-3:
		return Number(v*1e6) + " µs"
	case v < 1:
		return Number(v*1e3) + " ms"
	}
	return Number(v) + " s"
}

// addNew appends v to s unless s holds it already: the distinct values in
// the order first met.
func addNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
