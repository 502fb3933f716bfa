package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/hashtable"
	"github.com/treelb/treelb/hashtable/simplot"
	"github.com/treelb/treelb/internal/provcsv"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/version"
)

func main() { runner.Main(newApp()) }

// newApp returns the command line application.
func newApp() *cli.App {
	return &cli.App{
		Name:  "dht",
		Usage: "run rounds of the distributed hash table's four phases and report load balance and throughput",
		Description: `Runs --rounds rounds of the distributed chained hash table of seed 004 §2.2
on --np goroutine ranks, or, built with -tags mpi, on the processes of mpirun
or srun. A round fills the old table with Poisson(q·α) elements a rank, then,
with a barrier before each, (1) generates Poisson(q·β) new elements a rank,
(2) dispatches them to their owners in one all-to-all, (3) searches the old
table and (4) inserts those not found into the new one; it reports each
phase's work and time, the load balance η = E(total)/(p·E(max)) and the
elements a second. The work counts are the same in every world for the same
--seed. The subcommands simulate instead: sim the load balance of the
paper's Fig. 1 and Table 1 without p ranks, mesh the dispatch on a √p × √p
mesh (§5). docs/apps/dht.md says more.

Exit status: 0 on success; 2 for bad flags (-Q, --alpha, --beta, --rounds
or --revisit out of range, an unknown --alloc, tables larger than the
memory allowed); 1 for any other error (docs/reliability.md lists the
statuses every command shares).`,
		Flags: append(npFlag(runner.FlagsNamed("np", "seed", "check", "json", "stats", "quiet")),
			&cli.IntFlag{Name: "buckets-per-rank", Aliases: []string{"Q"}, Value: 16, Usage: "buckets per rank `q` (m = p·q)"},
			&cli.Float64Flag{Name: "alpha", Value: 4, Usage: "load factor α of the old table, 0 to 1000"},
			&cli.Float64Flag{Name: "beta", Value: 4, Usage: "load factor β of the new elements, above 0, at most 1000"},
			&cli.StringFlag{Name: "alloc", Value: "block", Usage: "bucket allocation: block, modular or balanced (the same as block here, where m = p·q: they differ in package hashtable when p does not divide m)"},
			&cli.IntFlag{Name: "rounds", Value: 10, Usage: "rounds to run"},
			&cli.Float64Flag{Name: "revisit", Usage: "probability that a new element repeats an old one (0: the seed's model)"}),
		Action: runner.Action(runner.Spec[rounds]{App: "dht", Read: readRounds, Solve: runRounds}),
		Commands: []*cli.Command{{
			Name:  "sim",
			Usage: "simulate the load balance without p ranks: Fig. 1 and Table 1 of seed 004",
			Flags: append(simFlags("runs"),
				&cli.Float64Flag{Name: "alpha", Value: 4, Usage: "load factor α, above 0, at most 1000"},
				&cli.Float64Flag{Name: "beta", Value: 4, Usage: "load factor β, above 0, at most 1000"},
				&cli.IntFlag{Name: "runs", Value: 50, Usage: "runs per point of Fig. 1"},
				&cli.IntFlag{Name: "table-runs", Value: 1000, Usage: "runs per cell of Table 1, 100 or more, run in blocks of 50 (0: skip)"},
				&cli.IntFlag{Name: "max-p", Value: 4096, Usage: "largest p (p = 4, 16, 64, …)"},
				&cli.StringFlag{Name: "model", Value: "bernoulli", Usage: "occupancies: bernoulli (the seed's simulation) or poisson"},
				&cli.IntFlag{Name: "workers", Usage: "goroutines (0: GOMAXPROCS)"},
				&cli.StringFlag{Name: "out", Usage: "write fig1.csv, table1.csv and fig1.png into `DIR`"}),
			Before: runner.NoArgs,
			Action: runSim,
		}, meshCommand()},
	}
}

// rounds is what rank 0 reads and every rank runs.
type rounds struct {
	Params hashtable.RoundParams
	Rounds int
}

