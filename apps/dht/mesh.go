package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/hashtable"
	"github.com/treelb/treelb/hashtable/simplot"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/version"
)

// meshCommand is "dht mesh": the dispatch phase on a simulated 2-D mesh,
// seed 004 §5.
func meshCommand() *cli.Command {
	return &cli.Command{
		Name:  "mesh",
		Usage: "simulate the dispatch phase on a √p × √p mesh: traffic, link loads, zero-load latency and dispatch time (seed 004 §5)",
		Description: "Each element that a round generates (the same elements as dht's rounds) travels alone from its rank to its\n" +
			"bucket's owner, routed along the row, then the column; links carry one message at a time. The times come from\n" +
			"--machine (lb's catalogue, 'dht mesh --machine help' lists it) and the flags that override them; messages cut\n" +
			"through unless --store-forward. p = 4, 16, …, --max-p; q = 1, lg p and lg² p unless -Q is given.",
		Flags: append(simFlags("rounds"),
			&cli.IntFlag{Name: "buckets-per-rank", Aliases: []string{"Q"}, Usage: "buckets per rank `q` (0: q = 1, lg p and lg² p)"},
			&cli.Float64Flag{Name: "beta", Value: 4, Usage: "load factor β of the new elements"},
			&cli.StringFlag{Name: "alloc", Value: "block", Usage: "bucket allocations, comma-separated: block, modular, balanced (the same as block here, where m = p·q)"},
			&cli.IntFlag{Name: "rounds", Value: 3, Usage: "rounds (independent samples) per point"},
			&cli.IntFlag{Name: "max-p", Value: 4096, Usage: "largest p (p = 4, 16, 64, …)"},
			&cli.IntFlag{Name: "bytes", Value: 8 + lb.MessageEnvelope, Usage: "bytes of an element's message on the wire (an 8-byte key and a 16-byte envelope)"},
			&cli.StringFlag{Name: "machine", Value: "gcel", Usage: "the machine's times: a model of lb's catalogue ('help' lists them)"},
			&cli.Float64Flag{Name: "overhead-ns", Usage: "CPU ns to send, and to receive, one message", DefaultText: "the machine's"},
			&cli.Float64Flag{Name: "latency-ns", Usage: "fixed ns of a message's delay", DefaultText: "the machine's"},
			&cli.Float64Flag{Name: "hop-ns", Usage: "ns per hop", DefaultText: "the machine's"},
			&cli.Float64Flag{Name: "byte-ns", Usage: "ns per byte on a link, 1/bandwidth", DefaultText: "the machine's"},
			&cli.BoolFlag{Name: "store-forward", Usage: "every hop receives the whole message before passing it on", DefaultText: "false: cut-through, the seed's t_s + t_h·D + t_w·L"},
			&cli.BoolFlag{Name: "contention", Value: true, Usage: "links carry one message at a time (--contention=false: never busy)"},
			&cli.IntFlag{Name: "workers", Usage: "goroutines (0: GOMAXPROCS)"},
			&cli.StringFlag{Name: "out", Usage: "write mesh-ROUTING.csv and mesh-ROUTING.png (ROUTING: cut-through or store-forward) into `DIR`"}),
		Before: runner.NoArgs,
		Action: runMesh,
	}
}

// meshReport is the JSON output of dht mesh.
type meshReport struct {
	App     string                `json:"app"`     // "dht mesh"
	Seconds float64               `json:"seconds"` // the simulation's own (real) time, as every command's
	Machine string                `json:"machine"`
	Seed    uint64                `json:"seed"`
	Points  []hashtable.MeshPoint `json:"points"`
}

