// Command speedup measures the speedup of the 15-puzzle's failing IDA*
// iterations, each taken as a test instance of its own, as in seed 002
// Fig. 3: for every failing iteration of the chosen Korf instances it times
// the sequential search (puzzle.Iterate, the best sequential solver) and the
// parallel search on P ranks of the world under each balancer configuration,
// alternating them, several times, and records the medians in CSV. It then
// prints a summary per configuration and size bucket: the collective speedup
// Σ t_seq / Σ t_par (seed 004 §3), the median per-iteration speedup, and the
// effect of fast initialisation (rp against rp+fast-init, paired by
// iteration).
//
// It is started by scripts/fifteen-speedup; run it with -h for its flags.
// The parallel time t_par is the wall time of parallel.RunIteration on rank
// 0: the balanced search with its barrier before and the reduction of the
// result and statistics after, as a user of the iteration pays it; t_search
// is the search alone (lb.Outcome.Seconds). Timings are as noisy as the
// machine; compare configurations only within one run.
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/treelb/treelb/apps/fifteen/parallel"
	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// config is one parallel configuration: a balancer and its options.
type config struct {
	label string // "rp", "rp+fast-init"
	name  string
	info  lb.Info
	opt   lb.Options
	fast  bool // with fast initialisation
}

// iteration is one failing iteration, a test instance.
type iteration struct {
	korf      int
	index     int // 0 for the first iteration of the instance
	threshold int
	nodes     int64
}

// row is the measurement of one iteration under one configuration.
type row struct {
	it      iteration
	cfg     string
	tSeq    float64 // median seconds
	tPar    float64 // median seconds
	tSearch float64 // median seconds
	reps    int
	load    string  // the 1-minute load average after the measurement
	other   float64 // cores used by other processes during the measurement, NaN if unknown
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "speedup:", err)
		os.Exit(1)
	}
}

