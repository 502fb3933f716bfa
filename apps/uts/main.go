package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/apps/uts/tree"
	"github.com/treelb/treelb/cert"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
)

const description = `Counts the nodes, the depth and the leaves of a UTS tree, exactly as the C
reference (UTS 1.1) defines it: node states are SHA-1 digests, a child's the
hash of its parent's and its number, and a node's number of children follows
from its own state, so the tree is the same on every machine, whichever rank
expands which node.

The tree is given by its parameters, the reference's flags. Since -b and -q
are --balancer and --quiet in every treelb command, the reference's
one-letter flags are written either as one string with --ref, verbatim, or
after -- at the end of the command line, or one by one by their long names:

  reference  long flag          meaning (default)
  -t T       --tree-type T      0 binomial, 1 geometric, 2 hybrid, 3 balanced (1)
  -b B       --branching B      branching factor of the root, b_0 (4)
  -r R       --root-seed R      seed of the root's state, a signed 32-bit integer (0)
  -m M       --children M       binomial, hybrid: children of a non-leaf (4)
  -q Q       --prob Q           binomial, hybrid: probability of a non-leaf, [0, 1] (0.234375)
  -d D       --depth D          geometric, hybrid, balanced: depth parameter (6)
  -a A       --shape A          geometric, hybrid: 0 linear, 1 expdec, 2 cyclic, 3 fixed (0)
  -f F       --shift-depth F    hybrid: geometric above depth F·D, binomial below (0.5)
  -g G       --granularity G    SHA-1 evaluations per child, extra work (1)

--tree NAME starts from one of the reference's sample trees (T1 … T3WL; --tree
help lists them with their published sizes); --ref and the flags after --
apply on top of it, then the long flags. A run of a sample tree's parameters
(however given) is checked against the published counts: a mismatch is exit
status 1.

Output: the tree's size, depth and leaves as the reference prints them, the
time and the rate. --json prints one JSON object with app, balancer, ranks,
world, tree (the sample's name, when it is one), params (the reference's
flags), kernel, seconds, nodes, depth, leaves, certificate (the same on
every run of the tree: docs/counts.md), replayed_nodes, nodes_vary (false),
nodes_per_second, messages
(by kind; not with -b seq), stats with --stats, and in --world sim the
simulator's report: machine, virtual_seconds, work_virtual_seconds (with --seq-nodes also seq_nodes, seq_virtual_seconds, speedup, efficiency,
search_overhead), busy_fraction, last_work_seconds, events, sim_seconds (the
simulator's real time). --world sim --calibrate times the tree's own search
on this machine for the node cost. -q prints "NODES DEPTH LEAVES". After
--restart or a periodic checkpoint (--checkpoint-every) the counts are the
whole tree's, while the time, the rate and the stats are those of the
search since the restart or the last checkpoint.

Exit status: 0 on success; 2 for bad flags or parameters (b ≤ 0 or not
finite, q outside [0, 1], m < 1, an unknown tree type or shape, a granularity
below 1, a seed or depth beyond 32 bits, an unknown sample tree, a malformed
--ref); 1 for any other error.
` + runner.ExitStatusHelp

func main() { runner.Main(newApp()) }

