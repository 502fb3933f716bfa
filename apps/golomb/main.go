// Command golomb finds a shortest Golomb ruler with MARKS marks and proves
// it optimal, sequentially or with a load balancer on many ranks: goroutines
// in the default build (--np), MPI processes when built with -tags mpi and
// started by mpirun or srun.
package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/golomb/ruler"
	"github.com/treelb/treelb/internal/cmdutil"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

func main() {
	cmdutil.Main(&cli.App{
		Name:      "golomb",
		Usage:     "find a shortest Golomb ruler with MARKS marks and prove it optimal",
		ArgsUsage: "MARKS",
		Flags: append(cmdutil.Flags(),
			&cli.IntFlag{Name: "count", Usage: "instead, count the rulers of length ≤ `L` (exhaustive; same nodes under every balancer)"}),
		Action: run,
	})
}

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
}

func run(c *cli.Context) error {
	cm, err := cmdutil.Parse(c)
	if err != nil {
		return err
	}
	if c.NArg() != 1 {
		return cmdutil.Usagef("need exactly one argument, MARKS (see --help)")
	}
	n, err := strconv.Atoi(c.Args().First())
	if err != nil || n < 2 || n > ruler.MaxMarks {
		return cmdutil.Usagef("MARKS must be a whole number from 2 to %d, got %q", ruler.MaxMarks, c.Args().First())
	}
	countLen := c.Int("count")
	if c.IsSet("count") && (countLen < 1 || countLen > ruler.MaxLength) {
		return cmdutil.Usagef("--count %d: need a length from 1 to %d", countLen, ruler.MaxLength)
	}
	return cm.Run(func(comm *mpi.Comm) error {
		if cm.Balancer == cmdutil.Seq && comm.Rank() != 0 {
			return nil
		}
		out := output{Header: cm.Header("golomb", comm), Marks: n}
		var stats *lb.Outcome
		start := time.Now()
		search := func(m int) ([]ruler.Step, error) {
			if cm.Balancer == cmdutil.Seq {
				return ruler.Solve(m)
			}
			steps, o, err := ruler.SolveParallel(comm, m, cm.Balancer, cm.Options, cm.Config())
			stats = o
			return steps, err
		}
		if c.IsSet("count") {
			steps, err := search(n - 1)
			if err != nil {
				return err
			}
			g := make([]int, n)
			for _, s := range steps {
				g[s.Marks] = s.Ruler[s.Marks-1]
			}
			var res ruler.Outcome
			if cm.Balancer == cmdutil.Seq {
				p, err := ruler.NewProblem(n, g, ruler.Count, countLen)
				if err != nil {
					return err
				}
				t := p.Root()
				for !t.Empty() {
					t.Work(1 << 62)
				}
				res = ruler.DecodeResult(p.Result(), n)
			} else if res, stats, err = ruler.CountParallel(comm, n, g, countLen, cm.Balancer, cm.Options, cm.Config()); err != nil {
				return err
			}
			out.CountUpTo, out.Rulers, out.Nodes = countLen, res.Solutions, res.Nodes
		} else {
			steps, err := search(n)
			if err != nil {
				return err
			}
			last := steps[len(steps)-1]
			out.Ruler, out.Length, out.Steps = last.Ruler, last.Ruler[n-1], steps
			for _, s := range steps {
				out.Nodes += s.Nodes
			}
		}
		out.Seconds = time.Since(start).Seconds()
		if comm.Rank() != 0 {
			return nil
		}
		if cm.Stats {
			out.Stats = cmdutil.NewStats(stats)
		}
		w := c.App.Writer
		switch {
		case cm.JSON:
			return cmdutil.WriteJSON(w, out)
		case cm.Quiet && out.CountUpTo > 0:
			fmt.Fprintln(w, out.Rulers)
		case cm.Quiet:
			fmt.Fprintln(w, join(out.Ruler))
		default:
			if out.CountUpTo > 0 {
				fmt.Fprintf(w, "golomb: %d rulers with %d marks and length ≤ %d (mirror images counted once)\n", out.Rulers, n, countLen)
			} else {
				fmt.Fprintf(w, "golomb: %d marks, optimal length %d\nruler: %s\n", n, out.Length, join(out.Ruler))
			}
			fmt.Fprintf(w, "nodes: %d  time: %.3f s  ranks: %d  balancer: %s  world: %s\n",
				out.Nodes, out.Seconds, out.Ranks, out.Balancer, out.World)
			if cm.Stats {
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