func readRounds(c *cli.Context, cm runner.Common) (rounds, error) {
	if c.NArg() != 0 {
		// dht takes no argument: a word there is a command mistyped.
		return rounds{}, runner.Usagef("%q: no such command (the commands: %s) and no argument taken (see --help)", c.Args().First(), runner.CommandNames(c.App.Commands))
	}
	alloc, err := hashtable.ParseAlloc(c.String("alloc"))
	if err != nil {
		return rounds{}, runner.Usagef("--alloc: %v", err)
	}
	rp := hashtable.RoundParams{Q: c.Int("buckets-per-rank"), Alpha: c.Float64("alpha"), Beta: c.Float64("beta"),
		Alloc: alloc, Seed: c.Uint64("seed"), Revisit: c.Float64("revisit")}
	if err := rp.Validate(); err != nil {
		return rounds{}, runner.Usagef("%v", err)
	}
	n := c.Int("rounds")
	if n < 1 {
		return rounds{}, runner.Usagef("--rounds %d: need at least 1", n)
	}
	// Every rank holds q buckets of both tables and about (α + β)·q
	// elements, the new ones twice over while they are dispatched. The
	// peak resident size of dht --np 4 --rounds 2 at q = 10⁵ (Go 1.26,
	// GOGC 100, issue 23) was 335, 1100, 2234 and 776 bytes per bucket at
	// (α, β) = (1, 1), (4, 4), (8, 8) and (4, 0.5); 100 + 170·α + 100·β
	// bytes covers each of them. Every rank also holds arrays of one
	// entry per rank (its two tables' scratch and the all-to-all's counts
	// and buffers): dht --np 1024 and 1448 -Q 1 --rounds 1 peaked at 485
	// and 968 MB, 461 bytes per rank per rank, so 512·P bytes a rank.
	p := float64(cm.NP)
	if cm.World == runner.WorldMPI {
		p = 1 // each process holds its own rank's share
	}
	need := p*(float64(rp.Q)*(100+170*rp.Alpha+100*rp.Beta)+perPeer*float64(cm.NP)) + dhtBase
	if err := runner.CheckMemory(need, fmt.Sprintf("--np %d with -Q %d, --alpha %g and --beta %g", cm.NP, rp.Q, rp.Alpha, rp.Beta)); err != nil {
		return rounds{}, err
	}
	return rounds{Params: rp, Rounds: n}, nil
}

// dhtBase is the resident size of a dht process with tiny tables.
const dhtBase = 16 << 20

// perPeer is what a rank holds for each rank of the world, in bytes (see
// the estimate in readRounds).
const perPeer = 512

func runRounds(r *runner.Run, in rounds) error {
	start := time.Now()
	s, err := hashtable.RunRounds(r.Comm, in.Params, in.Rounds)
	if err != nil {
		return err
	}
	seconds := time.Since(start).Seconds()
	if !r.Common.Stats {
		s.Ranks = nil
	}
	type rankStats struct {
		Rank int `json:"rank"`
		hashtable.RankRound
	}
	type stats struct {
		Ranks []rankStats `json:"ranks"`
	}
	rec := struct {
		App     string  `json:"app"`
		Ranks   int     `json:"ranks"`   // as every command's output names P (the paper's p too)
		Seconds float64 `json:"seconds"` // the rounds' wall time on rank 0, as every command's
		*hashtable.Summary
		Stats *stats `json:"stats,omitempty"` // with --stats: every rank's record, as every command's
	}{App: "dht", Ranks: s.P, Seconds: seconds, Summary: s}
	if len(s.Ranks) > 0 {
		rec.Stats = &stats{}
		for i, rr := range s.Ranks {
			rec.Stats.Ranks = append(rec.Stats.Ranks, rankStats{i, rr})
		}
	}
	return r.Print(rec, func(w io.Writer) error {
		if r.Quiet {
			_, err := fmt.Fprintf(w, "eta=%.4f elements/s=%.4g per-rank=%.4g\n", s.Overall.Eta, s.Overall.OpsPerSec, s.Overall.OpsPerSecPerRank)
			return err
		}
		return s.WriteText(w, r.Common.Stats)
	})
}

func runSim(c *cli.Context) error {
	model, err := hashtable.ParseSimModel(c.String("model"))
	if err != nil {
		return runner.Usagef("--model: %v", err)
	}
	sp := hashtable.SimParams{Alpha: c.Float64("alpha"), Beta: c.Float64("beta"), Runs: c.Int("runs"),
		Seed: c.Uint64("seed"), Model: model, Workers: c.Int("workers")}
	if err := sp.Validate(); err != nil {
		return runner.Usagef("%v", err)
	}
	maxP, tableRuns := c.Int("max-p"), c.Int("table-runs")
	if maxP < 4 || maxP > hashtable.MaxSimP {
		return runner.Usagef("--max-p %d: need 4 ≤ p ≤ %d", maxP, hashtable.MaxSimP)
	}
	if tableRuns != 0 && tableRuns < 100 {
		return runner.Usagef("--table-runs %d: need 0 or at least 100", tableRuns)
	}
	if c.Bool("progress") || (!c.Bool("quiet") && !c.Bool("json") && runner.IsTerminal(os.Stderr)) {
		sp.Progress = runner.CountProgress(c.App.ErrWriter, "dht sim", "runs")
	}
	dir := c.String("out")
	if dir != "" {
		// Before the simulation, which takes a minute at the defaults: a
		// path that cannot be the directory is the flag's error.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return runner.Usagef("--out %s: %v", dir, err)
		}
	}
	start := time.Now()
	r, err := hashtable.Reproduce(sp, maxP, tableRuns)
	if errors.Is(err, hashtable.ErrNoLoad) {
		return runner.Usagef("%v", err)
	}
	if err != nil {
		return err
	}
	if dir != "" {
		if err := writeFiles(dir, r); err != nil {
			return &runner.OutputError{What: "--out " + dir, Err: err}
		}
	}
	w := c.App.Writer
	switch {
	case c.Bool("json"):
		return runner.WriteJSON(w, struct {
			App     string  `json:"app"`
			Seconds float64 `json:"seconds"` // the simulation's own (real) time, as every command's
			*hashtable.Reproduction
		}{"dht sim", time.Since(start).Seconds(), r})
	case c.Bool("quiet"):
		return nil
	}
	fmt.Fprintf(w, "seed 004 §4.5 simulation: %s model, alpha=%g beta=%g, %d runs per point\n\n", r.Model, r.Alpha, r.Beta, r.Runs)
	if err := hashtable.WriteFig1Text(w, r.Fig1); err != nil {
		return err
	}
	if len(r.Table1) > 0 {
		return hashtable.WriteTable1Text(w, r.Table1)
	}
	return nil
}

