package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/fifteen/parallel"
	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
)

const description = `Solves each INSTANCE optimally: the fewest moves of the blank that bring the
board to the goal, blank at the top left, then 1 2 3 … 15 row by row.

An instance is given as
  --korf N          instance N (1..100) of Korf's table; N may be a range A-B,
                    and the flag may repeat or hold a list (--korf 1,5,10-12)
  --file F          a file with one instance per line: 16 numbers separated by
                    blanks or commas; '#' starts a comment, blank lines are skipped;
                    the flag may repeat (- reads standard input, once)
  INSTANCE...       16 numbers on the command line (several instances: 16 each;
                    put -- before the numbers if the first would look like a flag)
Instances run in that order. Korf's table is built in (Korf 1985, Table 1);
--data reads another table in the same format instead, for --korf.

The search is IDA*: the thresholds are h(start), then the smallest f = g + h
that exceeded the previous threshold. Under a balancer (--balancer, see
--balancer help) every iteration is one load-balanced search of all ranks,
with the threshold known to all, the next one found by a reduction, and the
last iteration stopped on every rank as soon as one rank finds the goal.
Failing iterations are exhaustive: their node counts are the sequential ones
exactly, whatever the balancer. Nodes count every generated node plus 1 for
the root (Korf's convention; the --stats table and --progress count the
nodes the ranks generated, without it); seq is the plain sequential solver.

Output: per instance, the optimal length, the moves of the blank (U, L, R, D)
and a table of the iterations (threshold, nodes, seconds, failed or not).
With --json, one JSON object per instance, one per line (JSON Lines), with
app, balancer, ranks, world, fast_init, instance, start, seconds, nodes,
certificate (of the failing iterations: the same on every run, docs/counts.md),
replayed_nodes, nodes_vary (true: the last iteration stops at the first
solution), failing_nodes, length, moves, iterations [{threshold, nodes,
seconds, failed, certificate (failing ones), replayed_nodes}], and for Korf's
instances table_length and table_nodes; --stats adds the balancer's counters
summed over the iterations; every parallel run adds the messages by kind
(messages), and the simulated world (--world sim) the machine, virtual_seconds,
work_virtual_seconds (with --seq-nodes also seq_nodes, seq_virtual_seconds, speedup, efficiency, search_overhead), busy_fraction, events,
events_per_second and sim_seconds (the iterations' seconds are then virtual).
With -q, one line "LENGTH MOVES" per instance.

Exit status: 0 on success; 2 for bad flags or input (a wrong count of
numbers, a tile out of 0..15 or repeated, an unsolvable board — checked by
the permutation's parity before any search —, --korf out of 1..100, an
unreadable or malformed file); 1 for any other error, including a length
that disagrees with Korf's table.
` + runner.ExitStatusHelp

func main() { runner.Main(newApp()) }

// defaultBudget is the command's work slice: at ~380 M nodes/s a slice of
// 10⁵ nodes lasts about 0.26 ms; lb's default of 10⁴ spent about 4% on
// slicing (korf 7, P=1).
const defaultBudget = 100000

func newApp() *cli.App {
	flags := runner.Flags()
	for _, f := range flags {
		if b, ok := f.(*cli.Int64Flag); ok && b.Name == "budget" {
			b.Value = defaultBudget
		}
	}
	return &cli.App{
		Name:        "fifteen",
		Usage:       "solve 15-puzzle instances optimally by IDA*, in parallel with a load balancer",
		ArgsUsage:   "[INSTANCE...]",
		Description: description,
		Flags: append(flags,
			&cli.StringSliceFlag{Name: "korf", Usage: "solve instance `N` of Korf's 100 (1..100, or a range A-B; repeatable)"},
			&cli.StringFlag{Name: "data", Usage: "read Korf's table from `PATH` instead of the built-in one"},
			&cli.GenericFlag{Name: "file", Value: &fileList{}, Usage: "solve the instances in file `F` (- for standard input), one per line, 16 numbers each (repeatable)"},
			&cli.StringFlag{Name: "near", Value: "4..8", Usage: "split near the frontier: give work away first at the deepest open level between `A..B` (0 or off: at the shallowest open level, as an exhaustive search splits; docs/scaling.md)"}),
		Action: runner.Action(runner.Spec[[]instance]{App: "fifteen", Read: read, Solve: solve, Sample: sample, Resumable: true,
			NodeCosts: parallel.NodeCosts()}),
	}
}

