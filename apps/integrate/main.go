package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/integrate/alphatree"
	"github.com/treelb/treelb/apps/integrate/quad"
	"github.com/treelb/treelb/runner"
)

func main() { runner.Main(newApp()) }

const description = `The workloads of seed 003 §4, each a tree whose nodes any rank may expand:

  poly        the adaptive trapezoid rule (§4.2) on a random polynomial
              (a·(x−r₁)…(x−r_d))², or on one given by its roots
  func NAME   the same rule on a named test function with a known integral;
              'integrate func help' lists them with their exact integrals
  alpha       the synthetic α-tree (§4.1): a node at level l spawns two
              children with probability α^l

Every subcommand takes the common flags (--np, --balancer, --seed, --json,
...; see 'integrate SUBCOMMAND --help'), anywhere on the command line. --seed
seeds the ranks' random sources only; the workloads have their own seeds,
--poly-seed and --tree-seed, so a tree is the same whatever --seed is.

Output: the tree's nodes, leaves and height, and for integrals the value, the
exact integral and the error; --json prints one JSON object with app,
workload, balancer, ranks, world, seconds, nodes, leaves, height,
certificate (the same on every run of the instance: docs/counts.md),
replayed_nodes (intervals evaluated again: decoded from tasks that travelled,
or split in place by the root's fast initialisation or static placement), nodes_vary
(false) and, for
integrals, value, exact, error, finite, integrand, interval, theta_a, theta_r,
rule, threshold, or for α-trees alpha, tree_seed, digest, expected_nodes
(in --world sim the simulator's report: machine, virtual_seconds,
work_virtual_seconds (with --seq-nodes also seq_nodes, seq_virtual_seconds,
speedup, efficiency, search_overhead), busy_fraction, last_work_seconds,
events, events_per_second, sim_seconds (the simulator's real time); messages
by kind under a balancer; stats with --stats). The tree, the value, the digest and the
certificate are the same, bit for bit, under every balancer and number of
ranks and after restarts: the leaves are summed exactly.

Exit status: 0 on success; 2 for bad flags or input (θ_a or θ_r not a finite
positive number, α outside (0, 1), a degree outside 0..100, an interval that
is not two finite numbers a < b, a malformed list, an unknown function, an
integrand that is not finite at the ends); 1 for any other error.
` + runner.ExitStatusHelp

// defaultBudget is the command's work slice. Its trees are small (10³ to
// 10⁶ nodes at the seed's parameters) and cheap (25 ns a node of an α-tree,
// 40 to 200 a trapezoid), so lb's 10⁴ would often leave a whole tree to one
// slice of one rank. Slices of 10³ nodes last 25 to 200 µs, a hundred
// Iprobes or more; on an α-tree of 2.5·10⁶ nodes (α = 0.98) at P = 1 the
// medians of nine runs were 0.110 s with 10³, 0.123 s with 10⁴ and 0.122 s
// sequential (load average 7 on 2 cores): no cost that shows.
const defaultBudget = 1000

// commonFlags returns the common flags with the command's default budget.
func commonFlags() []cli.Flag {
	flags := runner.Flags()
	for _, f := range flags {
		if b, ok := f.(*cli.Int64Flag); ok && b.Name == "budget" {
			b.Value = defaultBudget
		}
	}
	return flags
}

// integralFlags are the flags of the trapezoid rule, shared by poly and
// func.
func integralFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "theta-a", Value: 1e-10, Usage: "accuracy threshold `θ_a` > 0: a node [a,b] halts when its halves' trapezoids differ from its own by less than θ_a (absolute rule) or θ_a·S (relative rule); the seed uses 1e-6, 1e-8, 1e-10"},
		&cli.Float64Flag{Name: "theta-r", Value: quad.SeedThetaR, Usage: "resolution threshold `θ_r` > 0: a node narrower than 2θ_r halts (the seed's 1e-10)"},
		&cli.StringFlag{Name: "rule", Value: quad.Absolute.String(), Usage: "the accuracy test: 'absolute' (the default, seed 003's rule) compares with θ_a itself; 'relative' compares with θ_a·S, S ≈ ∫|f| over the interval (a 1024-panel trapezoid estimate), for integrands far from 1 in size: under the absolute rule a random polynomial of high degree, whose integral is tiny, is its root alone"},
		&cli.StringFlag{Name: "interval", Value: "0,1", Usage: "integrate over [a, b], given as `a,b` with a < b"},
	}
}

