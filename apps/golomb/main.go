// Command golomb finds a shortest Golomb ruler with MARKS marks and proves
// it optimal, sequentially or with a load balancer on many ranks: goroutines
// in the default build (--np), MPI processes when built with -tags mpi and
// started by mpirun or srun, or simulated ranks (--world sim, on a machine
// model: --machine help lists them).
package main

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/golomb/ruler"
	"github.com/treelb/treelb/internal/cmdutil"
	"github.com/treelb/treelb/lb"
)

func main() { cmdutil.Main(newApp()) }

func newApp() *cli.App {
	return &cli.App{
		Name:      "golomb",
		Usage:     "find a shortest Golomb ruler with MARKS marks and prove it optimal",
		ArgsUsage: "MARKS",
		Flags: append(cmdutil.Flags(),
			&cli.IntFlag{Name: "count", Usage: "instead, count the rulers of length ≤ `L` (exhaustive; same nodes under every balancer)"}),
		Action: cmdutil.Action(cmdutil.Spec[instance]{App: "golomb", Read: read, Solve: solve, Sample: sample, Resumable: true}),
	}
}

// sample is the task --calibrate times: the search for a shortest ruler
// with the instance's marks, bounded by its known length.
func sample(in instance) (lb.Task, error) {
	known, err := ruler.Known()
	if err != nil {
		return nil, err
	}
	g := make([]int, in.Marks)
	for m := 1; m < in.Marks; m++ {
		g[m] = known[m][m-1]
	}
	p, err := ruler.NewProblem(in.Marks, g, ruler.Shortest, known[in.Marks][in.Marks-1])
	if err != nil {
		return nil, err
	}
	return p.Root(), nil
}

// instance is what to search for; it travels from rank 0 to the others.
type instance struct {
	Marks int
	Count int // count the rulers up to this length; 0: find a shortest
}