// writeResult writes the file name of dir with f: to a temporary file
// first, renamed once it is whole and synced, so that a failure leaves no
// half-written file (an empty PNG, say), and readable by everyone, as a
// file the shell creates.
func writeResult(dir, name string, f func(*os.File) error) error {
	fh, err := os.CreateTemp(dir, "."+name+".*")
	if err != nil {
		return err
	}
	// CreateTemp makes the file 0600.
	if err := errors.Join(fh.Chmod(0o644), f(fh)); err != nil {
		fh.Close()
		os.Remove(fh.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := errors.Join(fh.Sync(), fh.Close()); err != nil {
		os.Remove(fh.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := os.Rename(fh.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(fh.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

func writeFiles(dir string, r *hashtable.Reproduction) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, f func(*os.File) error) error { return writeResult(dir, name, f) }
	prov := version.Collect("")
	if err := write("fig1.csv", func(f *os.File) error {
		return stamped(f, prov, func(w io.Writer) error { return hashtable.WriteSimCSV(w, r.Fig1) })
	}); err != nil {
		return err
	}
	if len(r.Table1) > 0 {
		if err := write("table1.csv", func(f *os.File) error {
			return stamped(f, prov, func(w io.Writer) error { return hashtable.WriteTable1CSV(w, r.Table1) })
		}); err != nil {
			return err
		}
	}
	title := fmt.Sprintf("Experimental load balance factors (α = %g, β = %g, %s model, %d runs)", r.Alpha, r.Beta, r.Model, r.Runs)
	return write("fig1.png", func(f *os.File) error { return simplot.Fig1PNG(f, r.Fig1, title) })
}

// stamped writes the CSV table that write makes to w with the provenance
// columns of p on every row (internal/provcsv).
func stamped(w io.Writer, p version.Provenance, write func(io.Writer) error) error {
	s := provcsv.Writer(w, p)
	if err := write(s); err != nil {
		return err
	}
	return s.Close()
}

// npFlag says in --np's help that dht's ranks are the embedded world's (or
// the launcher's): it has no simulated world of ranks; and --quiet's no
// progress lines, which its rounds do not print.
func npFlag(fs []cli.Flag) []cli.Flag {
	for _, f := range fs {
		if f, ok := f.(*cli.IntFlag); ok && f.Name == "np" {
			f.Usage = fmt.Sprintf("ranks of the embedded world, 1..%d (under mpirun/srun the launcher's size; a different --np is an error)", runner.MaxNP)
		}
		if f, ok := f.(*cli.BoolFlag); ok && f.Name == "quiet" {
			f.Usage = "print only the answer" // the rounds print no progress lines (the shared help spoke of --progress)
		}
	}
	return fs
}

// simFlags returns the common flags of dht's simulations (sim, mesh), whose
// help speaks of a simulation, not of ranks: their progress lines count
// the units done (runs, rounds).
func simFlags(units string) []cli.Flag {
	fs := runner.FlagsNamed("seed", "json", "quiet", "progress")
	for _, f := range fs {
		switch f := f.(type) {
		case *cli.Uint64Flag:
			if f.Name == "seed" {
				f.Usage = "seed of the simulation's random source"
			}
		case *cli.BoolFlag:
			if f.Name == "quiet" {
				f.Usage = "print nothing on stdout and no progress lines: only the files of --out"
			}
			if f.Name == "progress" {
				f.Usage = "print a progress line on stderr as the " + units + " are done: " + units + " done of all, elapsed time"
			}
		}
	}
	return fs
}
