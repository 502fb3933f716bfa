package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/integrate/alphatree"
	"github.com/treelb/treelb/apps/integrate/quad"
	"github.com/treelb/treelb/runner"
)

// integral is an integration to run, from poly or func; it travels from
// rank 0 to the others, which build the same problem from it.
type integral struct {
	Workload string // "poly" or "func"
	List     bool   // func help: list the named functions
	Func     string // func: the function's name
	// poly: the random polynomial of PolySeed (degree Degree, or drawn
	// when Degree < 0), or the one of Roots and Factor when Given.
	PolySeed uint64
	Degree   int
	Given    bool
	Roots    []float64
	Factor   float64
	A, B     float64
	Opt      quad.Options
}

// tree is an α-tree to expand; it travels from rank 0 to the others.
type tree struct {
	Alpha    float64
	TreeSeed uint64
}

// integrand is the function of an integral, its description and its exact
// integral over [a, b].
type integrand struct {
	f     func(float64) float64
	desc  string
	exact func(a, b float64) float64
	poly  *quad.Poly // for poly
}

// integrand builds the integral's function.
func (in *integral) integrand() (integrand, error) {
	if in.Workload == "func" {
		fn, err := quad.LookupFunc(in.Func)
		if err != nil {
			return integrand{}, err
		}
		return integrand{f: fn.F, desc: fmt.Sprintf("%s(x) = %s", fn.Name, fn.Formula), exact: fn.Integral}, nil
	}
	var p *quad.Poly
	var err error
	var desc string
	switch {
	case in.Given:
		p, err = quad.NewPoly(in.Factor, in.Roots)
		if err == nil {
			desc = p.String()
		}
	case in.Degree >= 0:
		p, err = quad.RandomPolyDegree(in.PolySeed, in.Degree)
	default:
		p = quad.RandomPoly(in.PolySeed)
	}
	if err != nil {
		return integrand{}, err
	}
	if !in.Given {
		desc = fmt.Sprintf("random polynomial of seed %d: degree %d, factor %v", in.PolySeed, p.Degree(), p.Factor())
	}
	return integrand{f: p.Eval, desc: desc, exact: p.Integral, poly: p}, nil
}

// problem returns the integration and its integrand.
func (in *integral) problem() (*quad.Problem, integrand, error) {
	f, err := in.integrand()
	if err != nil {
		return nil, f, err
	}
	p, err := quad.New(f.f, in.A, in.B, in.Opt)
	return p, f, err
}

// readIntegral reads the flags of the trapezoid rule into in and checks
// the whole integration by building it.
func readIntegral(c *cli.Context, in integral) (integral, error) {
	var err error
	if in.A, in.B, err = parseInterval(c.String("interval")); err != nil {
		return in, err
	}
	in.Opt.ThetaA, in.Opt.ThetaR = c.Float64("theta-a"), c.Float64("theta-r")
	for _, th := range []struct {
		name string
		v    float64
	}{{"theta-a", in.Opt.ThetaA}, {"theta-r", in.Opt.ThetaR}} {
		if !(th.v > 0) || math.IsInf(th.v, 0) {
			return in, runner.Usagef("--%s %v: need a finite number > 0", th.name, th.v)
		}
	}
	if in.Opt.Rule, err = quad.ParseRule(c.String("rule")); err != nil {
		return in, runner.Usagef("--rule %q: need absolute (seed 003's) or relative", c.String("rule"))
	}
	if in.List {
		return in, nil
	}
	if _, _, err := in.problem(); err != nil {
		return in, &runner.UsageError{Err: err}
	}
	return in, nil
}

func readPoly(c *cli.Context, _ runner.Common) (integral, error) {
	in := integral{Workload: "poly", PolySeed: c.Uint64("poly-seed"), Degree: -1, Factor: 1}
	if c.IsSet("degree") {
		in.Degree = c.Int("degree")
		if in.Degree < 0 || in.Degree > quad.MaxDegree {
			return in, runner.Usagef("--degree %d: need 0..%d", in.Degree, quad.MaxDegree)
		}
	}
	switch {
	case c.IsSet("roots"):
		if c.IsSet("poly-seed") || c.IsSet("degree") {
			return in, runner.Usagef("--roots gives the polynomial: it goes without --poly-seed and --degree")
		}
		roots, err := parseList("roots", c.String("roots"))
		if err != nil {
			return in, err
		}
		if len(roots) > quad.MaxDegree {
			return in, runner.Usagef("--roots: %d roots, at most %d", len(roots), quad.MaxDegree)
		}
		in.Given, in.Roots, in.Factor = true, roots, c.Float64("factor")
		if math.IsNaN(in.Factor) || math.IsInf(in.Factor, 0) {
			return in, runner.Usagef("--factor %v: need a finite number", in.Factor)
		}
	case c.IsSet("factor"):
		return in, runner.Usagef("--factor goes with --roots: a random polynomial draws its own")
	}
	return readIntegral(c, in)
}

func readFunc(c *cli.Context, _ runner.Common) (integral, error) {
	in := integral{Workload: "func"}
	if c.NArg() != 1 {
		return in, runner.Usagef("func needs one argument, the function's NAME or help (see integrate func help)")
	}
	in.Func = c.Args().First()
	in.List = in.Func == "help"
	if _, err := quad.LookupFunc(in.Func); err != nil && !in.List {
		return in, runner.Usagef("func %s: %s", in.Func, strings.TrimPrefix(err.Error(), "quad: "))
	}
	return readIntegral(c, in)
}

func readAlpha(c *cli.Context, cm runner.Common) (tree, error) {
	in := tree{Alpha: c.Float64("alpha"), TreeSeed: c.Uint64("tree-seed")}
	if _, err := alphatree.New(in.Alpha, in.TreeSeed); err != nil {
		return in, runner.Usagef("--alpha %v: need 0 < α < 1", in.Alpha)
	}
	// A tree that no machine expands in a lifetime is finite all the same:
	// it runs, bounded or not, but the user hears what it expects.
	if n := alphatree.ExpectedNodes(in.Alpha); n > hugeTree && cm.MaxNodes == 0 && cm.TimeLimit == 0 {
		fmt.Fprintf(c.App.ErrWriter, "integrate: warning: α = %v expects about %.2g nodes (%.2g years at 10⁸ nodes a second); --max-nodes or --time-limit bounds the run\n",
			in.Alpha, n, n/1e8/3.156e7)
	}
	return in, nil
}

// hugeTree is the expected size of an α-tree past which integrate alpha
// warns: 10¹³ nodes, a day at 10⁸ nodes a second.
const hugeTree = 1e13

// parseList parses a comma-separated list of finite numbers, the value of
// the flag called name.
func parseList(name, s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, runner.Usagef("--%s: empty list", name)
	}
	parts := strings.Split(s, ",")
	out := make([]float64, len(parts))
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, runner.Usagef("--%s %q: item %d, %q, is not a finite number", name, s, i+1, p)
		}
		out[i] = x
	}
	return out, nil
}

// parseInterval parses "a,b" into a < b.
func parseInterval(s string) (a, b float64, err error) {
	ends, err := parseList("interval", s)
	if err != nil {
		return 0, 0, err
	}
	if len(ends) != 2 {
		return 0, 0, runner.Usagef("--interval %q: need two numbers a,b", s)
	}
	if a, b = ends[0], ends[1]; !(a < b) {
		return 0, 0, runner.Usagef("--interval %q: need a < b", s)
	}
	return a, b, nil
}
