//go:build tools

// Command idalast runs one iteration of the 15-puzzle's parallel IDA*, by
// default the last one (threshold = the optimal length of Korf's table),
// with the tasks splitting near the frontier at the given levels
// (parallel.Iteration.SetNear), and prints one JSON line: the nodes, whether
// the goal was found and, in the simulated world, the virtual seconds and
// the busy fraction. The failing iterations before the last expand the
// sequential nodes under every split, so the last iteration alone measures
// what the split does to a first-solution search (docs/scaling.md):
//
//	go run -tags tools ./scripts/idalast --korf 88 --np 16 --seed 2
//	go run -tags tools ./scripts/idalast --korf 82 --np 1024 --world sim --budget 10000
//	go run -tags tools ./scripts/idalast --korf 88 --np 1024 --world sim --near 0   # the shallowest split
//	go run -tags tools ./scripts/idalast --korf 60 --threshold 64 --np 1024 --world sim
//
// It is a maintainer's tool behind the build tag tools, so that
// go install ./... installs only the user-facing commands.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/treelb/treelb/apps/fifteen/parallel"
	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

type result struct {
	Korf      int     `json:"korf"`
	Balancer  string  `json:"balancer"`
	Threshold int     `json:"threshold"`
	World     string  `json:"world"`
	Machine   string  `json:"machine,omitempty"`
	Ranks     int     `json:"ranks"`
	Seed      uint64  `json:"seed"`
	Floor     int     `json:"floor"`
	Near      int     `json:"near"`
	Nodes     int64   `json:"nodes"`
	Found     bool    `json:"found"`
	Virtual   float64 `json:"virtual_seconds,omitempty"`
	Busy      float64 `json:"busy_fraction,omitempty"`
	Seconds   float64 `json:"seconds"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "idalast:", err)
		os.Exit(2)
	}
}

func run() error {
	korf := flag.Int("korf", 0, "Korf's instance (1..100), required")
	threshold := flag.Int("threshold", 0, "the iteration's threshold; 0: the optimal length (the last iteration)")
	np := flag.Int("np", 16, "ranks")
	world := flag.String("world", "embedded", "embedded (goroutine ranks) or sim")
	machine := flag.String("machine", "gcel", "--world sim: the machine model")
	seed := flag.Uint64("seed", 1, "the balancer's and the simulator's seed")
	floor := flag.Int("floor", parallel.NearFloor, "the shallowest level of the near split (puzzle.Search.SetNear)")
	near := flag.Int("near", parallel.NearLevel, "the deepest level of the near split; 0: split at the shallowest open level")
	budget := flag.Int64("budget", 100000, "Δt, nodes between two polls: the fifteen command's default, 10⁵ (lb's is 10⁴)")
	balancer := flag.String("balancer", "rp", "the balancer, at its default options (as the fifteen command runs it)")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	ins, err := puzzle.Korf100()
	if err != nil {
		return err
	}
	var in puzzle.Instance
	for _, x := range ins {
		if x.ID == *korf {
			in = x
		}
	}
	if in.ID == 0 {
		return fmt.Errorf("--korf %d: not an instance of Korf's table (1..100)", *korf)
	}
	if *threshold == 0 {
		*threshold = in.Optimal
	}
	if *np < 1 {
		return fmt.Errorf("--np %d: at least 1", *np)
	}
	if _, err := parallel.NewIteration(in.State, *threshold); err != nil {
		return err
	}
	newApp := func() lb.Reducer[parallel.Outcome] {
		it, _ := parallel.NewIteration(in.State, *threshold) // checked above
		it.SetNear(*floor, *near)
		return it
	}
	info, err := lb.Lookup(*balancer)
	if err != nil {
		return err
	}
	cfg := lb.Config{Balancer: info.New, Options: info.Options, Seed: *seed, Budget: *budget}
	r := result{Korf: *korf, Balancer: *balancer, Threshold: *threshold, World: *world, Ranks: *np, Seed: *seed, Floor: *floor, Near: *near}
	switch *world {
	case "sim":
		mi, err := lb.LookupMachine(*machine)
		if err != nil {
			return err
		}
		w, err := sim.New(*np, sim.Config{Seed: *seed, Machine: mi.For(parallel.NodeCosts())})
		if err != nil {
			return err
		}
		o, out, err := lb.Run(w, cfg, newApp)
		if err != nil {
			return err
		}
		r.Machine, r.Nodes, r.Found, r.Seconds = *machine, o.Nodes, o.Found, out.Seconds
		r.Virtual, r.Busy = out.Seconds, out.Sim.BusyFraction()
	case "embedded":
		err := mpi.Run(*np, func(c *mpi.Comm) error {
			o, out, err := lb.Run(driver.New(c), cfg, newApp)
			if err == nil && c.Rank() == 0 {
				r.Nodes, r.Found, r.Seconds = o.Nodes, o.Found, out.Seconds
			}
			return err
		})
		if err != nil {
			return err
		}
	default:
		return fmt.Errorf("--world %q: embedded or sim", *world)
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}
