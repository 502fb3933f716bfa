// Command campaign runs a speedup campaign of the treelb commands and plots
// it (package internal/campaign): it sweeps worlds × P × balancers ×
// instances × seeds × repeats, one process per run with --json, writes one
// CSV row per run (the runner's columns run_*, then every JSON field,
// nested objects flattened as messages.request, machine.name) and resumes:
// runs whose key (world, P, balancer with options, instance, seed, repeat)
// is in the CSV already are not run again. Progress (run i of n, ETA) goes
// to stderr. At the end it draws the plots (PNG and SVG) next to the CSV
// and prints a Markdown summary on stdout.
//
//	go run ./scripts/campaign -csv results/x.csv -world sim:gcel -np 64..4096*4 \
//	    -balancer rp -balancer 'rp --fast-init' -instance 'golomb 12' -height marks
//	go run ./scripts/campaign -csv results/x.csv -plot-only        # plots and summary of a CSV
//	campaign -csv out.csv -world mpi -bin-dir bin/openmpi -launcher 'srun -n {np}' -np 1,2,4 -instance 'golomb 10'
//
// Real worlds (embedded, mpi) add a sequential baseline (--balancer seq,
// P 1) per world, instance and repeat, which their speedups are measured
// against; the load average is recorded for them (run_load). Without
// -bin-dir the commands the instances name are built once (go build
// ./apps/APP, with -tags) into a temporary directory.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/treelb/treelb/internal/campaign"
)

func main() {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "campaign:", err)
		os.Exit(1)
	}
}

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, "; ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("campaign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var worlds, balancers, instances list
	fs.Var(&worlds, "world", "world spec, repeatable: embedded, mpi or sim[:MACHINE], then flags of the command (default sim:gcel)")
	fs.Var(&balancers, "balancer", "balancer spec, repeatable: NAME [OPTION...], e.g. 'rp --fast-init' (default rp)")
	fs.Var(&instances, "instance", "instance spec, repeatable: APP [ARG...], e.g. 'golomb 12' or 'fifteen --korf 7'")
	csvPath := fs.String("csv", "", "the CSV `FILE` (read first, for resuming; required)")
	np := fs.String("np", "1024", "P list: N, A-B, A..B*F (geometric), comma-separated")
	seeds := fs.String("seeds", "1", "seed list, as -np")
	repeats := fs.Int("repeats", 1, "runs of every configuration")
	binDir := fs.String("bin-dir", "", "directory of the commands (default: build them into a temporary directory)")
	tags := fs.String("tags", "", "build tags of the commands built (e.g. mpi)")
	launcher := fs.String("launcher", "", "prefix of every command line, {np} replaced by P (default for -world mpi: mpirun --oversubscribe -np {np})")
	jsonl := fs.String("jsonl", "", "also append every run's JSON output to `FILE`")
	timeout := fs.Duration("timeout", 0, "per run (0: none)")
	plots := fs.String("plots", "", "path prefix of the plots (default: the CSV's path without .csv; 'none': no plots)")
	title := fs.String("title", "", "title of the plots (default: the CSV's name)")
	height := fs.String("height", "", "columns (e.g. marks,length: the first a row has) or a number giving the tree height h for the summary's messages/(h·P)")
	plotOnly := fs.Bool("plot-only", false, "run nothing: plot and summarize the CSV")
	dry := fs.Bool("dry-run", false, "print the command lines still to run, and run nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *csvPath == "" {
		return errors.New("-csv is required")
	}
	if !*plotOnly {
		if len(worlds) == 0 {
			worlds = list{"sim:gcel"}
		}
		if len(balancers) == 0 {
			balancers = list{"rp"}
		}
		plan := campaign.Plan{Worlds: worlds, Balancers: balancers, Instances: instances, Repeats: *repeats}
		nps, err := campaign.ParseInts(*np)
		if err != nil {
			return err
		}
		for _, p := range nps {
			plan.NPs = append(plan.NPs, int(p))
		}
		if plan.Seeds, err = campaign.ParseInts(*seeds); err != nil {
			return err
		}
		keys, err := plan.Keys()
		if err != nil {
			return err
		}
		launch := strings.Fields(*launcher)
		if len(launch) == 0 && slices.ContainsFunc(keys, func(k campaign.Key) bool { return strings.HasPrefix(k.World, "mpi") }) {
			launch = []string{"mpirun", "--oversubscribe", "-np", "{np}"}
		}
		if err := os.MkdirAll(filepath.Dir(*csvPath), 0o755); err != nil {
			return err
		}
		r := campaign.Runner{CSV: *csvPath, JSONL: *jsonl, BinDir: *binDir, Launcher: launch, Timeout: *timeout, Progress: stderr}
		if *dry {
			_, todo, err := r.Todo(keys)
			for _, k := range todo {
				cmd, err := campaign.Command(k, cmp.Or(r.BinDir, "BIN"), launch)
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, strings.Join(cmd, " "))
			}
			return err
		}
		if r.BinDir == "" {
			dir, err := os.MkdirTemp("", "campaign")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			if err := build(dir, *tags, keys, stderr); err != nil {
				return err
			}
			r.BinDir = dir
		}
		if _, err := r.Run(ctx, keys); err != nil {
			return err
		}
	}
	t, err := campaign.ReadTable(*csvPath)
	if err != nil {
		return err
	}
	pts, err := campaign.Derive(t, *height)
	if err != nil {
		return fmt.Errorf("%s: %w", *csvPath, err)
	}
	if len(pts) == 0 {
		return fmt.Errorf("%s: no parallel run", *csvPath)
	}
	if *plots != "none" {
		prefix := *plots
		if prefix == "" {
			prefix = strings.TrimSuffix(*csvPath, ".csv")
		}
		if *title == "" {
			*title = filepath.Base(prefix)
		}
		files, err := campaign.Plots(prefix, *title, pts)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "campaign: plots %s\n", strings.Join(files, " "))
	}
	return campaign.Summarize(stdout, campaign.Groups(pts))
}

// build builds the commands of the keys' instances into dir.
func build(dir, tags string, keys []campaign.Key, stderr io.Writer) error {
	var pkgs []string
	for _, k := range keys {
		if p := "./apps/" + campaign.App(k.Instance); !slices.Contains(pkgs, p) {
			pkgs = append(pkgs, p)
		}
	}
	args := append([]string{"build", "-tags", tags, "-o", dir + string(os.PathSeparator)}, pkgs...)
	fmt.Fprintf(stderr, "campaign: go %s\n", strings.Join(args, " "))
	start := time.Now()
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go build (run from the repository's root, or give -bin-dir): %v\n%s", err, out)
	}
	fmt.Fprintf(stderr, "campaign: built in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}