func newApp() *cli.App {
	d := tree.Defaults()
	return &cli.App{
		Name:        "uts",
		Usage:       "count a UTS tree (Unbalanced Tree Search), in parallel with a load balancer",
		ArgsUsage:   "[-- REFERENCE FLAGS...]",
		Description: description,
		Flags: append(runner.Flags(),
			&cli.StringFlag{Name: "tree", Usage: "start from the reference's sample tree `NAME` (T1 … T3WL); 'help' lists them"},
			&cli.StringFlag{Name: "ref", Usage: "the reference's tree flags `FLAGS`, verbatim, as one string (\"-t 1 -a 3 -d 10 -b 4 -r 19\")"},
			&cli.StringFlag{Name: "tree-type", DefaultText: fmt.Sprintf("%d, %v", d.Type, d.Type), Usage: "the reference's -t: tree `TYPE`, 0 binomial, 1 geometric, 2 hybrid, 3 balanced (a number or a name)"},
			&cli.Float64Flag{Name: "branching", Value: d.B, Usage: "the reference's -b: branching factor `B` of the root, > 0"},
			&cli.IntFlag{Name: "root-seed", Value: d.Root, Usage: "the reference's -r: seed `R` of the root's state"},
			&cli.IntFlag{Name: "children", Value: d.M, Usage: "the reference's -m: binomial, hybrid: children `M` of a non-leaf, ≥ 1"},
			&cli.Float64Flag{Name: "prob", Value: d.Q, Usage: "the reference's -q: binomial, hybrid: probability `Q` of a non-leaf, in [0, 1]"},
			&cli.IntFlag{Name: "depth", Value: d.Depth, Usage: "the reference's -d: geometric, hybrid, balanced: depth parameter `D`"},
			&cli.StringFlag{Name: "shape", DefaultText: fmt.Sprintf("%d, %v", d.Shape, d.Shape), Usage: "the reference's -a: geometric, hybrid: shape `A`, 0 linear, 1 expdec, 2 cyclic, 3 fixed (a number or a name)"},
			&cli.Float64Flag{Name: "shift-depth", Value: d.Shift, Usage: "the reference's -f: hybrid: geometric above depth `F`·D"},
			&cli.IntFlag{Name: "granularity", Value: d.Gran, Usage: "the reference's -g: SHA-1 evaluations `G` per child, ≥ 1"},
			&cli.StringFlag{Name: "kernel", Value: tree.BestKernel().String(), DefaultText: tree.BestKernel().String() + ", the fastest this processor has",
				Usage: "hash children with kernel `K`: avx512 (16 at a time), avx2 (8) or crypto/sha1 (one, like the reference)"}),
		Action: runner.Action(runner.Spec[instance]{App: "uts", Read: read, Solve: solve, Sample: calibrationSample, Resumable: true,
			NodeCosts: tree.NodeCosts()}),
	}
}

// instance is the tree to count; it travels from rank 0 to the others.
type instance struct {
	List   bool        // --tree help: list the sample trees
	Params tree.Params // valid unless List
	Sample string      // the name of the sample tree whose parameters these are, or ""
	Kernel tree.Kernel
}

func read(c *cli.Context, cm runner.Common) (instance, error) {
	var in instance
	if c.String("tree") == "help" {
		in.List = true
		return in, nil
	}
	p := tree.Defaults()
	if name := c.String("tree"); c.IsSet("tree") {
		s, ok := tree.SampleNamed(name)
		if !ok {
			return in, runner.Usagef("--tree %q: no such sample tree (%s; see --tree help)", name, strings.Join(tree.SampleNames(), " "))
		}
		p = s.Params()
	}
	if err := p.SetArgs(strings.Fields(c.String("ref"))); err != nil {
		return in, usage("--ref: ", err)
	}
	if first := c.Args().First(); first != "" && !strings.HasPrefix(first, "-") {
		// What follows -- are the reference's flags, each with its dash.
		return in, runner.Usagef("unexpected argument %q: uts takes no arguments, only the reference's flags after -- (see --help)", first)
	}
	if err := p.SetArgs(c.Args().Slice()); err != nil {
		return in, usage("the reference's flags after --: ", err)
	}
	if err := setLong(c, &p); err != nil {
		return in, err
	}
	if err := p.Validate(); err != nil {
		return in, usage("", err)
	}
	if w := tree.CountOverflow(p); w != "" {
		fmt.Fprintf(c.App.ErrWriter, "uts: warning: %s\n", w)
	}
	for _, s := range tree.Samples() {
		if s.Params().String() == p.String() {
			in.Sample = s.Name
			break
		}
	}
	// A sample tree is one realization whose size is published (T3L: a
	// binomial tree with q·m = 1.00007, infinite in expectation, finite
	// with its seed: 111 345 631 nodes); other parameters whose expected
	// size is infinite need a bound.
	if why, ok := tree.Unbounded(p); ok && cm.MaxNodes == 0 && in.Sample == "" {
		return in, runner.Usagef("the tree %v has an infinite expected size: a %s; a search of it has no expected end."+
			" Give --max-nodes N (with a balancer) to count a bounded part of it", p, why)
	}
	k, err := tree.ParseKernel(c.String("kernel"))
	if err == nil {
		err = k.Check()
	}
	if err != nil {
		return in, usage("--kernel: ", err)
	}
	in.Params, in.Kernel = p, k
	return in, nil
}

