package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/treelb/treelb/apps/integrate/alphatree"
	"github.com/treelb/treelb/apps/integrate/quad"
	"github.com/treelb/treelb/cert"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
)

// number is a float64 that JSON shows as null when it is not finite: JSON
// has no NaN or infinity.
type number float64

// MarshalJSON writes x, or null for NaN and ±Inf.
func (x number) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// treeOutput is the part of the JSON output every workload has.
type treeOutput struct {
	runner.Header
	Workload string  `json:"workload"`
	Seconds  float64 `json:"seconds"`
	Nodes    int64   `json:"nodes"`
	Leaves   int64   `json:"leaves"`
	Height   int64   `json:"height"`
	runner.Count
	Stats *runner.Stats `json:"stats,omitempty"`
	runner.Report
	outcome *lb.Outcome // the balancer's statistics, nil for seq
}

// run runs the sequential solver seq under --balancer seq and the
// parallel one par otherwise, and returns the result and the common
// output, with the time it took.
func run[R any](r *runner.Run, workload string, seq func() R, par func(lb.World, lb.Config) (R, *lb.Outcome, error)) (R, treeOutput, error) {
	o := treeOutput{Header: r.Header(), Workload: workload}
	start := time.Now()
	var res R
	if r.Seq() {
		res = seq()
	} else {
		var err error
		if res, o.outcome, err = par(r.World, r.Config()); err != nil {
			return res, o, err
		}
	}
	o.Seconds = time.Since(start).Seconds()
	o.Stats = r.StatsOf(o.outcome)
	var err error
	o.Report, err = r.Report(o.outcome)
	return res, o, err
}

// write prints the tree and the run for humans.
func (o *treeOutput) write(w io.Writer, r *runner.Run) {
	fmt.Fprintf(w, "tree: %d nodes, %d leaves, height %d\n", o.Nodes, o.Leaves, o.Height)
	fmt.Fprintf(w, "time: %.3f s", o.Seconds)
	fmt.Fprintf(w, "  ranks: %d  balancer: %s  world: %s\n", o.Ranks, o.Balancer, o.World)
	runner.PrintCount(w, o.Count)
	runner.PrintReport(w, o.Report)
	if r.Common.Stats {
		runner.PrintStats(w, o.outcome)
	}
}

// integralOutput is the JSON output of poly and func.
type integralOutput struct {
	treeOutput
	Integrand string     `json:"integrand"`
	Interval  [2]float64 `json:"interval"`
	ThetaA    float64    `json:"theta_a"`
	ThetaR    float64    `json:"theta_r"`
	Rule      string     `json:"rule"`
	Threshold float64    `json:"threshold"` // of the accuracy test: θ_a, or θ_a·S
	Value     number     `json:"value"`
	Exact     number     `json:"exact"`
	Error     number     `json:"error"` // value − exact
	Finite    bool       `json:"finite"`
	PolySeed  *uint64    `json:"poly_seed,omitempty"`
	Degree    *int       `json:"degree,omitempty"`
	Factor    *float64   `json:"factor,omitempty"`
}