func run(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("speedup", flag.ContinueOnError)
	ids := fs.String("korf", "12,42,19,47,9,48,30,31,28,45,5,13,20,6,4,25,11,1,7,14", "Korf instances, comma-separated (ranges A-B allowed); the default spans 0.5 M to 1.4 G nodes")
	data := fs.String("data", "", "Korf's table (default: the built-in one)")
	np := fs.Int("np", 2, "ranks (embedded world: goroutines; under mpirun: 0 for mpirun's size)")
	cfgs := fs.String("balancers", "rp,rp+fast-init,rp-local", "configurations, comma-separated: NAME or NAME+fast-init, NAME a balancer of lb.Names()")
	reps := fs.Int("reps", 3, "runs per iteration and configuration for iterations of 1e6 nodes or more; smaller ones get more (median taken)")
	budget := fs.Int64("budget", 100000, "nodes per work slice (Δt); the default is the fifteen command's")
	maxSeconds := fs.Float64("max-seconds", 240, "start no new instance after this many seconds")
	out := fs.String("out", "out/fifteen-speedup.csv", "CSV output file")
	seed := fs.Uint64("seed", 1, "seed of the ranks' random sources")
	sim := fs.Int("sim", 0, "instead of the world, simulate `P` ranks (sim.New) in virtual time (seeds 1..reps)")
	nodeCost := fs.Int64("node-cost", 3, "with -sim: virtual ns per node (the solver does about 2.7)")
	maxOther := fs.Float64("max-other", 0.15, "measure an iteration again when other processes used more than this many cores meanwhile (judged on iterations of 0.2 s or more, or from the instance's start)")
	retries := fs.Int("retries", 5, "measurements again per iteration at most, after pauses of 3 s doubling up to a minute")
	if err := fs.Parse(args); err != nil {
		return err
	}
	configs, err := parseConfigs(*cfgs)
	if err != nil {
		return err
	}
	table, err := puzzle.Korf100()
	if *data != "" {
		table, err = puzzle.LoadKorf(*data)
	}
	if err != nil {
		return err
	}
	chosen, err := pick(table, *ids)
	if err != nil {
		return err
	}
	if *reps < 1 {
		return fmt.Errorf("-reps %d: need at least 1", *reps)
	}
	// The failing iterations of each instance, found sequentially before the
	// world starts (in every process under mpirun).
	var its [][]iteration
	for _, in := range chosen {
		r, err := puzzle.Solve(in.State)
		if err != nil {
			return fmt.Errorf("korf %d: %w", in.ID, err)
		}
		if r.Length != in.Optimal {
			return fmt.Errorf("korf %d: length %d, table %d", in.ID, r.Length, in.Optimal)
		}
		var list []iteration
		for i, st := range r.Iterations {
			if !st.Solved {
				list = append(list, iteration{korf: in.ID, index: i, threshold: st.Threshold, nodes: st.Nodes})
			}
		}
		its = append(its, list)
	}
	loadStart := loadavg()
	start := time.Now()
	var rows []row
	var ranks int
	cfg := lb.Config{Budget: *budget, Seed: *seed}
	// each calls f for every instance until the time budget is used; f
	// returns the rows to record (none on ranks other than 0).
	each := func(rank int, f func(in puzzle.Instance, its []iteration) ([]row, error), stop func(bool) (bool, error)) error {
		var cw *csv.Writer
		if rank == 0 {
			f, err := createCSV(*out)
			if err != nil {
				return err
			}
			defer f.Close()
			cw = csv.NewWriter(f)
			defer cw.Flush()
			if err := cw.Write(csvHeader()); err != nil {
				return err
			}
		}
		for k, in := range chosen {
			done, err := stop(rank == 0 && k > 0 && time.Since(start).Seconds() > *maxSeconds)
			if err != nil {
				return err
			}
			if done {
				if rank == 0 {
					fmt.Fprintf(w, "# time budget of %.0f s used: stopped before korf %d\n", *maxSeconds, in.ID)
				}
				return nil
			}
			rs, err := f(in, its[k])
			if err != nil {
				return err
			}
			for _, r := range rs {
				if err := cw.Write(r.record()); err != nil {
					return err
				}
			}
			if rank == 0 {
				cw.Flush()
				if err := cw.Error(); err != nil {
					return fmt.Errorf("writing %s: %w", *out, err)
				}
			}
			rows = append(rows, rs...)
		}
		return nil
	}
	world := mpi.WorldName
	if *sim > 0 {
		ranks, world = *sim, fmt.Sprintf("simulated (sim.New: %d ns per node, the test network's latency and jitter)", *nodeCost)
		err = each(0, func(in puzzle.Instance, its []iteration) ([]row, error) {
			var rs []row
			for _, it := range its {
				r, err := simulate(in.State, it, configs, *sim, *reps, *budget, *nodeCost)
				if err != nil {
					return nil, fmt.Errorf("korf %d threshold %d: %w", it.korf, it.threshold, err)
				}
				rs = append(rs, r...)
			}
			return rs, nil
		}, func(stop bool) (bool, error) { return stop, nil })
	} else {
		err = mpi.Run(*np, func(c *mpi.Comm) error {
			if c.Rank() == 0 {
				ranks = c.Size()
			}
			return each(c.Rank(), func(in puzzle.Instance, its []iteration) ([]row, error) {
				var rs []row
				cpu0 := sampleCPU()
				for _, it := range its {
					for attempt := 1; ; attempt++ {
						t0 := sampleCPU()
						r, err := measure(c, in.State, it, configs, repsFor(it.nodes, *reps), cfg)
						if err != nil {
							return nil, fmt.Errorf("korf %d threshold %d: %w", it.korf, it.threshold, err)
						}
						// Others' share over this iteration when it lasted long
						// enough to tell, else from the start of the instance.
						now := sampleCPU()
						other := now.otherSince(t0)
						if math.IsNaN(other) {
							other = now.otherSince(cpu0)
						}
						again := []byte{0}
						if c.Rank() == 0 && other > *maxOther && attempt <= *retries {
							again[0] = 1
							fmt.Fprintf(w, "# korf %d threshold %d: other processes used %.2f cores; measuring again in %v (%d/%d)\n",
								it.korf, it.threshold, other, retryPause(attempt), attempt, *retries)
						}
						if err := c.Bcast(again, 0); err != nil {
							return nil, err
						}
						if again[0] == 1 {
							time.Sleep(retryPause(attempt))
							cpu0 = sampleCPU() // judge short iterations afresh
							continue
						}
						if c.Rank() == 0 {
							for j := range r {
								r[j].other = other
							}
							rs = append(rs, r...)
						}
						break
					}
				}
				return rs, nil
			}, func(stop bool) (bool, error) {
				b := []byte{0}
				if stop {
					b[0] = 1
				}
				err := c.Bcast(b, 0)
				return b[0] == 1, err
			})
		})
	}
	if err != nil {
		return err
	}
	if rows == nil {
		return nil // not rank 0 of an MPI run
	}
	fmt.Fprintf(w, "# fifteen speedup: P=%d, world %s, budget %d nodes, %d failing iterations of %d instances, %.0f s\n",
		ranks, world, *budget, len(rows)/len(configs), countInstances(rows), time.Since(start).Seconds())
	fmt.Fprintf(w, "# load average at start: %s; at end: %s; highest 1-minute load after an iteration: %s\n", loadStart, loadavg(), maxLoad(rows))
	if *sim == 0 {
		top, over := othersShare(rows, 0.2)
		fmt.Fprintf(w, "# other processes used up to %.2f cores during a measurement; %d of %d rows above 0.2 (column other_cpu)\n", top, over, len(rows))
	}
	fmt.Fprintf(w, "# CSV: %s\n", *out)
	summarize(w, rows, configs)
	return nil
}