// sample is the app --calibrate times: the last failing iteration's
// threshold guess for the first instance, h + 20 below a length it cannot
// reach, searched depth first (any iteration's nodes cost alike).
func sample(ins []instance) (lb.App, error) {
	if len(ins) == 0 {
		return nil, errors.New("no instance")
	}
	s := ins[0].Start
	it, err := parallel.NewIteration(s, min(s.Manhattan()+20, puzzle.MaxThreshold))
	if err != nil {
		return nil, err
	}
	return it, nil
}

// output is the JSON object printed per instance.
type output struct {
	runner.Header
	FastInit bool    `json:"fast_init"`
	Instance string  `json:"instance"`
	Start    string  `json:"start"`
	Seconds  float64 `json:"seconds"`
	Nodes    int64   `json:"nodes"`
	runner.Count
	// FailingNodes are the nodes of the failing iterations, exhaustive
	// searches: the same on every run, as is the Certificate, which covers
	// them. The last iteration stops at the first solution, so Nodes
	// varies (NodesVary).
	FailingNodes int64                `json:"failing_nodes"`
	Length       int                  `json:"length"`
	Moves        string               `json:"moves"`
	Iterations   []parallel.IterStats `json:"iterations"`
	TableLength  int                  `json:"table_length,omitempty"`
	TableNodes   int64                `json:"table_nodes,omitempty"`
	Stats        *runner.Stats        `json:"stats,omitempty"`
	runner.Report
	outcome *lb.Outcome // the balancer's statistics, nil for seq
}

func read(c *cli.Context, cm runner.Common) ([]instance, error) {
	near, err := parallel.ParseNear(c.String("near"))
	if err != nil {
		return nil, runner.Usagef("--near %w", err)
	}
	for _, f := range *c.Generic("file").(*fileList) {
		if err := cm.CheckInput(f, "--file"); err != nil {
			return nil, err
		}
	}
	if err := cm.CheckInput(c.String("data"), "--data"); err != nil {
		return nil, err
	}
	ins, err := sources{korf: c.StringSlice("korf"), data: c.String("data"), files: *c.Generic("file").(*fileList), stdin: c.App.Reader, numbers: c.Args().Slice()}.instances()
	if err != nil {
		return nil, &runner.UsageError{Err: err}
	}
	if len(ins) > 1 && c.IsSet("seq-nodes") {
		return nil, runner.Usagef("--seq-nodes is the sequential nodes of one instance, and %d instances are given: give one per command", len(ins))
	}
	for i := range ins {
		ins[i].Near = near
	}
	return ins, nil
}

func solve(r *runner.Run, ins []instance) error {
	var mismatch error
	first := 0
	var resume *lb.Suspended
	if s := r.Resume(); s != nil {
		// The instance being solved (the ones before are printed).
		st, err := parallel.DecodeState(s.State)
		if err != nil || st.Instance < 0 || st.Instance >= len(ins) {
			return fmt.Errorf("%w: fifteen: instance %d of %d (%v)", lb.ErrBadState, st.Instance, len(ins), err)
		}
		first, resume = st.Instance, s
	}
	for i := first; i < len(ins); i++ {
		in := ins[i]
		cfg := r.Config()
		cfg.Resume, resume = resume, nil
		out, err := solveOne(r, in, cfg, i)
		var s *lb.Suspended
		if errors.As(err, &s) {
			return s
		}
		if err != nil {
			return fmt.Errorf("%s: %w", in.Label, err)
		}
		if err := r.Print(out, func(w io.Writer) error { return write(w, r, out) }); err != nil {
			return err
		}
		if in.Korf > 0 && out.Length != in.Table.Optimal && mismatch == nil {
			table := "Korf's table"
			if f := r.Context.String("data"); f != "" {
				table = "the table of --data " + f
			}
			mismatch = fmt.Errorf("%s: length %d, %s says %d", in.Label, out.Length, table, in.Table.Optimal)
		}
	}
	return r.Verdict(mismatch) // every rank's, alike
}