func solveIntegral(r *runner.Run, in integral) error {
	if in.List {
		return listFuncs(r, in)
	}
	p, f, err := in.problem()
	if err != nil {
		return err // read checked it on rank 0
	}
	res, common, err := run(r, in.Workload, p.Solve, p.SolveParallel)
	if err != nil || r.Rank() != 0 {
		return err
	}
	out := integralOutput{treeOutput: common, Integrand: f.desc, Interval: [2]float64{in.A, in.B}, ThetaA: in.Opt.ThetaA,
		ThetaR: in.Opt.ThetaR, Rule: in.Opt.Rule.String(), Threshold: p.Threshold()}
	out.Nodes, out.Leaves, out.Height = res.Nodes, res.Leaves, res.Height
	v, exact := res.Value(), f.exact(in.A, in.B)
	out.Certificate = cert.New(fmt.Sprintf("integrate %s %s over [%v, %v] θ_a %v θ_r %v %v", in.Workload, f.desc, in.A, in.B, in.Opt.ThetaA, in.Opt.ThetaR, in.Opt.Rule),
		res.Nodes, res.Digest, uint64(res.Leaves), uint64(res.Height), math.Float64bits(v)).String()
	out.ReplayedNodes = res.Replayed
	out.Value, out.Exact, out.Error, out.Finite = number(v), number(exact), number(v-exact), res.Finite()
	if f.poly != nil {
		d, a := f.poly.Degree(), f.poly.Factor()
		out.Degree, out.Factor = &d, &a
		if !in.Given {
			out.PolySeed = &in.PolySeed
		}
	}
	return r.Print(out, func(w io.Writer) error {
		if r.Quiet {
			_, err := fmt.Fprintf(w, "%.17g\n", v)
			return err
		}
		fmt.Fprintf(w, "integrate %s: %s over [%v, %v]\n", in.Workload, out.Integrand, in.A, in.B)
		fmt.Fprintf(w, "value: %.17g  exact: %.17g  error: %.3g\n", v, exact, v-exact)
		fmt.Fprintf(w, "rule: %s, threshold %.3g (θ_a %g), θ_r %g\n", out.Rule, out.Threshold, in.Opt.ThetaA, in.Opt.ThetaR)
		if res.Nodes == 1 {
			// The trapezoid saw f at the ends and the midpoint only; a
			// narrow peak between them passes unseen (gauss on [0, 2]).
			more := ""
			if in.Opt.Rule == quad.Absolute {
				more = ", as does --rule relative where |f| is small everywhere (it scales θ_a by ∫|f|)"
			}
			fmt.Fprintf(w, "note: the root alone passed the accuracy test, which saw f at %v, %v and %v only: a smaller --theta-a looks closer%s\n",
				in.A, (in.A+in.B)/2, in.B, more)
		}
		out.write(w, r)
		return nil
	})
}

// funcOutput is one named function in the JSON output of func help.
type funcOutput struct {
	Name     string     `json:"name"`
	Formula  string     `json:"formula"`
	Interval [2]float64 `json:"interval"`
	Exact    number     `json:"exact"`
	Why      string     `json:"why"`
}

// listFuncs prints the named functions with their exact integrals over
// the interval: one JSON object per line with --json.
func listFuncs(r *runner.Run, in integral) error {
	if r.Rank() != 0 {
		return nil
	}
	w := r.Out()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if !r.JSON {
		fmt.Fprintf(tw, "name\tf(x)\t∫ over [%v, %v]\twhat it tests\n", in.A, in.B)
	}
	for _, fn := range quad.Funcs() {
		exact := fn.Integral(in.A, in.B)
		if r.JSON {
			if err := runner.WriteJSON(w, funcOutput{fn.Name, fn.Formula, [2]float64{in.A, in.B}, number(exact), fn.Why}); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%.17g\t%s\n", fn.Name, fn.Formula, exact, fn.Why)
	}
	return tw.Flush()
}

// alphaOutput is the JSON output of alpha.
type alphaOutput struct {
	treeOutput
	Alpha         float64 `json:"alpha"`
	TreeSeed      uint64  `json:"tree_seed"`
	Digest        string  `json:"digest"` // the sum of the nodes' hashes, hexadecimal
	ExpectedNodes number  `json:"expected_nodes"`
}

func solveAlpha(r *runner.Run, in tree) error {
	p, err := alphatree.New(in.Alpha, in.TreeSeed)
	if err != nil {
		return err // read checked it on rank 0
	}
	res, common, err := run(r, "alpha", p.Solve, p.SolveParallel)
	if err != nil {
		return err
	}
	out := alphaOutput{treeOutput: common, Alpha: in.Alpha, TreeSeed: in.TreeSeed, ExpectedNodes: number(alphatree.ExpectedNodes(in.Alpha))}
	out.Nodes, out.Leaves, out.Height, out.Digest = res.Nodes, res.Leaves, res.Height, fmt.Sprintf("%#016x", res.Digest)
	// An α-tree task carries its nodes' hashes: no rank replays a node.
	out.Certificate = cert.New(fmt.Sprintf("integrate alpha α %v tree seed %d", in.Alpha, in.TreeSeed),
		res.Nodes, res.Digest, uint64(res.Leaves), uint64(res.Height)).String()
	return r.Print(out, func(w io.Writer) error {
		if r.Quiet {
			_, err := fmt.Fprintln(w, res.Nodes, res.Height)
			return err
		}
		fmt.Fprintf(w, "integrate alpha: α = %v, tree seed %d (expected size %.4g nodes)\n", in.Alpha, in.TreeSeed, float64(out.ExpectedNodes))
		fmt.Fprintf(w, "digest: %s\n", out.Digest)
		out.write(w, r)
		return nil
	})
}
