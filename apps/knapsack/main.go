package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/knapsack/knap"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/runner"
)

const description = `Finds a set of items of the largest total profit whose weights sum to at
most the capacity, and proves it optimal.

FILE (or - for standard input, read by rank 0 alone) holds an instance in
the common text format: a line with the number of items n, n lines
"profit weight", and a line with the capacity; numbers are separated by
blanks, blank lines are ignored. Numbers are non-negative integers (int64)
unless --scale S is given: then they may be decimal numbers (digits with at
most one point, no exponent), each multiplied by S and rounded to the
nearest integer, halves up.

--search core (the default) is the expanding-core search of Pisinger's
expknap; --search hs is the Horowitz–Sahni search with the Dantzig bound
that seed 002's experiments used. Both start from a greedy solution and,
under a balancer (see --balancer help), spread every better solution found
on one rank to all ranks, which then prune with it. The optimal profit is
the same under every balancer; the chosen items may differ among optimal
sets, and the nodes searched vary from run to run (a better solution found
early prunes more).

Output: the optimal profit, its weight and its items (0-based indices in
input order, ascending), the nodes searched and the time. With --json one
JSON object with app, balancer, ranks, world, search, file, n, capacity,
profit, weight, items, nodes, nodes_vary (true: branch-and-bound; the nodes
depend on the balancer, the ranks and the schedule), seconds (wall time of
sorting and search),
cpu_seconds (CPU time of all ranks meanwhile: the process's in the embedded
world, summed over the processes under MPI), messages (by kind) and, in
--world sim, the simulator's report (machine, virtual_seconds,
work_virtual_seconds (with --seq-nodes also seq_nodes, seq_virtual_seconds,
speedup, efficiency, search_overhead), busy_fraction, last_work_seconds,
events, events_per_second, sim_seconds (the simulator's real time)), and
stats with --stats. With -q, the profit on one line and
the items on the next.

Exit status: 0 on success (an empty knapsack is an answer too); 2 for bad
flags or input, with the line number: a missing or extra line, a line with
the wrong number of fields, a count that does not match the item lines, a
negative number, a non-number, a number or a sum of weights that overflows
int64, a sum of profits over 2^63 − 2 (the solver computes Σp + 1), a
missing file; 1 for any other error.
` + runner.ExitStatusHelp

func main() { runner.Main(newApp()) }

func newApp() *cli.App {
	return &cli.App{
		Name:        "knapsack",
		Usage:       "solve 0-1 knapsack instances exactly by branch-and-bound, in parallel with a load balancer",
		UsageText:   "knapsack [flags] FILE|-\n   knapsack gen --class CLASS -m M [--seed N] [--range R] [--fraction F]",
		Description: description,
		Flags: append(runner.Flags(),
			&cli.StringFlag{Name: "search", Value: knap.Core.String(), Usage: "the branch-and-bound search: core (Pisinger's expanding core) or hs (Horowitz–Sahni, seed 002's)"},
			&cli.Int64Flag{Name: "scale", Usage: "read decimal numbers and multiply them by `S` ≥ 1, rounding to the nearest integer (0: integers only); a warning says when nonzero numbers round to 0"}),
		Action: runner.Action(runner.Spec[instance]{App: "knapsack", Read: read, Solve: solve, Sample: sample, Resumable: true,
			NodeCosts: knap.NodeCosts()}),
		Commands: []*cli.Command{{
			Name:  "gen",
			Usage: "write a random instance to standard output",
			Description: `Classes: sanders, seed 002's: w uniform in [0.01, 1.01], p uniform in
[w + 0.1, w + 0.125], capacity Σw/2, in units of 10⁻⁶ (--range and --fraction
do not apply); and Pisinger's, with w uniform in [1, R] and the capacity
⌊F·Σw⌋: uncorrelated (p uniform in [1, R]), weakly (p uniform in
[w − R/10, w + R/10], at least 1), strongly (p = w + R/10), inverse-strongly
(p uniform in [1, R], w = p + R/10), almost-strongly (p uniform in
[w + R/10 − R/500, w + R/10 + R/500]) and subset-sum (p = w). The same seed
gives the same instance on every machine.`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "class", Value: knap.Sanders.String(), Usage: "instance class: " + classList()},
				&cli.IntFlag{Name: "m", Usage: "the number of items `M`", DefaultText: "none, required"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the instance's seed `N`"},
				&cli.Int64Flag{Name: "range", Value: 1000, Usage: "Pisinger's classes: coefficients up to `R`"},
				&cli.Float64Flag{Name: "fraction", Value: 0.5, Usage: "Pisinger's classes: the capacity as a fraction `F` of Σw, in (0, 1]"},
			},
			Before: runner.NoArgs,
			Action: gen,
		}},
	}
}