// usage returns err of package tree, which names the app already, as a
// usage error after the flag it concerns.
func usage(flag string, err error) error {
	return runner.Usagef("%s%s", flag, strings.TrimPrefix(err.Error(), "uts: "))
}

// setLong sets the parameters that their long flags give.
func setLong(c *cli.Context, p *tree.Params) error {
	var err error
	if c.IsSet("tree-type") {
		if p.Type, err = tree.ParseType(c.String("tree-type")); err != nil {
			return usage("--tree-type: ", err)
		}
	}
	if c.IsSet("shape") {
		if p.Shape, err = tree.ParseShape(c.String("shape")); err != nil {
			return usage("--shape: ", err)
		}
	}
	floats := map[string]*float64{"branching": &p.B, "prob": &p.Q, "shift-depth": &p.Shift}
	for name, v := range floats {
		if c.IsSet(name) {
			*v = c.Float64(name)
		}
	}
	ints := map[string]*int{"root-seed": &p.Root, "children": &p.M, "depth": &p.Depth, "granularity": &p.Gran}
	for name, v := range ints {
		if c.IsSet(name) {
			*v = c.Int(name)
		}
	}
	return nil
}

// output is the JSON object the command prints.
type output struct {
	runner.Header
	Tree    string  `json:"tree,omitempty"`
	Params  string  `json:"params"`
	Kernel  string  `json:"kernel"`
	Seconds float64 `json:"seconds"`
	Nodes   int64   `json:"nodes"`
	Depth   int     `json:"depth"`
	Leaves  int64   `json:"leaves"`
	runner.Count
	NodesPerSecond float64       `json:"nodes_per_second"`
	Stats          *runner.Stats `json:"stats,omitempty"`
	runner.Report
}

// calibrationSample is the app --calibrate times: the whole tree, searched
// depth first with the instance's kernel from its root.
func calibrationSample(in instance) (lb.App, error) {
	if in.List {
		return nil, runner.Usagef("--calibrate: --tree help counts no tree")
	}
	t, err := tree.New(in.Params)
	if err != nil {
		return nil, err
	}
	a := tree.NewApp(t)
	if err := a.SetKernel(in.Kernel); err != nil {
		return nil, err
	}
	return a, nil
}