func runMesh(c *cli.Context) error {
	if c.String("machine") == "help" {
		if c.Bool("json") {
			return runner.WriteMachines(c.App.Writer, nil)
		}
		fmt.Fprintf(c.App.Writer, "machine models (dht mesh takes their overhead, latency, hop and byte times, which --overhead-ns, --latency-ns, --hop-ns and --byte-ns set):\n%s", lb.DescribeMachines(nil))
		return nil
	}
	mi, err := lb.LookupMachine(c.String("machine"))
	if err != nil {
		return runner.Usagef("--machine %q: unknown (try --machine help)", c.String("machine"))
	}
	m := mi.Machine
	mp := hashtable.MeshParams{Q: 1, Beta: c.Float64("beta"), Seed: c.Uint64("seed"), Rounds: c.Int("rounds"), Bytes: c.Int("bytes"),
		OverheadNS: m.OverheadNS, LatencyNS: m.LatencyNS, HopNS: m.HopNS, ByteNS: m.ByteNS,
		StoreForward: c.Bool("store-forward"), Contention: c.Bool("contention"), Workers: c.Int("workers")}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"overhead-ns", &mp.OverheadNS}, {"latency-ns", &mp.LatencyNS}, {"hop-ns", &mp.HopNS}, {"byte-ns", &mp.ByteNS}} {
		if c.IsSet(f.name) {
			*f.v = c.Float64(f.name)
		}
	}
	if err := mp.Validate(); err != nil {
		return runner.Usagef("%v", err)
	}
	var allocs []hashtable.Alloc
	for _, s := range strings.Split(c.String("alloc"), ",") {
		a, err := hashtable.ParseAlloc(strings.TrimSpace(s))
		if err != nil {
			return runner.Usagef("--alloc: %v", err)
		}
		allocs = append(allocs, a)
	}
	maxP := c.Int("max-p")
	if maxP < 4 || maxP > hashtable.MaxMeshP {
		return runner.Usagef("--max-p %d: need 4 ≤ p ≤ %d", maxP, hashtable.MaxMeshP)
	}
	cs := hashtable.MeshConfigs(maxP)
	if q := c.Int("buckets-per-rank"); q != 0 {
		if q < 0 {
			return runner.Usagef("-Q %d: need q ≥ 1 (or 0 for 1, lg p and lg² p)", q)
		}
		cs = nil
		for p := 4; p <= maxP; p *= 4 {
			cs = append(cs, hashtable.PQ{P: p, Q: q, QLabel: fmt.Sprint(q)})
		}
	}
	for _, pq := range cs {
		if float64(pq.P)*float64(pq.Q)*mp.Beta > 1<<28 {
			return runner.Usagef("-Q %d and --beta %g at p = %d: more than 2^28 elements a round", pq.Q, mp.Beta, pq.P)
		}
	}
	if c.Bool("progress") || (!c.Bool("quiet") && !c.Bool("json") && runner.IsTerminal(os.Stderr)) {
		mp.Progress = runner.CountProgress(c.App.ErrWriter, "dht mesh", "rounds")
	}
	dir := c.String("out")
	if dir != "" {
		// Before the simulation, as dht sim: a path that cannot be the
		// directory is the flag's error.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return runner.Usagef("--out %s: %v", dir, err)
		}
	}
	start := time.Now()
	var pts []hashtable.MeshPoint
	for _, a := range allocs {
		mp.Alloc = a
		ps, err := hashtable.MeshDispatch(cs, mp)
		if err != nil {
			return err
		}
		pts = append(pts, ps...)
	}
	if dir != "" {
		title := fmt.Sprintf("Dispatch on a mesh (seed 004 §5): %s times, %s, β = %g, %d-byte messages, %d rounds", mi.Name, pts[0].Routing, mp.Beta, mp.Bytes, mp.Rounds)
		if err := writeMeshFiles(dir, pts, title); err != nil {
			return &runner.OutputError{What: "--out " + dir, Err: err}
		}
	}
	w := c.App.Writer
	switch {
	case c.Bool("json"):
		return runner.WriteJSON(w, meshReport{App: "dht mesh", Seconds: time.Since(start).Seconds(), Machine: mi.Name, Seed: mp.Seed, Points: pts})
	case c.Bool("quiet"):
		return nil
	}
	fmt.Fprintf(w, "seed 004 §5, dispatch on a √p × √p mesh: %s times (overhead %g ns, latency %g ns, hop %g ns, byte %g ns), %s routing, contention %v, β = %g, %d bytes a message, %d rounds per point\n\n",
		mi.Name, mp.OverheadNS, mp.LatencyNS, mp.HopNS, mp.ByteNS, pts[0].Routing, mp.Contention, mp.Beta, mp.Bytes, mp.Rounds)
	if err := hashtable.WriteMeshText(w, pts); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, "\nhops: mean path of an element (0 at home) against the seed's (2/3)(√p − 1/√p); traffic/paper: Σ hops·L against (2/3)p^(3/2)qβL;\n"+
		"busiest link against ⌊√p/2⌋⌈√p/2⌉qβL/√p; bounds on the dispatch: M/C paper = traffic/(2√p(√p−1) channels)·t_w, link = busiest link·t_w,\n"+
		"send = most messages of a sender × overhead; link busy = link bound / dispatch; zero-load = t_s + t_h·D + t_w·L at the mean D;\n"+
		"latency = mean time from sending a message to its receipt (2o + time in the network) under the dispatch's load")
	return err
}

// writeMeshFiles writes mesh-ROUTING.csv and mesh-ROUTING.png into dir,
// each through a temporary file, so that a failure leaves no half-written
// file.
func writeMeshFiles(dir string, pts []hashtable.MeshPoint, title string) error {
	base := "mesh-" + pts[0].Routing
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, f func(io.Writer) error) error {
		return writeResult(dir, name, func(fh *os.File) error { return f(fh) })
	}
	if err := write(base+".csv", func(w io.Writer) error {
		return stamped(w, version.Collect(""), func(w io.Writer) error { return hashtable.WriteMeshCSV(w, pts) })
	}); err != nil {
		return err
	}
	return write(base+".png", func(w io.Writer) error { return simplot.MeshPNG(w, pts, title) })
}