func read(c *cli.Context, cm cmdutil.Common) (instance, error) {
	if c.NArg() != 1 {
		return instance{}, cmdutil.Usagef("need exactly one argument, MARKS (see --help)")
	}
	n, err := strconv.Atoi(c.Args().First())
	if err != nil || n < 2 || n > ruler.MaxMarks {
		return instance{}, cmdutil.Usagef("MARKS must be a whole number from 2 to %d, got %q", ruler.MaxMarks, c.Args().First())
	}
	in := instance{Marks: n}
	if c.IsSet("count") {
		if in.Count = c.Int("count"); in.Count < 1 || in.Count > ruler.MaxLength {
			return instance{}, cmdutil.Usagef("--count %d: need a length from 1 to %d", in.Count, ruler.MaxLength)
		}
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

// output is the JSON object the command prints.
type output struct {
	cmdutil.Header
	Marks     int            `json:"marks"`
	Seconds   float64        `json:"seconds"`
	Nodes     int64          `json:"nodes"`
	Length    int            `json:"length,omitempty"`
	Ruler     []int          `json:"ruler,omitempty"`
	CountUpTo int            `json:"count_up_to,omitempty"`
	Rulers    int64          `json:"rulers,omitempty"`
	Steps     []ruler.Step   `json:"steps,omitempty"`
	Stats     *cmdutil.Stats `json:"stats,omitempty"`
	cmdutil.Report
}

// phase is the State of a suspended golomb search: the shortest rulers'
// steps (Inner, ruler.SolveParallel's State), or with --count the count
// after the steps done.
type phase struct {
	Counting bool
	Steps    []ruler.Step // Counting: the steps before the count
	Inner    []byte       // !Counting: the steps' own state
}

// suspend puts the phase in the State of a suspended search's error.
func suspend(err error, ph phase) error {
	var s *lb.Suspended
	if !errors.As(err, &s) {
		return err
	}
	if !ph.Counting {
		ph.Inner = s.State
	}
	var b bytes.Buffer
	if e := gob.NewEncoder(&b).Encode(ph); e != nil {
		return fmt.Errorf("golomb: %w", e)
	}
	s.State = b.Bytes()
	return s
}

// decodePhase decodes and checks the State of a suspended golomb search of
// in; its errors match lb.ErrBadState (a malformed checkpoint).
func decodePhase(state []byte, in instance) (phase, error) {
	var ph phase
	if err := gob.NewDecoder(bytes.NewReader(state)).Decode(&ph); err != nil {
		return ph, fmt.Errorf("%w: golomb: %w", lb.ErrBadState, err)
	}
	if ph.Counting != (in.Count > 0) && ph.Counting {
		return ph, fmt.Errorf("%w: golomb: a count's checkpoint, but no --count", lb.ErrBadState)
	}
	if ph.Counting {
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

func solve(r *cmdutil.Run, in instance) error {
	out := output{Header: r.Header(), Marks: in.Marks}
	var stats *lb.Outcome
	start := time.Now()
	// A resumed run continues the phase it was suspended in.
	var resumed phase
	resume := r.Resume()
	if resume != nil {
		var err error
		if resumed, err = decodePhase(resume.State, in); err != nil {
			return err
		}
	}
	search := func(m int) ([]ruler.Step, error) {
		if r.Seq() {
			return ruler.Solve(m)
		}
		cfg := r.Config()
		cfg.Resume = nil
		if resume != nil && !resumed.Counting {
			inner := *resume
			inner.State = resumed.Inner
			cfg.Resume = &inner
		}
		steps, o, err := ruler.SolveParallel(r.World, m, cfg)
		stats = o
		return steps, suspend(err, phase{})
	}
	if in.Count > 0 {
		// The counting search is bounded by the optimal lengths of the
		// rulers with fewer marks, which the solver finds first.
		steps := resumed.Steps
		if !resumed.Counting {
			var err error
			if steps, err = search(in.Marks - 1); err != nil {
				return err
			}
		} else {
			stats = new(lb.Outcome)
		}
		g := make([]int, in.Marks)
		for _, s := range steps {
			g[s.Marks] = s.Ruler[s.Marks-1]
		}
		var res ruler.Outcome
		var err error
		if r.Seq() {
			if res, err = ruler.CountRulers(in.Marks, g, in.Count); err != nil {
				return err
			}
		} else {
			cfg := r.Config()
			if !resumed.Counting {
				cfg.Resume = nil
			}
			var o *lb.Outcome
			res, o, err = ruler.CountParallel(r.World, in.Marks, g, in.Count, cfg)
			if err != nil {
				return suspend(err, phase{Counting: true, Steps: steps})
			}
			stats.Add(o)
		}
		out.CountUpTo, out.Rulers, out.Nodes, out.Steps = in.Count, res.Solutions, res.Nodes, steps
		for _, s := range steps {
			out.Nodes += s.Nodes
		}
	} else {
		steps, err := search(in.Marks)
		if err != nil {
			return err
		}
		last := steps[len(steps)-1]
		out.Ruler, out.Length, out.Steps = last.Ruler, last.Ruler[in.Marks-1], steps
		for _, s := range steps {
			out.Nodes += s.Nodes
		}
	}
	out.Seconds = time.Since(start).Seconds()
	out.Stats = r.StatsOf(stats)
	var err error
	if out.Report, err = r.Report(stats); err != nil {
		return err
	}
	return r.Print(out, func(w io.Writer) error {
		switch {
		case r.Quiet && out.CountUpTo > 0:
			fmt.Fprintln(w, out.Rulers)
		case r.Quiet:
			fmt.Fprintln(w, join(out.Ruler))
		default:
			if out.CountUpTo > 0 {
				fmt.Fprintf(w, "golomb: %d rulers with %d marks and length ≤ %d (mirror images counted once)\n", out.Rulers, in.Marks, in.Count)
			} else {
				fmt.Fprintf(w, "golomb: %d marks, optimal length %d\nruler: %s\n", in.Marks, out.Length, join(out.Ruler))
			}
			fmt.Fprintf(w, "nodes: %d  time: %.3f s  ranks: %d  balancer: %s  world: %s\n",
				out.Nodes, out.Seconds, out.Ranks, out.Balancer, out.World)
			cmdutil.PrintReport(w, out.Report)
			if r.Common.Stats {
				cmdutil.PrintStats(w, stats)
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