// simulate runs one iteration on p simulated ranks under each configuration
// with seeds 1..reps and returns the medians of the virtual times; the
// sequential time is nodes × nodeCost.
func simulate(s puzzle.State, it iteration, configs []config, p, reps int, budget, nodeCost int64) ([]row, error) {
	rows := make([]row, len(configs))
	for j, cf := range configs {
		ts := make([]float64, 0, reps)
		for seed := range uint64(reps) {
			m := lb.TestNetwork()
			m.NodeNS = float64(nodeCost)
			w, err := sim.New(p, sim.Config{Seed: seed + 1, Machine: m})
			if err != nil {
				return nil, err
			}
			o, out, err := parallel.RunIteration(w, s, it.threshold, lb.Config{Balancer: cf.info.New, Options: cf.opt, Budget: budget})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", cf.label, err)
			}
			if o.Found || o.Nodes != it.nodes {
				return nil, fmt.Errorf("%s: %d nodes, found %v; sequential %d nodes", cf.label, o.Nodes, o.Found, it.nodes)
			}
			ts = append(ts, out.Seconds)
		}
		t := median(ts)
		rows[j] = row{it: it, cfg: cf.label, tSeq: float64(it.nodes*nodeCost) / 1e9, tPar: t, tSearch: t, reps: reps, load: "virtual", other: math.NaN()}
	}
	return rows, nil
}

// retryPause returns the wait before measuring a disturbed iteration again
// for the attempt-th time: 3 s, doubling up to a minute.
func retryPause(attempt int) time.Duration {
	return min(3*time.Second<<min(attempt-1, 5), time.Minute)
}

// csvHeader returns the CSV's first line.
func csvHeader() []string {
	return []string{"instance", "iteration", "threshold", "nodes", "t_seq", "t_par", "speedup", "balancer", "t_search", "reps", "load", "other_cpu"}
}

// createCSV creates the output file and its directory.
func createCSV(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return os.Create(path)
}

// parseConfigs parses NAME[+fast-init],...
func parseConfigs(s string) ([]config, error) {
	var out []config
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		name, opt, fast := strings.Cut(f, "+")
		if fast && opt != "fast-init" {
			return nil, fmt.Errorf("-balancers: %q: the only option is +fast-init", f)
		}
		info, err := lb.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("-balancers: %w", err)
		}
		o := info.Options
		if fast {
			if o, err = lb.SetOption(o, "fast-init", "true"); err != nil {
				return nil, fmt.Errorf("-balancers: %q: %w", f, err)
			}
		}
		out = append(out, config{label: f, name: name, info: info, opt: o, fast: fast})
	}
	return out, nil
}

// pick returns the instances named by a list of ids and ranges.
func pick(table []puzzle.Instance, list string) ([]puzzle.Instance, error) {
	var out []puzzle.Instance
	for _, f := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(f), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 1 || b > len(table) || a > b {
			return nil, fmt.Errorf("-korf %q: need ids 1..%d", f, len(table))
		}
		for id := a; id <= b; id++ {
			out = append(out, table[id-1])
		}
	}
	return out, nil
}

// repsFor returns the runs per configuration of an iteration: base for a
// million nodes or more, more for smaller ones, whose times are short and
// noisier.
func repsFor(nodes int64, base int) int {
	switch {
	case nodes < 1e5:
		return max(base, 15)
	case nodes < 1e6:
		return max(base, 7)
	}
	return base
}

