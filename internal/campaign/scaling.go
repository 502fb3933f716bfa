package campaign

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/treelb/treelb/lb"
)

// scalingSizes are the values of the scaling presets' "size" parameter.
var scalingSizes = []string{"quick", "standard", "large"}

// scalingInstances returns the scaling presets' instances of a size, or an
// error naming the sizes: one or more of every app, large enough for the
// machine (issue 22). The Korf instances are among the hardest of the
// hundred; the knapsack instances are of seed 002's class (knapsack gen
// --class sanders): in quick one of milliseconds, in standard and large
// two of seconds (seeds 42 and 49 of m = 2000: 3–4 s sequentially with
// --search hs, the longest of seeds 1–120 at P = 2).
func scalingInstances(size string) ([]string, error) {
	knap := func(m, seed int) string {
		return fmt.Sprintf("knapsack --search hs <(knapsack gen --class sanders -m %d --seed %d)", m, seed)
	}
	switch size {
	case "quick": // a few seconds each on one core: to try the campaign out
		return []string{"golomb 11", "uts --tree T1L", "fifteen --korf 5", knap(2000, 1),
			"integrate func osc --theta-a 1e-14 --theta-r 1e-16"}, nil
	case "standard": // tens of seconds to minutes each on one core
		return []string{"golomb 12", "golomb 13", "uts --tree T1L", "uts --tree T3L", "fifteen --korf 82", "fifteen --korf 88",
			"fifteen --korf 60", knap(2000, 42), knap(2000, 49), "integrate func osc --theta-a 1e-17 --theta-r 1e-18"}, nil
	case "large": // for 16 cores and more
		return []string{"golomb 13", "golomb 14", "uts --tree T1XL", "uts --tree T3XXL", "fifteen --korf 82", "fifteen --korf 88",
			"fifteen --korf 60", knap(2000, 42), knap(2000, 49), "integrate func osc --theta-a 1e-20 --theta-r 1e-21"}, nil
	}
	return nil, fmt.Errorf("--set size=%s: want %s", size, strings.Join(scalingSizes, ", "))
}

// ScalingNPs returns the ranks the scaling presets run on a machine with
// cores cores: 1, 2, 4, … up to cores (cores itself included), then
// 2·cores, oversubscribed.
func ScalingNPs(cores int) []int {
	cores = max(cores, 1)
	var out []int
	for p := 1; p < cores; p *= 2 {
		out = append(out, p)
	}
	return append(out, cores, 2*cores)
}

// scalingPresets returns the presets of issue 22's scaling benchmark: in
// the embedded world ("scaling") and under mpirun ("scaling-mpi", the
// -tags mpi build), each instance's sequential baseline and then rp on
// every P, repeat after repeat, so that the baseline and the parallel runs
// alternate under the same load.
func scalingPresets() []Preset {
	nps := ScalingNPs(runtime.NumCPU())
	params := []Param{{"size", "standard", "instances: quick (seconds each, a trial), standard (golomb 12 and 13, UTS T1L and T3L, " +
		"Korf #82, #88 and #60, two knapsack instances of seed 002's class, integrate) or large (golomb 13 and 14, T1XL, T3XXL; for 16 cores)"}}
	mk := func(plan Plan, p Params) (Setup, error) {
		if len(plan.Instances) == 0 {
			ins, err := scalingInstances(p["size"])
			if err != nil {
				return Setup{}, err
			}
			plan.Instances = ins
		}
		keys, err := plan.Keys()
		return Setup{Keys: keys, Report: ScalingReport}, err
	}
	return []Preset{
		simTargetsPreset(),
		{Name: "scaling", Doc: "real cores: seq and rp on P = 1, 2, 4, … cores and 2·cores (oversubscribed), alternating, with --stats: speedup, efficiency, search overhead, idle fraction and per-core node rate (issue 22, docs/scaling.md)",
			Defaults: Plan{Worlds: []string{"embedded --stats"}, NPs: nps, Balancers: []string{"rp"}, Seeds: []int64{1}, Repeats: 3},
			Params:   params, CSV: "results/scaling/scaling.csv", Title: "scaling on this machine's cores", Make: mk},
		{Name: "scaling-mpi", Doc: "the scaling preset under mpirun (-tags mpi build, --launcher for root or srun): real processes on P = 1, 2, 4, … cores and 2·cores",
			Defaults: Plan{Worlds: []string{"mpi --stats"}, NPs: nps, Balancers: []string{"rp"}, Seeds: []int64{1}, Repeats: 3},
			Params:   params, CSV: "results/scaling-mpi/scaling-mpi.csv", Title: "scaling under mpirun", Tags: "mpi", Make: mk},
	}
}

