package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/golomb/ruler"
	"github.com/treelb/treelb/cert"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
)

func main() { runner.Main(newApp()) }

func newApp() *cli.App {
	return &cli.App{
		Name:      "golomb",
		Usage:     "find a shortest Golomb ruler with MARKS marks and prove it optimal",
		ArgsUsage: "MARKS",
		Description: `Finds a shortest ruler with MARKS marks (2 to 19) by branch-and-bound, one search per
number of marks from 2 up (each bounds the next), and proves it optimal; its
nodes depend on the balancer, the ranks and the schedule (nodes_vary).
With --count L it counts the rulers of length at most L instead (mirror
images once), pruned with the optimal lengths of shorter rulers from the
table of known rulers (--prove-bounds: found by branch-and-bound first,
reported apart): an exhaustive search whose nodes and certificate are the
same on every run of the instance, whatever the balancer, ranks, world and
restarts (docs/counts.md).

--json prints one JSON object with app, balancer, ranks, world, marks,
seconds, nodes, certificate (with --count), replayed_nodes (frames rebuilt by
splits and decoded tasks, never in nodes), nodes_vary, and length and ruler,
or count_up_to, rulers and bounds ("table" or "proved"); steps (each search
of the shortest rulers, with its nodes), and with --prove-bounds
steps_seconds; messages by kind
under a balancer, stats with --stats, and in --world sim the simulator's
report.

Exit status: 0 on success; 2 for bad flags or input (MARKS not a whole
number from 2 to 19, --count outside 1..255, --prove-bounds without
--count); 1 for any other error.
` + runner.ExitStatusHelp,
		Flags: append(runner.Flags(),
			&cli.IntFlag{Name: "count", Usage: "instead, count the rulers of length ≤ `L`, pruned with the known optimal lengths of shorter rulers: exhaustive, so nodes and the certificate are the same on any --np, balancer, world and restart"},
			&cli.BoolFlag{Name: "prove-bounds", Usage: "with --count: find and prove the optimal lengths of the shorter rulers by branch-and-bound first (reported apart as steps, never in nodes) instead of taking them from the table of known optimal rulers"}),
		Action: runner.Action(runner.Spec[instance]{App: "golomb", Read: read, Solve: solve, Sample: sample, Resumable: true,
			NodeCosts: ruler.NodeCosts()}),
	}
}

// sample is the task --calibrate times: the search for a shortest ruler
// with the instance's marks, bounded by its known length.
func sample(in instance) (lb.App, error) {
	known, err := ruler.Known()
	if err != nil {
		return nil, err
	}
	g, err := ruler.KnownBounds(in.Marks)
	if err != nil {
		return nil, err
	}
	p, err := ruler.NewProblem(in.Marks, g, ruler.Shortest, known[in.Marks][in.Marks-1])
	if err != nil {
		return nil, err
	}
	return p, nil
}

// instance is what to search for; it travels from rank 0 to the others.
type instance struct {
	Marks int
	Count int // count the rulers up to this length; 0: find a shortest
	// ProveBounds: with Count, find the optimal lengths of the shorter
	// rulers by branch-and-bound first instead of reading the table.
	ProveBounds bool
}

func read(c *cli.Context, cm runner.Common) (instance, error) {
	if c.NArg() != 1 {
		return instance{}, runner.Usagef("need exactly one argument, MARKS (see --help)")
	}
	n, err := strconv.Atoi(c.Args().First())
	if err != nil || n < 2 || n > ruler.MaxMarks {
		return instance{}, runner.Usagef("MARKS must be a whole number from 2 to %d, got %q", ruler.MaxMarks, c.Args().First())
	}
	in := instance{Marks: n}
	if c.IsSet("count") {
		if in.Count = c.Int("count"); in.Count < 1 || in.Count > ruler.MaxLength {
			return instance{}, runner.Usagef("--count %d: need a length from 1 to %d", in.Count, ruler.MaxLength)
		}
	}
	if in.ProveBounds = c.Bool("prove-bounds"); in.ProveBounds && in.Count == 0 {
		return instance{}, runner.Usagef("--prove-bounds: only with --count L")
	}
	if n >= longMarks && in.Count == 0 {
		warnLong(c.App.ErrWriter, n, max(cm.NP, 1))
	}
	return in, nil
}

// longMarks is where a search takes days: the command warns from here on.
const longMarks = 17

// warnLong tells the user, on rank 0 before the search starts, how long a
// search for marks marks will roughly take on ranks ranks.
func warnLong(w io.Writer, marks, ranks int) {
	cpu := time.Duration(ruler.RoughNodes(marks) * nsPerNode)
	fmt.Fprintf(w, "golomb: warning: %d marks is a very long search: roughly %s of CPU time at %.0f ns a node"+
		" (ten times more per mark; 13 marks take about %s), so at best %s on %d ranks\n",
		marks, roughDuration(cpu), nsPerNode, roughDuration(time.Duration(ruler.RoughNodes(13)*nsPerNode)),
		roughDuration(cpu/time.Duration(ranks)), ranks)
}