// measure times one iteration reps times sequentially (on rank 0, the other
// ranks waiting in a barrier) and under each configuration, rotating their
// order from one repetition to the next, and returns the medians (on rank
// 0; other ranks get rows with times of their own). It is collective.
func measure(c *mpi.Comm, s puzzle.State, it iteration, configs []config, reps int, cfg lb.Config) ([]row, error) {
	seq := make([]float64, 0, reps)
	par := make([][]float64, len(configs))
	search := make([][]float64, len(configs))
	for rep := range reps {
		for k := range len(configs) + 1 {
			j := (k+rep)%(len(configs)+1) - 1 // -1: sequential
			if err := c.Barrier(); err != nil {
				return nil, err
			}
			if j < 0 {
				if c.Rank() == 0 {
					t, err := timeSequential(s, it)
					if err != nil {
						return nil, err
					}
					seq = append(seq, t)
				}
				continue
			}
			t0 := time.Now()
			cfg.Balancer, cfg.Options = configs[j].info.New, configs[j].opt
			o, out, err := parallel.RunIteration(driver.New(c), s, it.threshold, cfg)
			t := time.Since(t0).Seconds()
			if err != nil {
				return nil, err
			}
			if o.Found || o.Nodes != it.nodes {
				return nil, fmt.Errorf("%s: %d nodes, found %v; sequential %d nodes", configs[j].label, o.Nodes, o.Found, it.nodes)
			}
			par[j] = append(par[j], t)
			search[j] = append(search[j], out.Seconds)
		}
	}
	load := strings.Fields(loadavg())[0]
	rows := make([]row, len(configs))
	for j := range configs {
		rows[j] = row{it: it, cfg: configs[j].label, tSeq: median(seq), tPar: median(par[j]), tSearch: median(search[j]), reps: reps, load: load}
	}
	return rows, nil
}

// timeSequential returns the time of one sequential search of the
// iteration: the mean over enough back-to-back runs to last 0.2 ms.
func timeSequential(s puzzle.State, it iteration) (float64, error) {
	k := max(1, int(2e5/max(it.nodes, 1)))
	t0 := time.Now()
	for range k {
		st, _, err := puzzle.Iterate(s, it.threshold)
		if err != nil {
			return 0, err
		}
		if st.Nodes != it.nodes || st.Solved {
			return 0, errors.New("the sequential search changed its mind")
		}
	}
	return time.Since(t0).Seconds() / float64(k), nil
}

// median returns the median of xs (the mean of the middle two for an even
// count), NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func (r row) record() []string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	return []string{strconv.Itoa(r.it.korf), strconv.Itoa(r.it.index), strconv.Itoa(r.it.threshold),
		strconv.FormatInt(r.it.nodes, 10), g(r.tSeq), g(r.tPar), g(r.tSeq / r.tPar), r.cfg, g(r.tSearch), strconv.Itoa(r.reps), r.load, strconv.FormatFloat(r.other, 'f', 3, 64)}
}

func countInstances(rows []row) int {
	seen := map[int]bool{}
	for _, r := range rows {
		seen[r.it.korf] = true
	}
	return len(seen)
}

// bucket is a size class of the summary, by sequential time.
type bucket struct {
	label string
	upTo  float64 // seconds, exclusive
}

// buckets returns the size classes, by decades of sequential time.
func buckets() []bucket {
	return []bucket{
		{"t_seq < 100 µs", 1e-4}, {"100 µs – 1 ms", 1e-3}, {"1 – 10 ms", 1e-2},
		{"10 – 100 ms", 1e-1}, {"100 ms – 1 s", 1}, {"≥ 1 s", math.Inf(1)},
	}
}

// bucketOf returns the index in buckets() of an iteration's size class.
func bucketOf(tSeq float64) int {
	bs := buckets()
	for i, b := range bs {
		if tSeq < b.upTo {
			return i
		}
	}
	return len(bs) - 1
}

