// Command campaign is treelb's one measurement tool (package
// internal/campaign; docs/measuring.md says how it measures): it sweeps
// worlds × P × balancers × instances × seeds × repeats, one process per
// run with --json, writes one CSV row per run (the runner's columns run_*:
// the key, the command line, the load before and after, a load warning,
// wall and CPU time; then every JSON field, nested objects flattened as
// messages.request, machine.name, provenance.commit) and resumes: runs
// whose key (world, P, balancer with options, instance, seed, repeat) is
// in the CSV already are not run again. Every speedup is against the
// sequential solver on the same instance: the plan adds its baseline runs.
// Progress (run i of n, ETA) goes to stderr. At the end it prints a
// Markdown summary (medians with min–max of the repeats), writes it as
// PREFIX-summary.csv, and draws the plots (PNG and SVG) next to the CSV.
//
// Presets name the campaigns behind the project's figures (--preset help
// lists them, with their parameters, set by --set NAME=VALUE); the flags
// override a preset's defaults:
//
//	go run ./scripts/campaign --preset fifteen-fig3                   # seed 002 Fig. 3 on 2 real ranks
//	go run ./scripts/campaign --preset seed003 --set trials=10 --np 8,16 # seed 003's tables, a quick look
//	go run ./scripts/campaign --csv results/x.csv --world sim:gcel --np 64..4096*4 \
//	    --balancer rp --balancer 'rp --fast-init' --instance 'golomb 12' --height marks
//	go run ./scripts/campaign --csv results/x.csv --plot-only        # summary and plots of a CSV
//	campaign --csv out.csv --world mpi --bin-dir bin/openmpi --launcher 'srun --mpi=pmix -n {np}' --np 1,2,4 --instance 'golomb 10'
//	... | go run ./scripts/campaign --spread                        # median, min, max of "KEY VALUE" lines
//	go run ./scripts/campaign --median-machine m1.json m2.json m3.json # the median model of repeated calibrations
//
// Without --bin-dir the commands the instances name are built once (go
// build -buildvcs=auto ./apps/APP, with -tags) into a temporary directory,
// stamped with the commit where go can tell it; a preset's foreign
// programs (reference solvers) are built next to them.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/treelb/treelb/internal/campaign"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/runner"
	"github.com/treelb/treelb/version"
)