func solve(r *runner.Run, in instance) error {
	if in.List {
		return list(r)
	}
	t, err := tree.New(in.Params)
	if err != nil {
		return err
	}
	if err := in.Kernel.Check(); err != nil {
		// A checkpoint's kernel that this processor (or build) lacks: the
		// tree is the same with any kernel, so the fastest here counts it,
		// and the output names the one that did.
		best := tree.BestKernel()
		if r.Comm == nil || r.Comm.Rank() == 0 {
			fmt.Fprintf(r.Context.App.ErrWriter, "uts: the checkpoint's kernel %v cannot run here (%v); counting with %v, the same tree\n", in.Kernel, err, best)
		}
		in.Kernel = best
	}
	out := output{Header: r.Header(), Tree: in.Sample, Params: in.Params.String(), Kernel: in.Kernel.String()}
	var c tree.Counts
	var o *lb.Outcome
	start := time.Now()
	if r.Seq() {
		c, err = t.CountWith(in.Kernel)
	} else {
		c, o, err = lb.Run(r.World, r.Config(), func() lb.Reducer[tree.Counts] {
			a := tree.NewApp(t)
			_ = a.SetKernel(in.Kernel) // checked by read, or by solve on a restart
			return a
		})
	}
	if err != nil {
		return err
	}
	out.Seconds = time.Since(start).Seconds()
	out.Nodes, out.Depth, out.Leaves = c.Nodes, c.Depth, c.Leaves
	out.Certificate = certificate(in.Params, c)
	// After a checkpoint (--restart, or a periodic one) the counts are the
	// whole tree's but the time is this stretch's: the rate is the
	// stretch's nodes over its time.
	stretch := c.Nodes
	if o != nil {
		stretch = o.Total.Nodes
	}
	out.NodesPerSecond = float64(stretch) / out.Seconds
	out.Stats = r.StatsOf(o)
	if out.Report, err = r.Report(o); err != nil {
		return err
	}
	err = r.Print(out, func(w io.Writer) error {
		if r.Quiet {
			fmt.Fprintln(w, c.Nodes, c.Depth, c.Leaves)
			return nil
		}
		name := ""
		if in.Sample != "" {
			name = in.Sample + ", "
		}
		fmt.Fprintf(w, "uts: %s%v tree %s\n", name, in.Params.Type, out.Params)
		fmt.Fprintf(w, "Tree size = %d, tree depth = %d, num leaves = %d (%.2f%%)\n", c.Nodes, c.Depth, c.Leaves, 100*float64(c.Leaves)/float64(c.Nodes))
		fmt.Fprintf(w, "time: %.3f s  %.2f M nodes/s  ranks: %d  balancer: %s  world: %s  kernel: %s\n",
			out.Seconds, out.NodesPerSecond/1e6, out.Ranks, out.Balancer, out.World, out.Kernel)
		runner.PrintCount(w, out.Count)
		runner.PrintReport(w, out.Report)
		if r.Common.Stats {
			runner.PrintStats(w, o)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if s, ok := tree.SampleNamed(in.Sample); ok && !s.Matches(c) {
		return fmt.Errorf("%s: counted %d nodes, depth %d, %d leaves; the reference publishes %d nodes, depth %d, %d leaves",
			s.Name, c.Nodes, c.Depth, c.Leaves, s.Nodes, s.Depth, s.Leaves)
	}
	return nil
}

// certificate returns the certificate of a count of the tree of p (package
// cert): the tree's parameters (the granularity, which does not change
// the tree, set to 1), the nodes, the leaves' digest, the leaves and the
// depth. A UTS task carries its nodes' states, so no rank replays a node.
func certificate(p tree.Params, c tree.Counts) string {
	p.Gran = 1
	return cert.New("uts "+p.String(), c.Nodes, c.Digest, uint64(c.Leaves), uint64(c.Depth)).String()
}

// sampleOutput is one sample tree in the JSON output of --tree help.
type sampleOutput struct {
	Name   string `json:"name"`
	Params string `json:"params"`
	Nodes  int64  `json:"nodes"`
	Depth  int    `json:"depth"`
	Leaves int64  `json:"leaves"`
}

// list prints the sample trees: a table, or one JSON object per tree.
func list(r *runner.Run) error {
	if r.JSON {
		for _, s := range tree.Samples() {
			if err := r.Print(sampleOutput{s.Name, s.Args, s.Nodes, s.Depth, s.Leaves}, nil); err != nil {
				return err
			}
		}
		return nil
	}
	return r.Print(nil, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "tree\treference flags\tnodes\tdepth\tleaves")
		for _, s := range tree.Samples() {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\n", s.Name, s.Args, s.Nodes, s.Depth, s.Leaves)
		}
		return tw.Flush()
	})
}