// nsPerNode is the sequential search's cost per node on a 2020s core.
const nsPerNode = 15.0

// roughDuration prints d in the largest sensible unit.
func roughDuration(d time.Duration) string {
	switch h := d.Hours(); {
	case h >= 24*365:
		return fmt.Sprintf("%.0f years", h/24/365)
	case h >= 48:
		return fmt.Sprintf("%.0f days", h/24)
	case h >= 2:
		return fmt.Sprintf("%.0f hours", h)
	default:
		return d.Round(time.Second).String()
	}
}

// output is the JSON object the command prints. With --count, Seconds,
// Nodes, Stats and the Report are the counting search's alone; the steps
// of --prove-bounds report their own nodes and time.
type output struct {
	runner.Header
	Marks   int     `json:"marks"`
	Seconds float64 `json:"seconds"`
	Nodes   int64   `json:"nodes"`
	runner.Count
	Length    int    `json:"length,omitempty"`
	Ruler     []int  `json:"ruler,omitempty"`
	CountUpTo int    `json:"count_up_to,omitempty"`
	Rulers    *int64 `json:"rulers,omitempty"` // --count: the number found, 0 included
	Bounds    string `json:"bounds,omitempty"` // --count: "table" or "proved" (--prove-bounds)
	// Steps are the searches for the shortest rulers: the answer's, or
	// with --prove-bounds those of the bounds, before the count.
	Steps        []ruler.Step  `json:"steps,omitempty"`
	StepsSeconds float64       `json:"steps_seconds,omitempty"` // --prove-bounds: their wall time
	Stats        *runner.Stats `json:"stats,omitempty"`
	runner.Report
}

// certificate returns the certificate of a count (package cert): the
// instance, the nodes, the digest of the rulers found and their number.
func certificate(marks, maxLen int, o ruler.Outcome) string {
	return cert.New(fmt.Sprintf("golomb --count %d %d", maxLen, marks), o.Nodes, o.Digest, uint64(o.Solutions)).String()
}

// suspendCount records in the error of a suspended count the steps done
// before it (ruler.State, the one state of a suspended golomb search; a
// suspended search for the shortest rulers records its own).
func suspendCount(err error, steps []ruler.Step) error {
	var s *lb.Suspended
	if !errors.As(err, &s) {
		return err
	}
	var e error
	if s.State, e = (ruler.State{Counting: true, Steps: steps}).MarshalBinary(); e != nil {
		return e
	}
	return s
}

// decodePhase decodes and checks the State of a suspended golomb search of
// in; its errors match lb.ErrBadState (a malformed checkpoint).
func decodePhase(state []byte, in instance) (ruler.State, error) {
	ph, err := ruler.DecodeState(state)
	if err != nil {
		return ph, err
	}
	if ph.Counting != (in.Count > 0) && ph.Counting {
		return ph, fmt.Errorf("%w: golomb: a count's checkpoint, but no --count", lb.ErrBadState)
	}
	if ph.Counting && !in.ProveBounds && len(ph.Steps) != 0 {
		return ph, fmt.Errorf("%w: golomb: %d steps before a count bounded by the table", lb.ErrBadState, len(ph.Steps))
	}
	if ph.Counting && in.ProveBounds {
		// The steps bound the count: they must be the shortest rulers of
		// 1 … MARKS−1 marks, as SolveFrom checks its own.
		if len(ph.Steps) != in.Marks-1 {
			return ph, fmt.Errorf("%w: golomb: %d steps before the count of %d marks", lb.ErrBadState, len(ph.Steps), in.Marks)
		}
		for i, s := range ph.Steps {
			if s.Marks != i+1 || len(s.Ruler) != s.Marks || !ruler.Valid(s.Ruler) {
				return ph, fmt.Errorf("%w: golomb: step %d is not a ruler of %d marks", lb.ErrBadState, i+1, i+1)
			}
		}
	}
	return ph, nil
}

func solve(r *runner.Run, in instance) error {
	// A resumed run continues the phase it was suspended in.
	var resumed ruler.State
	resume := r.Resume()
	if resume != nil {
		var err error
		if resumed, err = decodePhase(resume.State, in); err != nil {
			return err
		}
	}
	// search runs the steps of the shortest rulers up to m marks.
	search := func(m int) ([]ruler.Step, *lb.Outcome, error) {
		if r.Seq() {
			steps, err := ruler.Solve(m)
			return steps, nil, err
		}
		cfg := r.Config()
		if resumed.Counting {
			cfg.Resume = nil
		}
		return ruler.SolveParallel(r.World, m, cfg)
	}
	if in.Count > 0 {
		return count(r, in, resumed, search)
	}
	start := time.Now()
	steps, stats, err := search(in.Marks)
	if err != nil {
		return err
	}
	return printShortest(r, in, steps, stats, time.Since(start))
}