// classList names the classes of gen.
func classList() string {
	var names []string
	for _, c := range knap.Classes() {
		names = append(names, c.String())
	}
	return strings.Join(names, ", ")
}

// instance is what to solve; it travels from rank 0 to the other ranks.
type instance struct {
	File   string
	Search knap.Search
	Scale  int64
	In     knap.Instance
}

// sample is the app --calibrate times: the instance's search from its root.
func sample(in instance) (lb.App, error) {
	a, err := knap.NewApp(&in.In, in.Search)
	if err != nil {
		return nil, err
	}
	return a, nil
}

func read(c *cli.Context, cm runner.Common) (instance, error) {
	if c.NArg() != 1 {
		return instance{}, runner.Usagef("need exactly one argument, the instance FILE or - for standard input (see --help)")
	}
	search, err := knap.ParseSearch(c.String("search"))
	if err != nil {
		return instance{}, runner.Usagef("--search: %s", strings.TrimPrefix(err.Error(), "knapsack: "))
	}
	in := instance{File: c.Args().First(), Search: search, Scale: c.Int64("scale")}
	if in.Scale < 0 {
		return instance{}, runner.Usagef("--scale %d: need 0 (integers) or a factor ≥ 1", in.Scale)
	}
	if err := cm.CheckInput(in.File, "the instance FILE"); err != nil {
		return instance{}, err
	}
	var r io.Reader = c.App.Reader
	if in.File != "-" {
		f, err := os.Open(in.File)
		if err != nil {
			return instance{}, runner.Usagef("%v", err)
		}
		defer f.Close()
		r = f
	}
	p, z, err := knap.ParseScaled(r, in.Scale)
	if err != nil {
		return instance{}, runner.Usagef("%s: %s", inputName(in.File), strings.TrimPrefix(err.Error(), "knapsack: "))
	}
	if z.Count > 0 { // rank 0 reads the input: one warning
		what := fmt.Sprintf("%d nonzero numbers", z.Count)
		if z.Count == 1 {
			what = "a nonzero number"
		}
		fmt.Fprintf(c.App.ErrWriter, "knapsack: warning: %s: --scale %d rounds %s to 0 (the first on line %d), which changes the instance: a larger --scale keeps them\n",
			inputName(in.File), in.Scale, what, z.First)
	}
	in.In = *p
	return in, checkMemory(cm, p.Len())
}

// inputName names the input FILE for messages.
func inputName(file string) string {
	if file == "-" {
		return "standard input"
	}
	return file
}

// checkMemory refuses a run whose copies of an n-item instance would not
// fit in the available memory: every goroutine rank of the embedded world
// decodes its own copy and sorts it, the simulator's ranks share one.
func checkMemory(cm runner.Common, n int) error {
	perApp := float64(n) * (knap.BytesPerItem + knap.BytesPerItemPerApp)
	need, what := perApp, fmt.Sprintf("%d items", n)
	switch {
	case cm.Balancer == runner.Seq:
	case cm.World == runner.WorldEmbedded:
		need, what = need*float64(cm.NP), fmt.Sprintf("%d items on %d goroutine ranks", n, cm.NP)
	case cm.World == runner.WorldSim:
		need += float64(cm.NP-1) * float64(n) * knap.BytesPerItemPerApp
		what = fmt.Sprintf("%d items on %d simulated ranks", n, cm.NP)
	}
	return runner.CheckMemory(need, what)
}

// output is the JSON object the command prints.
type output struct {
	runner.Header
	Search   string `json:"search"`
	File     string `json:"file"`
	Scale    int64  `json:"scale,omitempty"`
	N        int    `json:"n"`
	Capacity int64  `json:"capacity"`
	Profit   int64  `json:"profit"`
	Weight   int64  `json:"weight"`
	Items    []int  `json:"items"`
	Nodes    int64  `json:"nodes"`
	// NodesVary is always true: branch-and-bound prunes with the best
	// profit found so far, so the nodes depend on the balancer, the ranks
	// and the schedule (docs/counts.md).
	NodesVary  bool          `json:"nodes_vary"`
	Seconds    float64       `json:"seconds"`
	CPUSeconds float64       `json:"cpu_seconds"`
	Stats      *runner.Stats `json:"stats,omitempty"`
	runner.Report
}