// solveOne solves one instance, the index-th of the command's, with the
// flags' balancer; collective unless the balancer is seq.
func solveOne(r *runner.Run, in instance, cfg lb.Config, index int) (output, error) {
	out := output{Header: r.Header(), FastInit: r.FastInit() && !r.Seq(), Instance: in.Label, Start: in.Start.String()}
	if in.Korf > 0 {
		out.TableLength, out.TableNodes = in.Table.Optimal, in.Table.Nodes
	}
	start := time.Now()
	var res parallel.Result
	if r.Seq() {
		s, err := puzzle.Solve(in.Start)
		if err != nil {
			return out, err
		}
		res = parallel.FromSequential(s)
	} else {
		p, o, err := parallel.SolveNumbered(r.World, in.Start, cfg, index, in.Near)
		if err != nil {
			return out, err
		}
		res, out.outcome = p, o
	}
	out.Seconds = time.Since(start).Seconds()
	for i := range res.Iterations {
		st := &res.Iterations[i]
		if st.Failed {
			st.Certificate = parallel.Certify(in.Start, *st)
		}
		out.ReplayedNodes += st.Replayed
	}
	out.Nodes, out.Length, out.Moves, out.Iterations = res.Nodes, res.Length, puzzle.FormatMoves(res.Moves), res.Iterations
	out.FailingNodes, out.Certificate, out.NodesVary = res.FailingNodes(), res.Certificate(in.Start), true
	out.Stats = r.StatsOf(out.outcome)
	var err error
	out.Report, err = r.ReportNodes(out.outcome, out.Nodes) // the root counted, as -b seq counts it
	return out, err
}

// write prints one instance's output for humans.
func write(w io.Writer, r *runner.Run, out output) error {
	if r.Quiet {
		_, err := fmt.Fprintln(w, strings.TrimSpace(fmt.Sprint(out.Length, " ", out.Moves)))
		return err
	}
	fmt.Fprintf(w, "fifteen: %s: %s\n", out.Instance, out.Start)
	fmt.Fprintf(w, "optimal length %d", out.Length)
	if out.TableLength > 0 {
		fmt.Fprintf(w, " (table: %d)", out.TableLength)
	}
	if out.Length == 0 {
		fmt.Fprintf(w, "\nmoves: none, the board is solved\n")
	} else {
		fmt.Fprintf(w, "\nmoves: %s\n", out.Moves)
	}
	fmt.Fprintf(w, "%10s %14s %10s\n", "threshold", "nodes", "seconds")
	for _, st := range out.Iterations {
		status := "solved (nodes vary: the first solution found stops it)"
		if st.Failed {
			status = "failed, certificate " + st.Certificate
		}
		fmt.Fprintf(w, "%10d %14d %10.4f  %s\n", st.Threshold, st.Nodes, st.Seconds, status)
	}
	fmt.Fprintf(w, "failing iterations: %d nodes, certificate %s (exhaustive: the same on any ranks, balancer and world)\n",
		out.FailingNodes, out.Certificate)
	if out.ReplayedNodes > 0 {
		fmt.Fprintf(w, "replayed nodes: %d (split overhead, not in nodes)\n", out.ReplayedNodes)
	}
	fmt.Fprintf(w, "nodes: %d", out.Nodes)
	if out.TableNodes > 0 {
		fmt.Fprintf(w, " (table, sequential: %d)", out.TableNodes)
	}
	fmt.Fprintf(w, "  time: %.3f s  ranks: %d  balancer: %s  world: %s\n", out.Seconds, out.Ranks, out.Balancer, out.World)
	runner.PrintReport(w, out.Report)
	if r.Common.Stats {
		runner.PrintStats(w, out.outcome)
	}
	_, err := fmt.Fprintln(w)
	return err
}