// printShortest prints the shortest ruler of in.Marks marks, the last of
// steps, found in took. A function of its own, so that its output is not
// in solve's frame during the search: every rank of the embedded world is
// a goroutine, whose stack must stay within 8 KB (TestRankStack).
//
//go:noinline
func printShortest(r *runner.Run, in instance, steps []ruler.Step, stats *lb.Outcome, took time.Duration) error {
	out := output{Header: r.Header(), Marks: in.Marks, Count: runner.Count{NodesVary: true}}
	last := steps[len(steps)-1]
	out.Ruler, out.Length, out.Steps = last.Ruler, last.Ruler[in.Marks-1], steps
	for _, s := range steps {
		out.Nodes += s.Nodes
		out.ReplayedNodes += s.Replayed
	}
	out.Seconds = took.Seconds()
	return printOut(r, in, out, stats)
}

// count counts the rulers of in, bounded by the optimal lengths of the
// shorter rulers: the table's, or with --prove-bounds those that the
// steps of search find first (checked against the table). Its nodes are
// the counting search's alone.
func count(r *runner.Run, in instance, resumed ruler.State, search func(int) ([]ruler.Step, *lb.Outcome, error)) error {
	out := output{Header: r.Header(), Marks: in.Marks, CountUpTo: in.Count, Bounds: "table"}
	g, err := ruler.KnownBounds(in.Marks)
	if err != nil {
		return err
	}
	steps := resumed.Steps
	if in.ProveBounds {
		out.Bounds = "proved"
		if !resumed.Counting {
			t0 := time.Now()
			if steps, _, err = search(in.Marks - 1); err != nil {
				return err
			}
			out.StepsSeconds = time.Since(t0).Seconds()
		}
		for _, s := range steps {
			if s.Marks < 2 || s.Marks >= in.Marks || len(s.Ruler) != s.Marks {
				continue // one mark: no search; SolveFrom checked the rest
			}
			if got := s.Ruler[s.Marks-1]; got != g[s.Marks] {
				return fmt.Errorf("golomb: the proved optimal length of %d marks is %d, the table of known rulers says %d", s.Marks, got, g[s.Marks])
			}
		}
	}
	start := time.Now()
	var res ruler.Outcome
	var stats *lb.Outcome
	if r.Seq() {
		if res, err = ruler.CountRulers(in.Marks, g, in.Count); err != nil {
			return err
		}
	} else {
		cfg := r.Config()
		if !resumed.Counting {
			cfg.Resume = nil
		}
		if res, stats, err = ruler.CountParallel(r.World, in.Marks, g, in.Count, cfg); err != nil {
			return suspendCount(err, steps)
		}
	}
	out.Seconds = time.Since(start).Seconds()
	out.Rulers, out.Nodes, out.Steps = &res.Solutions, res.Nodes, steps
	out.Certificate, out.ReplayedNodes = certificate(in.Marks, in.Count, res), res.Replayed
	return printOut(r, in, out, stats)
}

// printOut prints the output of a run whose balancer statistics are stats
// (nil under seq).
func printOut(r *runner.Run, in instance, out output, stats *lb.Outcome) error {
	out.Stats = r.StatsOf(stats)
	var err error
	if out.Report, err = r.Report(stats); err != nil {
		return err
	}
	return r.Print(out, func(w io.Writer) error {
		switch {
		case r.Quiet && out.CountUpTo > 0:
			fmt.Fprintln(w, *out.Rulers)
		case r.Quiet:
			fmt.Fprintln(w, join(out.Ruler))
		default:
			if out.CountUpTo > 0 {
				noun := "rulers"
				if *out.Rulers == 1 {
					noun = "ruler"
				}
				fmt.Fprintf(w, "golomb: %d %s with %d marks and length ≤ %d (mirror images counted once)\n", *out.Rulers, noun, in.Marks, in.Count)
				if in.ProveBounds {
					var n int64
					for _, s := range out.Steps {
						n += s.Nodes
					}
					fmt.Fprintf(w, "bounds: the optimal lengths of 2..%d marks proved by branch-and-bound first: %d nodes, %.3f s (not in the count's nodes)\n",
						in.Marks-1, n, out.StepsSeconds)
				}
			} else {
				fmt.Fprintf(w, "golomb: %d marks, optimal length %d\nruler: %s\n", in.Marks, out.Length, join(out.Ruler))
			}
			fmt.Fprintf(w, "nodes: %d  time: %.3f s  ranks: %d  balancer: %s  world: %s\n",
				out.Nodes, out.Seconds, out.Ranks, out.Balancer, out.World)
			runner.PrintCount(w, out.Count)
			runner.PrintReport(w, out.Report)
			if r.Common.Stats {
				runner.PrintStats(w, stats)
			}
		}
		return nil
	})
}

func join(marks []int) string {
	s := make([]string, len(marks))
	for i, m := range marks {
		s[i] = strconv.Itoa(m)
	}
	return strings.Join(s, " ")
}