func solve(r *runner.Run, in instance) error {
	out := output{Header: r.Header(), Search: in.Search.String(), File: in.File, Scale: in.Scale, N: in.In.Len(), Capacity: in.In.Capacity, NodesVary: true}
	var res knap.Result
	var stats *lb.Outcome
	var err error
	cpu0, start := cpuSeconds(), time.Now()
	if r.Seq() {
		res, err = knap.Solve(&in.In, in.Search)
	} else {
		res, stats, err = knap.SolveParallel(r.World, &in.In, in.Search, r.Config())
	}
	if err != nil {
		return err
	}
	out.Seconds, out.CPUSeconds = time.Since(start).Seconds(), cpuSeconds()-cpu0
	if !r.Seq() && r.WorldName() == runner.WorldMPI {
		sum := []float64{0}
		if err := mpi.Allreduce(r.Comm, []float64{out.CPUSeconds}, sum, mpi.Sum); err != nil {
			return err
		}
		out.CPUSeconds = sum[0]
	}
	out.Profit, out.Weight, out.Items, out.Nodes = res.Profit, res.Weight, res.Items, res.Nodes
	if out.Items == nil {
		out.Items = []int{}
	}
	if p, w, err := in.In.Check(out.Items); err != nil || p != out.Profit || w != out.Weight {
		return fmt.Errorf("the solution does not check: items %v sum to profit %d and weight %d (%v), the search says %d and %d",
			out.Items, p, w, err, out.Profit, out.Weight)
	}
	out.Stats = r.StatsOf(stats)
	if out.Report, err = r.Report(stats); err != nil {
		return err
	}
	return r.Print(out, func(w io.Writer) error {
		chosen := join(out.Items)
		if r.Quiet {
			_, err := fmt.Fprintf(w, "%d\n%s\n", out.Profit, chosen)
			return err
		}
		fmt.Fprintf(w, "knapsack: %s: %s, capacity %d\n", inputName(out.File), items(out.N), out.Capacity)
		if len(out.Items) > 0 {
			chosen = ": " + chosen
		}
		fmt.Fprintf(w, "optimal profit %d, weight %d, %s%s\n", out.Profit, out.Weight, items(len(out.Items)), chosen)
		fmt.Fprintf(w, "nodes: %d  time: %.3f s  cpu: %.3f s", out.Nodes, out.Seconds, out.CPUSeconds)
		fmt.Fprintf(w, "  search: %s  ranks: %d  balancer: %s  world: %s\n", out.Search, out.Ranks, out.Balancer, out.World)
		runner.PrintCount(w, runner.Count{NodesVary: true})
		runner.PrintReport(w, out.Report)
		if r.Common.Stats {
			runner.PrintStats(w, stats)
		}
		return nil
	})
}

// cpuSeconds returns the CPU time this process has used, user and system.
func cpuSeconds() float64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return float64(u.Utime.Sec+u.Stime.Sec) + float64(u.Utime.Usec+u.Stime.Usec)/1e6
}

func join(items []int) string {
	s := make([]string, len(items))
	for i, k := range items {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, " ")
}

// gen writes the random instance of its flags to standard output.
func gen(c *cli.Context) error {
	if !c.IsSet("m") {
		return runner.Usagef("gen needs -m, the number of items")
	}
	class, err := knap.ParseClass(c.String("class"))
	if err != nil {
		return runner.Usagef("--class: %s", strings.TrimPrefix(err.Error(), "knapsack: "))
	}
	cfg := knap.GenConfig{Class: class, M: c.Int("m"), Seed: c.Uint64("seed"), R: c.Int64("range"), Fraction: c.Float64("fraction")}
	if class == knap.Sanders {
		for _, name := range []string{"range", "fraction"} {
			if c.IsSet(name) {
				return runner.Usagef("--%s: the sanders class has fixed coefficients and capacity", name)
			}
		}
	} else if cfg.R < 1 || cfg.R > knap.MaxRange {
		return runner.Usagef("--range %d: need 1 to %d", cfg.R, knap.MaxRange)
	} else if !(cfg.Fraction > 0 && cfg.Fraction <= 1) {
		return runner.Usagef("--fraction %v: need a number in (0, 1]", cfg.Fraction)
	}
	if cfg.M < 0 || cfg.M > knap.MaxItems {
		return runner.Usagef("-m %d: need 0 to %d items", cfg.M, knap.MaxItems)
	}
	if err := runner.CheckMemory(float64(cfg.M)*16, fmt.Sprintf("%d items", cfg.M)); err != nil {
		return err
	}
	in, err := knap.Generate(cfg)
	if err != nil {
		return runner.Usagef("%s", strings.TrimPrefix(err.Error(), "knapsack: "))
	}
	if _, err := in.WriteTo(c.App.Writer); err != nil {
		// The writer's own error says what failed: "writing standard output: …".
		if werr := errors.Unwrap(err); werr != nil {
			return werr
		}
		return err
	}
	return nil
}

// items says n items, or 1 item.
func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}