// summarize prints, per configuration, the collective and median speedups
// over all iterations and per bucket, and, when both rp and rp+fast-init
// were measured, the effect of fast initialisation per bucket.
func summarize(w io.Writer, rows []row, configs []config) {
	buckets := buckets()
	fmt.Fprintf(w, "\n%-16s %-16s %6s %12s %12s %10s %8s\n", "balancer", "bucket", "iters", "Σt_seq s", "Σt_par s", "collective", "median")
	for _, cf := range configs {
		var all []row
		per := make([][]row, len(buckets))
		for _, r := range rows {
			if r.cfg == cf.label {
				all = append(all, r)
				per[bucketOf(r.tSeq)] = append(per[bucketOf(r.tSeq)], r)
			}
		}
		line := func(label string, rs []row) {
			if len(rs) == 0 {
				return
			}
			var ts, tp float64
			sp := make([]float64, len(rs))
			for i, r := range rs {
				ts += r.tSeq
				tp += r.tPar
				sp[i] = r.tSeq / r.tPar
			}
			fmt.Fprintf(w, "%-16s %-16s %6d %12.4f %12.4f %10.3f %8.3f\n", cf.label, label, len(rs), ts, tp, ts/tp, median(sp))
		}
		line("all", all)
		for i, b := range buckets {
			line(b.label, per[i])
		}
	}
	// Fast initialisation: per iteration, t_par(NAME) / t_par(NAME+fast-init).
	for _, cf := range configs {
		if !cf.fast {
			continue
		}
		plain := map[iteration]row{}
		for _, r := range rows {
			if r.cfg == cf.name {
				plain[r.it] = r
			}
		}
		if len(plain) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nfast initialisation, %s: t_par(%s) / t_par(%s) per iteration (> 1: fast-init is faster)\n", cf.name, cf.name, cf.label)
		fmt.Fprintf(w, "%-16s %6s %12s %14s %14s %10s\n", "bucket", "iters", "median ratio", "median sp", "median sp+fi", "max ratio")
		ratios := make([][]float64, len(buckets))
		spPlain := make([][]float64, len(buckets))
		spFast := make([][]float64, len(buckets))
		for _, r := range rows {
			p, ok := plain[r.it]
			if r.cfg != cf.label || !ok {
				continue
			}
			b := bucketOf(r.tSeq)
			ratios[b] = append(ratios[b], p.tPar/r.tPar)
			spPlain[b] = append(spPlain[b], p.tSeq/p.tPar)
			spFast[b] = append(spFast[b], r.tSeq/r.tPar)
		}
		for i, b := range buckets {
			if len(ratios[i]) == 0 {
				continue
			}
			fmt.Fprintf(w, "%-16s %6d %12.3f %14.3f %14.3f %10.3f\n", b.label, len(ratios[i]), median(ratios[i]),
				median(spPlain[i]), median(spFast[i]), slices.Max(ratios[i]))
		}
	}
}

// cpuSample is the machine's busy CPU time and this process's CPU time at
// one moment.
type cpuSample struct {
	wall time.Time
	busy float64 // seconds of busy CPU over all cores since boot, NaN if unknown
	self float64 // seconds of CPU used by this process
}

// sampleCPU reads /proc/stat and this process's resource usage.
func sampleCPU() cpuSample {
	s := cpuSample{wall: time.Now(), busy: math.NaN()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return s
	}
	var total, idle float64
	for i, x := range f[1:] {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return s
		}
		if i < 8 { // user nice system idle iowait irq softirq steal; guest is in user
			total += v
		}
		if i == 3 || i == 4 {
			idle += v
		}
	}
	const userHZ = 100 // the clock ticks of /proc/stat on Linux
	s.busy = (total - idle) / userHZ
	return s
}

// otherSince returns the cores used on average by other processes since
// the sample before, NaN if unknown or if less than 0.2 s passed (the
// clock ticks of /proc/stat are 10 ms).
func (s cpuSample) otherSince(before cpuSample) float64 {
	wall := s.wall.Sub(before.wall).Seconds()
	if wall < 0.2 || math.IsNaN(s.busy) || math.IsNaN(before.busy) {
		return math.NaN()
	}
	return max(0, (s.busy-before.busy)-(s.self-before.self)) / wall
}

// othersShare returns the highest share of other processes in rows, and how
// many rows had more than limit cores used by others.
func othersShare(rows []row, limit float64) (top float64, over int) {
	for _, r := range rows {
		if r.other > limit {
			over++
		}
		if r.other > top {
			top = r.other
		}
	}
	return top, over
}

// maxLoad returns the highest load recorded in rows.
func maxLoad(rows []row) string {
	top, s := -1.0, "unknown"
	for _, r := range rows {
		if x, err := strconv.ParseFloat(r.load, 64); err == nil && x > top {
			top, s = x, r.load
		}
	}
	return s
}

// loadavg returns the first three fields of /proc/loadavg, or "unknown".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
