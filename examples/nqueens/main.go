// Command nqueens counts the solutions of the n-queens problem in parallel,
// with any of treelb's load balancers, in any of its worlds: an example of
// an app written outside the treelb module against its public API, the
// search with package skeleton (queens.go) and the command with package
// runner (this file).
package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/skeleton"
)

func main() { runner.Main(newApp()) }

func newApp() *cli.App {
	return &cli.App{
		Name: "nqueens", Usage: "count the solutions of the n-queens problem", ArgsUsage: "N",
		Flags: runner.Flags(),
		Action: runner.Action(runner.Spec[int]{App: "nqueens", Read: read, Solve: solve, Resumable: true,
			Sample: func(n int) (lb.App, error) { return count(n).NewApp(), nil }}),
	}
}

// read parses the board size, the one argument.
func read(c *cli.Context, _ runner.Common) (int, error) {
	n, err := strconv.Atoi(c.Args().First())
	if c.NArg() != 1 || err != nil || n < 1 || n > maxN {
		return 0, runner.Usagef("need one board size N, 1 ≤ N ≤ %d (see --help)", maxN)
	}
	return n, nil
}

// output is the JSON record.
type output struct {
	runner.Header
	N         int           `json:"n"`
	Solutions int64         `json:"solutions"`
	Nodes     int64         `json:"nodes"`
	Seconds   float64       `json:"seconds"`
	Stats     *runner.Stats `json:"stats,omitempty"`
	runner.Report
}

func solve(r *runner.Run, n int) error {
	start := time.Now()
	var got skeleton.Count[int64]
	var o *lb.Outcome
	var err error
	if r.Seq() {
		got = count(n).Sequential()
	} else if got, o, err = lb.Run(r.World, r.Config(), count(n).NewApp); err != nil {
		return err
	}
	out := output{Header: r.Header(), N: n, Solutions: got.Value, Nodes: got.Nodes,
		Seconds: time.Since(start).Seconds(), Stats: r.StatsOf(o)}
	if out.Report, err = r.Report(o); err != nil {
		return err
	}
	return r.Print(out, func(w io.Writer) error {
		if r.Quiet {
			fmt.Fprintln(w, got.Value, got.Nodes)
			return nil
		}
		fmt.Fprintf(w, "%d-queens: %d solutions, %d nodes\n", n, got.Value, got.Nodes)
		fmt.Fprintf(w, "time: %.3f s  ranks: %d  balancer: %s  world: %s\n", out.Seconds, out.Ranks, out.Balancer, out.World)
		runner.PrintReport(w, out.Report)
		if r.Common.Stats {
			runner.PrintStats(w, o)
		}
		return nil
	})
}