// ScalingReport writes the scaling table of a campaign's runs: per world,
// instance, balancer and P, the median and spread over the runs of the
// speedup (T_seq over T_par, the baseline's median in the same campaign),
// the efficiency (median speedup / P), the search overhead (nodes over the
// sequential nodes), the idle fraction (the ranks' idle seconds over
// P·T_par, with --stats) and its parts before the ranks' first work slices
// and after their last (lb.Times), the per-core node rate (nodes over the ranks'
// work seconds with --stats, else over P·T_par) relative to the sequential
// solver's (its nodes over T_seq), and the highest load average before a
// run. The rates' ratio is what issue 22 asks to keep within 10 % at 16
// ranks.
func ScalingReport(w io.Writer, t *Table) error {
	pts, err := Derive(t, "")
	if err != nil {
		return err
	}
	keys, err := t.Keys()
	if err != nil {
		return err
	}
	// The ranks' work seconds, and of their idle seconds those before their
	// first work slice and after their last, with --stats.
	work, idleStart, idleEnd := map[Key]float64{}, map[Key]float64{}, map[Key]float64{}
	for i, k := range keys {
		for _, c := range []struct {
			col string
			m   map[Key]float64
		}{{"stats.total.work_seconds", work}, {"stats.total.idle_start_seconds", idleStart}, {"stats.total.idle_end_seconds", idleEnd}} {
			if v, ok := t.Float(i, c.col); ok {
				c.m[k] = v
			}
		}
	}
	type gk struct {
		world, instance, balancer string
		np                        int
	}
	var order []gk
	runs := map[gk][]Point{}
	for _, p := range pts {
		k := gk{p.World, p.Instance, p.Balancer, p.NP}
		if _, ok := runs[k]; !ok {
			order = append(order, k)
		}
		runs[k] = append(runs[k], p)
	}
	fmt.Fprintln(w, "\nScaling: medians (min–max) over the runs; speedup against the sequential solver's median time in the same campaign;"+
		" idle: the ranks' idle time over P·T_par, and of it (same scale) the part before each rank's first work slice (at start) and after its last (at end);"+
		" rate: nodes per second per core over the sequential solver's (1 = no per-core slowdown)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "world\tinstance\tbalancer\tP\truns\tspeedup\tefficiency\tsearch overhead\tidle\tat start\tat end\trate\tload\t")
	for _, k := range order {
		m := runs[k]
		var par, over, idle, atStart, atEnd, rate, load []float64
		for _, p := range m {
			par = append(par, p.Par)
			over = append(over, p.Overhead)
			pt := p.Par * float64(p.NP)
			idle = append(idle, p.Idle/pt)
			if v, ok := idleStart[p.Key]; ok {
				atStart = append(atStart, v/pt)
			}
			if v, ok := idleEnd[p.Key]; ok {
				atEnd = append(atEnd, v/pt)
			}
			seqRate := p.SeqNodes / p.Seq
			busy := p.Par * float64(p.NP)
			if ws, ok := work[p.Key]; ok && ws > 0 {
				busy = ws
			}
			rate = append(rate, p.Nodes/busy/seqRate)
			load = append(load, p.LoadBefore)
		}
		// As in Groups: the median speedup is the median run's, the
		// extremes those of the extreme times.
		ps, seq := SpreadOf(par), m[0].Seq
		sp := Spread{N: ps.N, Median: seq / ps.Median, Min: seq / ps.Max, Max: seq / ps.Min}
		if ps.N == 0 || math.IsNaN(seq) {
			sp = SpreadOf(nil)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", k.world, k.instance, k.balancer, k.np, len(m),
			sp.Format("%.3g"), num3(sp.Median/float64(k.np)), SpreadOf(over).Format("%.3f"), SpreadOf(idle).Format("%.3f"),
			SpreadOf(atStart).Format("%.3f"), SpreadOf(atEnd).Format("%.3f"), SpreadOf(rate).Format("%.3f"), num3(SpreadOf(load).Max))
	}
	return tw.Flush()
}

// num3 formats v with three decimals, "" for NaN.
func num3(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return fmt.Sprintf("%.3f", v)
}

// The simulator targets of issue 22: the least efficiency on the simulated
// cluster (P = 16 and 64) of each instance, or of the sum of a group of
// instances (the hard Korf instances).
var simTargets = []struct {
	name      string
	instances []string
	min       float64
}{
	{"golomb 13", []string{"golomb 13"}, 0.85},
	{"UTS T3L", []string{"uts --tree T3L"}, 0.85},
	{"hard Korf sum (#82, #88, #60)", []string{"fifteen --korf 82", "fifteen --korf 88", "fifteen --korf 60"}, 0.90},
	// The scaling preset's integrate instance (0.2 s sequentially) gives
	// 64 ranks 3 ms of work each: this one is ten times larger.
	{"integrate", []string{"integrate func osc --theta-a 1e-20 --theta-r 1e-21"}, 0.90},
	{"golomb 14", []string{"golomb 14"}, 0.90},
	{"UTS T1XL", []string{"uts --tree T1XL"}, 0.90},
	{"UTS T3XXL", []string{"uts --tree T3XXL"}, 0.90},
}

// simTargetsBalancers is the instance on which every balancer at its
// default options is held to simBalancerMin.
const (
	simTargetsBalancers = "golomb 13"
	simBalancerMin      = 0.5
)

// simTargetsPreset is issue 22's simulator targets as a campaign: rp on
// every target instance, and every balancer at its defaults on golomb 13,
// at P = 16 and 64 on the simulated cluster, whose node costs are each
// app's on the development machine (lb.Machines). Virtual time does not
// depend on the load, so the runs go two at a time.
func simTargetsPreset() Preset {
	var instances []string
	for _, t := range simTargets {
		instances = append(instances, t.instances...)
	}
	return Preset{Name: "scaling-sim",
		Doc: "issue 22's simulator targets: rp on golomb 13 and 14, UTS T3L, T1XL and T3XXL, Korf #82, #88 and #60 and integrate, " +
			"and every balancer at its defaults on golomb 13, at P = 16 and 64 simulated cluster ranks, each target met or missed " +
			"(results/scaling-sim/; CPU: an hour of one core)",
		Defaults: Plan{Worlds: []string{"sim:cluster --stats"}, NPs: []int{16, 64}, Balancers: []string{"rp"},
			Instances: instances, Seeds: []int64{1}, Repeats: 1},
		CSV: "results/scaling-sim/scaling-sim.csv", Title: "issue 22's targets on the simulated cluster", Jobs: 2,
		Make: func(plan Plan, _ Params) (Setup, error) {
			keys, err := plan.Keys()
			if err != nil {
				return Setup{}, err
			}
			if slices.Contains(plan.Instances, simTargetsBalancers) {
				others := plan
				others.Instances = []string{simTargetsBalancers}
				others.Balancers = nil
				for _, b := range append(lb.Names(), "rp --fast-init") {
					if b != Seq && !slices.Contains(plan.Balancers, b) {
						others.Balancers = append(others.Balancers, b)
					}
				}
				more, err := others.Keys()
				if err != nil {
					return Setup{}, err
				}
				for _, k := range more {
					keys = addNew(keys, k)
				}
			}
			return Setup{Keys: keys, Report: func(w io.Writer, t *Table) error {
				if err := ScalingReport(w, t); err != nil {
					return err
				}
				return SimTargetsReport(w, t)
			}}, nil
		}}
}

// SimTargetsReport writes issue 22's simulator targets as met or missed:
// per simulated world, target, rp variant (rp with any options, such as
// --min-budget) and P, the efficiency (a group's: the sum of its
// instances' sequential virtual times over P times the sum of their
// parallel ones), and per balancer on golomb 13 its efficiency against
// 0.5. A run repeated (several seeds or repetitions) counts by its medians:
// of the parallel time, the nodes and the busy fraction, per instance,
// before a group's sums. A target whose runs are not all in t is left out.
func SimTargetsReport(w io.Writer, t *Table) error {
	pts, err := Derive(t, "")
	if err != nil {
		return err
	}
	// A configuration repeated (seeds, repetitions) counts by its medians
	// (Groups), per instance, before a group of instances is summed.
	by := map[simKey]Group{}
	var nps []int
	var worlds, balancers, rps []string // rps: the rp variants
	for _, g := range Groups(pts) {
		by[simKey{g.World, g.Balancer, g.Instance, g.NP}] = g
		nps = addNew(nps, g.NP)
		worlds = addNew(worlds, g.World)
		if !slices.Contains(balancers, g.Balancer) {
			balancers = append(balancers, g.Balancer)
			if strings.Fields(g.Balancer)[0] == "rp" {
				rps = append(rps, g.Balancer)
			}
		}
	}
	slices.Sort(nps)
	slices.Sort(balancers)
	slices.Sort(rps)
	verdict := func(eff, min float64) string {
		if eff >= min {
			return "met"
		}
		return "missed"
	}
	fmt.Fprintln(w, "\nIssue 22's simulator targets: efficiency = T_seq / (P·T_par) in virtual time, T_seq the sequential solver's nodes × the machine's node cost")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "world\ttarget\tbalancer\tP\tefficiency\tsearch overhead\tbusy\tat least\t\t")
	row := func(world, target, b string, np int, eff, overhead, busy, min float64) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.2f\t%s\t\n", world, target, b, np, eff, overhead, busy, min, verdict(eff, min))
	}
	for _, world := range worlds {
		for _, tg := range simTargets {
			for _, b := range rps {
				for _, np := range nps {
					if eff, overhead, busy, ok := groupEfficiency(by, world, b, tg.instances, np); ok {
						row(world, tg.name, b, np, eff, overhead, busy, tg.min)
					}
				}
			}
		}
		for _, b := range balancers {
			for _, np := range nps {
				if g, ok := by[simKey{world, b, simTargetsBalancers, np}]; ok && !math.IsNaN(g.Speedup.Median) {
					row(world, simTargetsBalancers+", every balancer", b, np, g.Speedup.Median/float64(np), g.Overhead.Median, g.Busy, simBalancerMin)
				}
			}
		}
	}
	return tw.Flush()
}

// simKey names one simulated configuration of SimTargetsReport.
type simKey struct {
	world, balancer, instance string
	np                        int
}

// groupEfficiency returns the efficiency of a group of instances under
// balancer b on np ranks of world (Σ T_seq / (np · Σ T_par), each T_par its
// configuration's median), its search overhead (Σ nodes / Σ sequential
// nodes) and busy fraction (weighted by T_par); false when a run of the
// group is missing or has no time.
func groupEfficiency(by map[simKey]Group, world, b string, instances []string, np int) (eff, overhead, busy float64, ok bool) {
	var seq, par, nodes, seqNodes, busyTime float64
	for _, in := range instances {
		g, found := by[simKey{world, b, in, np}]
		if !found || g.Seq.N == 0 || math.IsNaN(g.Seq.Median) || g.Par.N == 0 {
			return 0, 0, 0, false
		}
		seq, par = seq+g.Seq.Median, par+g.Par.Median
		nodes, seqNodes = nodes+g.Overhead.Median*g.SeqNodes, seqNodes+g.SeqNodes
		busyTime += g.Busy * g.Par.Median
	}
	return seq / (float64(np) * par), nodes / seqNodes, busyTime / par, true
}