func newApp() *cli.App {
	return &cli.App{
		Name:        "integrate",
		Usage:       "adaptive trapezoid integration and synthetic α-trees (seed 003 §4), in parallel with a load balancer",
		UsageText:   "integrate poly|func NAME|alpha [flags]",
		Description: description,
		Action: func(c *cli.Context) error {
			if c.Args().First() == "help" {
				return cli.ShowAppHelp(c)
			}
			if c.NArg() == 0 {
				return runner.Usagef("need a subcommand: poly, func or alpha (see --help)")
			}
			return runner.Usagef("unknown subcommand %q: need poly, func or alpha (see --help)", c.Args().First())
		},
		Commands: []*cli.Command{
			{
				Name:  "poly",
				Usage: "integrate a random polynomial of seed 003 §4.2, or one given by its roots",
				Description: fmt.Sprintf(`The integrand is f(x) = (a·(x−r₁)(x−r₂)…(x−r_d))², evaluated in this product form.
By default it is the random polynomial of --poly-seed, drawn as in seed 003:
a degree d uniform in 0..%d, a factor a uniform in 1..%d and d roots uniform
in [0, 1), the same on every machine; --degree fixes d. --roots gives the
roots instead (at most %d, any finite numbers) and --factor the factor a.
The exact integral (the polynomial expanded in integers) is printed beside
the computed one.`, quad.MaxDegree, quad.MaxFactor, quad.MaxDegree),
				Flags: append(append(commonFlags(), integralFlags()...),
					&cli.Uint64Flag{Name: "poly-seed", Value: 1, Usage: "draw the random polynomial from seed `N` (not --seed, which seeds the ranks)"},
					&cli.IntFlag{Name: "degree", DefaultText: "drawn from --poly-seed", Usage: fmt.Sprintf("fix the random polynomial's degree `d`, 0..%d", quad.MaxDegree)},
					&cli.StringFlag{Name: "roots", Usage: "instead of a random polynomial, the one with roots `r1,r2,...`"},
					&cli.Float64Flag{Name: "factor", Value: 1, Usage: "with --roots, the factor `a`"}),
				Before: runner.NoArgs,
				Action: runner.Action(runner.Spec[integral]{App: "integrate", Read: readPoly, Solve: solveIntegral, Resumable: true}),
			},
			{
				Name:      "func",
				Usage:     "integrate a named test function with a known integral ('integrate func help' lists them)",
				ArgsUsage: "NAME|help",
				Flags:     append(commonFlags(), integralFlags()...),
				Action:    runner.Action(runner.Spec[integral]{App: "integrate", Read: readFunc, Solve: solveIntegral, Resumable: true}),
			},
			{
				Name:  "alpha",
				Usage: "expand the synthetic α-tree of seed 003 §4.1",
				Description: fmt.Sprintf(`A node at level l spawns two children with probability α^l, the root at
level 0. A node's random number comes from --tree-seed and the node's path,
so the tree is the same whichever rank expands which node; its digest (the
sum of the nodes' hashes) shows that the very same nodes were expanded.
Expected size: %.2g nodes at α = 0.96, %.2g at 0.97, %.2g at 0.98, %.2g at 0.99.`,
					alphatree.ExpectedNodes(0.96), alphatree.ExpectedNodes(0.97), alphatree.ExpectedNodes(0.98), alphatree.ExpectedNodes(0.99)),
				Flags: append(commonFlags(),
					&cli.Float64Flag{Name: "alpha", Value: alphatree.SeedAlphas()[0], Usage: "`α`, 0 < α < 1; the seed uses 0.96, 0.965, 0.97"},
					&cli.Uint64Flag{Name: "tree-seed", Value: 1, Usage: "the tree's seed `N` (not --seed, which seeds the ranks)"}),
				Before: runner.NoArgs,
				Action: runner.Action(runner.Spec[tree]{App: "integrate", Read: readAlpha, Solve: solveAlpha, Resumable: true}),
			},
		},
	}
}