func main() {
	// A closed pipe on standard output is a write error (exit status 74,
	// with a message), as in the treelb commands, not a SIGPIPE that ends
	// the runner without a word.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// SIGINT and SIGTERM (kill, Slurm's end of a job) end the run under
	// way first (SIGTERM, then SIGKILL after a grace: campaign.ExecCommand),
	// so no command is left running to disturb the next campaign's times,
	// and the temporary inputs go; the CSV keeps every run done. The exit
	// status is then the signal's, 128 + its number, as a shell reports it.
	// With no run under way (reading --spread's input, planning, a
	// report), or a second signal, or the run not ended a grace after
	// its own, the runner exits at once.
	ctx, stop := context.WithCancel(context.Background())
	var inflight atomic.Int32
	ctx = context.WithValue(ctx, inflightKey{}, &inflight)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var got atomic.Int32
	go func() {
		s := <-sigs
		code := 128 + int(s.(syscall.Signal))
		got.Store(int32(code))
		signal.Stop(sigs) // a second signal ends the runner as it would without this
		stop()
		if inflight.Load() == 0 {
			os.Exit(code)
		}
		time.AfterFunc(campaign.KillGrace+5*time.Second, func() { os.Exit(code) })
	}()
	code := exitCode(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if s := got.Load(); s != 0 {
		code = int(s)
	}
	os.Exit(code)
}

// inflightKey keys, in run's context, the count of commands running
// (*atomic.Int32), which main's signal handler reads.
type inflightKey struct{}

// searchCommands are the treelb commands a campaign runs.
var searchCommands = []string{"golomb", "fifteen", "knapsack", "uts", "integrate"}

// The exit statuses of the campaign runner are the apps': 2 for bad flags,
// arguments or input (runner.UsageError: a CSV that does not parse
// included), 74 when its output (standard output, the CSV, the JSON lines,
// the summary, the plots: runner.OutputError) could not be written, 1 for
// any other failure (a run that failed).

// badUsage marks err, when not nil, as an error in the flags or arguments.
func badUsage(err error) error {
	if err == nil {
		return nil
	}
	return &runner.UsageError{Err: err}
}

// exitCode runs the campaign runner with args and returns its exit status,
// having printed why on stderr when it is not 0.
func exitCode(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Standard output keeps its first write error: the help, a dry run's
	// command lines and the summaries a run prints are its output, and a
	// full disk or a closed pipe must not end it with status 0.
	out := runner.NewCheckedWriter(stdout, "standard output")
	err := run(ctx, args, stdin, out, stderr)
	if errors.Is(err, flag.ErrHelp) {
		err = nil
	}
	code := 1 // a run that failed too: not its own status (a killed run's 255, a checkpointed run's 3)
	var ue *runner.UsageError
	var oe *runner.OutputError
	switch {
	case out.Err() != nil:
		err, code = out.Err(), runner.ExitOutput
	case err == nil:
		return 0
	case errors.As(err, &ue):
		code = ue.ExitCode()
	case errors.As(err, &oe):
		code = oe.ExitCode()
	}
	// Some errors already carry the prefix.
	fmt.Fprintln(stderr, "campaign:", strings.TrimPrefix(err.Error(), "campaign: "))
	return code
}

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, "; ") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("campaign", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var worlds, balancers, instances, sets list
	fs.Var(&worlds, "world", "world spec, repeatable: embedded, mpi or sim[:MACHINE], then flags of the command (default sim:gcel)")
	fs.Var(&balancers, "balancer", "balancer spec, repeatable: NAME [OPTION...], e.g. 'rp --fast-init' (default rp)")
	fs.Var(&instances, "instance", "instance spec, repeatable: APP [ARG...], e.g. 'golomb 12', 'fifteen --korf 7', 'knapsack <(knapsack gen -m 500 --seed 3)'")
	fs.Var(&sets, "set", "a preset's parameter, repeatable: NAME=VALUE (--preset help lists them)")
	preset := fs.String("preset", "", "a named campaign behind one of the project's figures ('help' lists them)")
	csvPath := fs.String("csv", "", "the CSV `FILE` (read first, for resuming; required without --preset)")
	np := fs.String("np", "1024", "P list: N, A-B, A..B*F (geometric), comma-separated")
	seeds := fs.String("seeds", "1", "seed list, as --np")
	repeats := fs.Int("repeats", 1, "runs of every configuration")
	jobs := fs.Int("jobs", 1, "runs at once (simulated worlds only: real runs would disturb each other's times)")
	binDir := fs.String("bin-dir", "", "directory of the commands (default: build them into a temporary directory)")
	tags := fs.String("tags", "", "build tags of the commands built (e.g. mpi)")
	launcher := fs.String("launcher", "", "prefix of every real run's command line (not a simulated one), {np} replaced by P (default for --world mpi: mpirun --oversubscribe -np {np})")
	jsonl := fs.String("jsonl", "", "also append every run's output to `FILE`")
	inputs := fs.String("inputs", "", "keep the files that instances' <(...) make in `DIR` (default: a temporary directory)")
	timeout := fs.Duration("timeout", 0, "per run (0: none)")
	plots := fs.String("plots", "", "path prefix of the plots and the summary CSV (default: the CSV's path without .csv; 'none': no plots)")
	title := fs.String("title", "", "first line of the plots' title: what ran (default: the preset's, or the apps and instances); the machines and P follow")
	height := fs.String("height", "", "columns (e.g. marks,length: the first a row has) or a number giving the tree height h for the summary's messages/(h·P)")
	plotOnly := fs.Bool("plot-only", false, "run nothing: summarize and plot the CSV")
	dry := fs.Bool("dry-run", false, "print the command lines still to run, and run nothing")
	spread := fs.Bool("spread", false, "read lines 'KEY VALUE' on stdin and print per key (in order of appearance) the number of values, their median, min and max")
	medianMachine := fs.Bool("median-machine", false, "read the machine models (JSON, as --calibrate prints them) in the files named after the flags and print their median, cost by cost")
	showVersion := fs.Bool("version", false, "print the build and exit")
	fs.BoolVar(showVersion, "v", false, "--version, as every command takes it")
	// A bad flag is one line naming it, as in every command; the help is
	// printed when asked for, and then it is the output.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if len(args) == 1 && args[0] == "help" {
		args = []string{"--help"}
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		usage(fs, stdout)
		return flag.ErrHelp
	} else if err != nil {
		return badUsage(runner.FlagError(err, func(name string) string { return flagWants(fs, name) }))
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, "campaign version", version.Get().String()) // as every command prints it
		return err
	}
	if *medianMachine {
		return medianMachines(fs.Args(), stdout)
	}
	if fs.NArg() > 0 {
		return badUsage(fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	if *spread {
		return badUsage(spreads(stdin, stdout)) // its errors are its input's (an output error is stdout's, exit 74)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *plotOnly && *dry {
		// A dry run writes nothing; --plot-only writes the summary and
		// the plots (it did, with both).
		return badUsage(errors.New("--dry-run and --plot-only: choose one (a dry run writes nothing, --plot-only writes the summary and the plots)"))
	}

	// The plan: a preset's defaults, or the flags' defaults; the flags
	// given override either.
	var p campaign.Preset
	if *preset == "help" {
		campaign.DescribePresets(stdout)
		return nil
	}
	if *preset != "" {
		var err error
		if p, err = campaign.LookupPreset(*preset); err != nil {
			return badUsage(err)
		}
	} else {
		if len(sets) > 0 {
			return badUsage(errors.New("--set: only with --preset"))
		}
		p = campaign.Preset{Defaults: campaign.Plan{Worlds: []string{"sim:gcel"}, Balancers: []string{"rp"}, NPs: []int{1024}, Seeds: []int64{1}, Repeats: 1}}
	}
	plan := p.Defaults
	if set["world"] {
		plan.Worlds = worlds
	}
	if set["balancer"] {
		plan.Balancers = balancers
	}
	if set["instance"] {
		plan.Instances = instances
	}
	if set["np"] {
		nps, err := campaign.ParseInts(*np)
		if err != nil {
			return badUsage(fmt.Errorf("--np: %w", err))
		}
		plan.NPs = nil
		for _, n := range nps {
			plan.NPs = append(plan.NPs, int(n))
		}
	}
	if set["seeds"] {
		var err error
		if plan.Seeds, err = campaign.ParseInts(*seeds); err != nil {
			return badUsage(fmt.Errorf("--seeds: %w", err))
		}
	}
	if set["repeats"] {
		plan.Repeats = *repeats
	}
	*csvPath = cmp.Or(*csvPath, p.CSV)
	if *csvPath == "" {
		return badUsage(errors.New("--csv is required (or a --preset)"))
	}
	// The CSV is written again through a temporary file renamed over it:
	// a symbolic link is followed first, or the rename replaced the link
	// with a file and left its target behind.
	if target, err := filepath.EvalSymlinks(*csvPath); err == nil {
		*csvPath = target
	}
	// The CSV is read, then written again through a temporary file
	// renamed over it: a device, a FIFO or a directory there is refused
	// before anything runs (as root, --csv /dev/null replaced /dev/null).
	if st, err := os.Stat(*csvPath); err == nil && !st.Mode().IsRegular() {
		return badUsage(fmt.Errorf("--csv %s: %s, not a CSV file (the campaign reads it and writes it again)", *csvPath, runner.FileKind(st.Mode())))
	}
	if *jsonl != "" && runner.SameFile(*jsonl, *csvPath) {
		return badUsage(fmt.Errorf("--jsonl %s is the file of --csv too: give each a file of its own", *jsonl))
	}
	if st, err := os.Stat(*jsonl); *jsonl != "" && err == nil && !st.Mode().IsRegular() {
		return badUsage(fmt.Errorf("--jsonl %s: %s, not a file of JSON lines", *jsonl, runner.FileKind(st.Mode())))
	}
	if summary := summaryPrefix(*csvPath, *plots) + "-summary.csv"; runner.SameFile(summary, *csvPath) || *jsonl != "" && runner.SameFile(summary, *jsonl) {
		return badUsage(fmt.Errorf("--plots %s: the summary %s would replace the campaign's --csv or --jsonl: give another prefix", *plots, summary))
	}
	*title, *height, *tags = cmp.Or(*title, p.Title), cmp.Or(*height, p.Height), cmp.Or(*tags, p.Tags)
	if h, err := strconv.ParseFloat(*height, 64); err == nil && !(h > 0 && !math.IsInf(h, 0)) {
		return badUsage(fmt.Errorf("--height %s: need a tree height above 0, or the columns that hold it", *height))
	}
	if !set["jobs"] && p.Jobs > 0 {
		*jobs = p.Jobs
	}
	params, err := p.Resolve(sets)
	if err != nil {
		return badUsage(err)
	}
	var setup campaign.Setup
	if !*plotOnly || *preset != "" {
		if setup, err = p.Setup(plan, params); err != nil {
			return badUsage(err) // the plan's worlds, balancers, instances, P and repeats, and the preset's parameters
		}
	}
	if !*plotOnly {
		keys := setup.Keys
		for _, k := range keys {
			app := campaign.App(k.Instance)
			if app == "dht" {
				// Its rounds have no balancer, world or nodes to measure.
				return badUsage(fmt.Errorf("--instance %q: dht is not a search; a campaign runs the commands with a balancer (%s)", k.Instance, strings.Join(searchCommands, ", ")))
			}
			if _, foreign := campaign.LookupForeign(app); !foreign && !slices.Contains(searchCommands, app) {
				return badUsage(fmt.Errorf("--instance %q: no command %s; a campaign runs %s (or a preset's reference program)", k.Instance, app, strings.Join(searchCommands, ", ")))
			}
		}
		if *jobs < 1 {
			return badUsage(fmt.Errorf("--jobs %d: need at least 1 run at once", *jobs))
		}
		if *timeout < 0 {
			return badUsage(fmt.Errorf("--timeout %v: must not be negative (0: none)", *timeout))
		}
		if st, err := os.Stat(*inputs); *inputs != "" && err == nil && !st.IsDir() {
			return badUsage(fmt.Errorf("--inputs %s: %s, not a directory", *inputs, runner.FileKind(st.Mode())))
		}
		launch := strings.Fields(*launcher)
		if len(launch) == 0 {
			launch = p.Launcher
		}
		mpiWorld := slices.ContainsFunc(keys, func(k campaign.Key) bool { return strings.HasPrefix(k.World, "mpi") })
		if len(launch) == 0 && mpiWorld {
			launch = []string{"mpirun", "--oversubscribe", "-np", "{np}"}
		}
		if mpiWorld && !slices.ContainsFunc(launch, func(a string) bool { return strings.Contains(a, "{np}") }) {
			// Every run, the baselines too, would have the launcher's one
			// size, and a baseline's row could not tell.
			return badUsage(fmt.Errorf("--launcher %q: no {np}, where each run's P goes (mpirun -np {np})", strings.Join(launch, " ")))
		}
		if *binDir != "" {
			// Absolute: the presets build their foreign programs into it
			// from a directory of their own.
			if *binDir, err = filepath.Abs(*binDir); err != nil {
				return fmt.Errorf("--bin-dir: %w", err)
			}
			if st, err := os.Stat(*binDir); err != nil {
				return badUsage(fmt.Errorf("--bin-dir: %w", err))
			} else if !st.IsDir() {
				return badUsage(fmt.Errorf("--bin-dir %s: %s, not a directory", *binDir, runner.FileKind(st.Mode())))
			}
			// The treelb commands the runs name (a preset's foreign
			// programs are built into it later): a directory without them
			// failed at the first run, and passed a dry run.
			for _, k := range keys {
				app := campaign.App(k.Instance)
				if _, foreign := campaign.LookupForeign(app); foreign {
					continue
				}
				if st, err := os.Stat(filepath.Join(*binDir, app)); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
					return badUsage(fmt.Errorf("--bin-dir %s: no command %s there (make build puts the commands in bin/)", *binDir, app))
				}
			}
		}
		r := campaign.Runner{CSV: *csvPath, JSONL: *jsonl, BinDir: *binDir, Launcher: launch, Timeout: *timeout, Progress: stderr,
			Jobs: *jobs, InputDir: *inputs, Sources: setup.Sources, Check: true}
		if n, ok := ctx.Value(inflightKey{}).(*atomic.Int32); ok {
			r.Exec = func(ctx context.Context, cmd []string) (campaign.Output, error) {
				n.Add(1)
				defer n.Add(-1)
				return campaign.ExecCommand(ctx, cmd)
			}
		}
		if err := r.CheckJobs(keys); err != nil {
			return badUsage(err)
		}
		if *dry {
			t, todo, err := r.Todo(keys)
			if err != nil {
				return err
			}
			for _, k := range todo {
				cmd, err := campaign.Command(k, campaign.CommandOptions{BinDir: cmp.Or(r.BinDir, "BIN"), Launcher: launch, SeqNodes: campaign.SeqNodes(t, k.Instance)})
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, strings.Join(cmd, " "))
			}
			return nil
		}
		// A dry run creates nothing; a run creates the directories of its
		// outputs, and opens the JSON lines' file, before the first run: a
		// path that cannot be written was found after a run, whose CSV
		// row was then written and its JSON line lost.
		for _, out := range []struct{ flag, dir string }{{"--csv", filepath.Dir(*csvPath)}, {"--jsonl", filepath.Dir(*jsonl)},
			{"--plots", filepath.Dir(summaryPrefix(*csvPath, *plots))}} {
			if err := os.MkdirAll(out.dir, 0o755); err != nil {
				return &runner.OutputError{What: out.flag + " " + out.dir, Err: err}
			}
		}
		if *plots != "none" {
			// The summary and the plots are written after the last run,
			// through temporary files beside them: a directory that takes
			// none failed the campaign then (exit 74 after every run).
			if err := canWrite(filepath.Dir(summaryPrefix(*csvPath, *plots))); err != nil {
				return &runner.OutputError{What: "--plots " + summaryPrefix(*csvPath, *plots), Err: err}
			}
		}
		unlock, err := lockCSV(*csvPath)
		if err != nil {
			return err
		}
		defer unlock()
		if *jsonl != "" {
			f, err := os.OpenFile(*jsonl, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err == nil {
				err = f.Close()
			}
			if err != nil {
				return &runner.OutputError{What: "--jsonl " + *jsonl, Err: err}
			}
		}
		if r.InputDir != "" {
			if err := os.MkdirAll(r.InputDir, 0o755); err != nil {
				return &runner.OutputError{What: "--inputs " + r.InputDir, Err: err}
			}
		}
		if r.BinDir == "" {
			dir, err := os.MkdirTemp("", "campaign")
			if err != nil {
				return fmt.Errorf("a directory to build the commands in: %w", err)
			}
			defer os.RemoveAll(dir)
			if err := build(ctx, dir, *tags, keys, stderr); err != nil {
				return err
			}
			r.BinDir = dir
		}
		if setup.Build != nil {
			if err := setup.Build(ctx, r.BinDir, stderr); err != nil {
				return err
			}
		}
		if _, err := r.Run(ctx, keys); err != nil {
			return err
		}
	}
	return report(*csvPath, *plots, *title, *height, setup, stdout, stderr)
}

// report writes the summary of the CSV at csvPath (Markdown on stdout,
// PREFIX-summary.csv), the plots and the preset's report.
func report(csvPath, plots, title, height string, setup campaign.Setup, stdout, stderr io.Writer) error {
	// A CSV that is not there or not a campaign's is bad input (2), as
	// docs/reliability.md says.
	if _, err := os.Stat(csvPath); err != nil {
		return badUsage(fmt.Errorf("%s: no campaign to report: %w", csvPath, err))
	}
	t, err := campaign.ReadTable(csvPath)
	if err != nil {
		return badUsage(err)
	}
	if t.Torn > 0 {
		fmt.Fprintf(stderr, "campaign: warning: %s ends with an incomplete row (%d bytes without their newline), left out of the report\n", csvPath, t.Torn)
	}
	if height != "" && !slices.ContainsFunc(strings.Split(height, ","), func(h string) bool {
		_, err := strconv.ParseFloat(h, 64)
		return err == nil || t.Col(h) >= 0
	}) {
		fmt.Fprintf(stderr, "campaign: warning: --height %s: %s has no such column; messages/(h·P) left blank\n", height, csvPath)
	}
	pts, err := campaign.Derive(t, height)
	if err != nil {
		return badUsage(fmt.Errorf("%s: %w", csvPath, err))
	}
	if len(pts) == 0 && setup.Report == nil {
		return badUsage(fmt.Errorf("%s: no parallel run", csvPath))
	}
	prefix := summaryPrefix(csvPath, plots)
	if err := os.MkdirAll(filepath.Dir(prefix), 0o755); err != nil {
		return &runner.OutputError{What: "--plots " + plots, Err: err}
	}
	if len(pts) > 0 {
		// The files first: standard output may be closed or full (its
		// error ends the command with 74 all the same).
		gs := campaign.Groups(pts)
		if err := campaign.WriteSummary(prefix+"-summary.csv", t, gs); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "campaign: summary %s-summary.csv\n", prefix)
		if plots != "none" && !setup.NoPlots {
			files, err := campaign.Plots(prefix, title, pts)
			if err != nil {
				return err
			}
			fmt.Fprintf(stderr, "campaign: plots %s\n", strings.Join(files, " "))
		}
		if err := campaign.Summarize(stdout, gs); err != nil {
			return err
		}
		if err := campaign.SummarizeBySize(stdout, pts); err != nil {
			return err
		}
	}
	if setup.Report != nil {
		return setup.Report(stdout, t)
	}
	return nil
}

// lockCSV takes the lock of a campaign's CSV, an advisory lock (flock) on
// the file CSV.lock beside it, held until unlock: two campaigns writing one
// CSV at once lost each other's rows. A lock another process holds is an
// error naming it, at once.
func lockCSV(csvPath string) (unlock func(), err error) {
	path := csvPath + ".lock"
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, &runner.OutputError{What: path, Err: err}
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 64))
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, badUsage(fmt.Errorf("--csv %s: another campaign is writing it (%s holds %s)", csvPath, cmp.Or(strings.TrimSpace(string(holder)), "a process"), path))
		}
		return nil, &runner.OutputError{What: path, Err: err}
	}
	// Who holds it, for the message of the next one (the file stays: a
	// lock file removed while another process opens it locks nothing).
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d", os.Getpid())
	}
	return func() { f.Close() }, nil
}

// canWrite reports whether a file can be made in dir: it makes one and
// removes it.
func canWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".campaign-check-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// summaryPrefix returns the path prefix of the summary and the plots:
// --plots, or the CSV's path without .csv.
func summaryPrefix(csvPath, plots string) string {
	if plots == "" || plots == "none" {
		return strings.TrimSuffix(csvPath, ".csv")
	}
	return plots
}

// build builds the treelb commands that the keys' instances (and their
// <(...) generators) name into dir; foreign programs are a preset's to
// build.
func build(ctx context.Context, dir, tags string, keys []campaign.Key, stderr io.Writer) error {
	var pkgs []string
	addApp := func(app string) {
		if _, foreign := campaign.LookupForeign(app); !foreign && !slices.Contains(pkgs, "./apps/"+app) {
			pkgs = append(pkgs, "./apps/"+app)
		}
	}
	for _, k := range keys {
		addApp(campaign.App(k.Instance))
		args, err := campaign.InstanceArgs(k.Instance)
		if err != nil {
			return err
		}
		for _, a := range args {
			if a.Gen != nil {
				addApp(a.Gen[0])
			}
		}
	}
	if len(pkgs) == 0 {
		return nil
	}
	args := []string{"build", "-buildvcs=auto"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	args = append(append(args, "-o", dir+string(os.PathSeparator)), pkgs...)
	fmt.Fprintf(stderr, "campaign: go %s\n", strings.Join(args, " "))
	start := time.Now()
	if out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("go build (run from the repository's root, or give --bin-dir): %v\n%s", err, out)
	}
	fmt.Fprintf(stderr, "campaign: built in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// medianMachines prints, as JSON, the median of the machine models in the
// files (campaign.MedianMachine).
func medianMachines(files []string, w io.Writer) error {
	// The files are its input: an error in them is bad input, exit 2.
	if len(files) == 0 {
		return badUsage(errors.New("--median-machine: name the models' files"))
	}
	ms := make([]lb.Machine, len(files))
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return badUsage(fmt.Errorf("--median-machine: %w", err))
		}
		if ms[i], err = lb.ParseMachine(b); err != nil {
			return badUsage(fmt.Errorf("--median-machine: %s: %w", f, err))
		}
	}
	m, err := campaign.MedianMachine(ms)
	if err != nil {
		return badUsage(fmt.Errorf("--median-machine: %w", err))
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// spreads reads "KEY VALUE" lines (blank lines and lines starting with #
// ignored; KEY may hold blanks, VALUE is the last field) and prints per
// key, in order of first appearance, a line of the key, the number of
// values, their median, min and max (campaign.SpreadOf: gonum's median),
// separated by tabs.
func spreads(r io.Reader, w io.Writer) error {
	var order []string
	vals := map[string][]float64{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexAny(line, " \t")
		if i < 0 {
			return fmt.Errorf("--spread: line %d: want KEY VALUE, have %q", n, line)
		}
		key := strings.TrimSpace(line[:i])
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return fmt.Errorf("--spread: line %d: %w", n, err)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			// The median would leave it out without a word.
			return fmt.Errorf("--spread: line %d: %q is no measurement", n, line[i+1:])
		}
		if _, ok := vals[key]; !ok {
			order = append(order, key)
		}
		vals[key] = append(vals[key], v)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	for _, k := range order {
		s := campaign.SpreadOf(vals[k])
		if _, err := fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\n", k, s.N, g(s.Median), g(s.Min), g(s.Max)); err != nil {
			return err
		}
	}
	return nil
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// flagWants says what the flag name of fs takes, for a message about a
// value it could not parse ("" when it does not know).
func flagWants(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(name)
	if f == nil {
		return ""
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case int, int64:
		return "need an integer"
	case uint, uint64:
		return "need a whole number, 0 or more"
	case float64:
		return "need a number"
	case time.Duration:
		return "need a duration such as 90s, 10m or 1h30m"
	case bool:
		return "need true or false"
	}
	return ""
}

// usage writes the runner's help with its flags in the style of the
// treelb commands (--name; the flag package takes one dash or two).
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintln(w, "usage: campaign --preset NAME [--set NAME=VALUE]... [FLAG...]")
	fmt.Fprintln(w, "       campaign --csv FILE --world W --np LIST --balancer B --instance I [FLAG...]")
	fmt.Fprintln(w, "       campaign --csv FILE --plot-only | campaign --spread < KEY-VALUE-LINES")
	fmt.Fprintln(w, "flags:")
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "v" { // --version's short name
			return
		}
		arg, help := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if f.Name == "version" {
			line = "  -v, --version"
		}
		if arg != "" {
			line += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			help += fmt.Sprintf(" (default: %s)", f.DefValue)
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, help)
	})
	fmt.Fprintln(w, "exit status: 0 on success; 1 when a run failed (whatever its own status; the CSV keeps the runs done);")
	fmt.Fprintln(w, "2 for bad flags or a CSV that is no campaign's; 74 when an output could not be written;")
	fmt.Fprintln(w, "128 + the signal's number when SIGINT or SIGTERM ended it (docs/reliability.md)")
}
