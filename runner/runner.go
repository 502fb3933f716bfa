package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/version"
)

// Seq is the balancer name that runs the plain sequential solver, with no
// balancer and one rank.
const Seq = "seq"

// The worlds a command runs in (--world).
const (
	WorldEmbedded = "embedded" // goroutine ranks in this process (the default build)
	WorldMPI      = "mpi"      // MPI processes (the -tags mpi build, under mpirun or srun)
	WorldSim      = "sim"      // the discrete-event simulator, virtual time
)

// MaxNP is the most ranks --np accepts: the embedded world and the
// simulator keep every rank in this process (sim.MaxRanks).
const MaxNP = sim.MaxRanks

// Common is the parsed common flags. The zero value is not meaningful; use
// Parse.
type Common struct {
	NP       int    // ranks: --np, or the launcher's under MPI (0 until the world starts)
	World    string // WorldEmbedded, WorldMPI or WorldSim
	Balancer string // Seq, a registered balancer, or "" for a command without balancers
	Seed     uint64
	JSON     bool
	Stats    bool
	Quiet    bool
	Progress bool // --progress: progress lines on rank 0 even when stderr is no terminal
	Budget   int64
	// MinBudget is --min-budget: the adaptive Δt's shortest slice, 0 for a
	// fixed Δt (lb.Config.MinBudget).
	MinBudget int64
	// Options are the balancer's own options (its lb.Info.Options type),
	// from the flags it declares; nil under Seq and without balancers.
	Options lb.Options
	Idle    mpi.Idle // how waiting ranks wait under MPI (--idle)
	// Checkpoint is the file of --checkpoint, CheckpointEvery the period
	// of --checkpoint-every (0: on signals only), Restart the file of
	// --restart.
	Checkpoint      string
	CheckpointEvery time.Duration
	Restart         string
	// MaxNodes and TimeLimit stop the search early (--max-nodes,
	// --time-limit; 0: never); StartupTimeout bounds the wait for every
	// MPI rank at the start (--startup-timeout; 0: none); StallTimeout
	// ends a run whose ranks hear nothing of the search for that long
	// (--stall-timeout, driver.Options.StallTimeout; 0: no watchdog).
	MaxNodes       int64
	TimeLimit      time.Duration
	StartupTimeout time.Duration
	StallTimeout   time.Duration
	info           lb.Info     // the balancer, unless Seq
	sim            *simOptions // the simulation flags, with --world sim
	calibrate      bool        // --calibrate
}

// optionFlags are the balancer options' flags: every name a registered
// balancer's options declare (lb.OptionNames), each once, in the order of
// the balancers.
func optionFlags() []string {
	var names []string
	for _, info := range lb.Balancers() {
		for _, n := range lb.OptionNames(info.Options) {
			if !contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// Flags returns the flags every app that runs a balancer shares, defined
// once here, in their --help categories (run, balancer, simulation,
// checkpoint, output).
func Flags() []cli.Flag {
	world := WorldEmbedded
	if mpi.WorldName == "mpi" {
		world = WorldMPI
	}
	return categorized([]cli.Flag{
		&cli.IntFlag{Name: "np", Value: runtime.NumCPU(), Usage: fmt.Sprintf("ranks of the embedded or simulated world, 1..%d (under mpirun/srun the launcher's size; a different --np is an error)", MaxNP)},
		&cli.StringFlag{Name: "idle", Usage: "under MPI, how waiting ranks wait: spin, yield (poll and sleep, for more ranks than cores) or auto (yield when the launcher put more ranks on the node than it has CPUs); default: $" + mpi.IdleEnv + ", else auto"},
		&cli.StringFlag{Name: "world", Value: world, Usage: worldUsage()},
		&cli.StringFlag{Name: "balancer", Aliases: []string{"b"}, Value: "rp", Usage: "load balancer: seq (sequential solver) or one of " + strings.Join(lb.Names(), ", ") + "; 'help' lists them"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the ranks' random sources"},
		&cli.BoolFlag{Name: "check", Usage: "check the command line and the instance (its file, or --restart's checkpoint) as a run would, then exit (0: it would start) without running or writing anything"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON on stdout"},
		&cli.BoolFlag{Name: "stats", Usage: "print per-rank statistics"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the answer (and no progress lines, unless --progress is given too)"},
		&cli.BoolFlag{Name: "progress", Usage: "print a progress line on stderr about once a second (--progress=false: never): elapsed time, nodes on all ranks, nodes/s, busy ranks, incumbent", DefaultText: "when stderr is a terminal"},
		&cli.Int64Flag{Name: "budget", Value: lb.DefaultBudget, Usage: "nodes of work between two polls (Δt)"},
		&cli.Int64Flag{Name: "min-budget", Usage: "adaptive Δt: a rank asked for work cuts its next slice to this many nodes, and each slice without a request grows the next by a quarter, back up to --budget (0: every slice is --budget, as seed 002's Δt)"},
		&cli.BoolFlag{Name: "fast-init", Usage: "rp, ps, koso, koso-star: every rank splits the broadcast root log P times (seed 002 §4.3)"},
		&cli.IntFlag{Name: "queue-limit", Usage: "rp, rp-local, hybrid: reject requests without splitting past this many per poll (0: 2·√P)"},
		&cli.BoolFlag{Name: "drain", Usage: "rp: a queue past --queue-limit interrupts the whole search until no request is left in the system, instead of rejecting locally (seed 002 §4.2)"},
		&cli.IntFlag{Name: "radius", Usage: "rp-local: ask only within this ring distance, never globally (0: the neighbour set doubling from 4; seed 002 §6.2's rejected fixed radius)"},
		&cli.Float64Flag{Name: "growth", Usage: "rp-local: factor by which the neighbour set grows per request, above 1 (0: 2, doubling; seed 002 §6.2 found slower growth slower)"},
		&cli.BoolFlag{Name: "ordered-init", Usage: "rp-local: rank r starts with fast initialisation's piece r, without the pseudo-random placement (seed 002 §6.2: the randomized placement is essential)"},
		&cli.BoolFlag{Name: "pair-sync", Usage: "ps: synchronise only pairs after a phase, all ranks once per cycle"},
		&cli.BoolFlag{Name: "ask-lower", Usage: "ps: idle ranks also ask along lower dimensions"},
		&cli.Float64Flag{Name: "shuffle-below", Usage: "ps: shuffle only when fewer than this fraction of ranks are busy (0: always)"},
		&cli.IntFlag{Name: "levels", Usage: fmt.Sprintf("static, hybrid: k, split the root into 2^k leaves, 0..%d (0: default from the seeds' bounds, at most ⌈log₂ P⌉+10); every leaf costs its rank k splits, so short searches on many ranks want about ⌈log₂ P⌉+4", lb.MaxSplitLevels)},
		&cli.StringFlag{Name: "perm", Value: "gf", Usage: "static, hybrid: pseudo-random permutation, gf or lcg"},
		&cli.IntFlag{Name: "clusters", Value: 1, Usage: "hybrid: clusters of ranks that poll each other (0 is 1; more than the ranks: one rank a cluster)"},
	}, checkpointFlags(), simFlagList())
}

// FlagsNamed returns the common flags with the given names, for commands
// that take only some of them (no balancer, say).
func FlagsNamed(names ...string) []cli.Flag {
	var out []cli.Flag
	for _, f := range Flags() {
		for _, n := range names {
			if f.Names()[0] == n {
				out = append(out, f)
			}
		}
	}
	return out
}

// checkBudget checks a run's Δt and its adaptive minimum as --budget and
// --min-budget give them (a restart's from its checkpoint too).
func checkBudget(budget, minBudget int64) error {
	if budget < 1 {
		return fmt.Errorf("--budget %d: need at least 1 node", budget)
	}
	if minBudget < 0 || minBudget > budget {
		return fmt.Errorf("--min-budget %d: need 0 (a fixed Δt) to --budget (%d) nodes", minBudget, budget)
	}
	return nil
}

// UsageError is a bad command line or input: the command exits with 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode is 2, as for a usage error.
func (e *UsageError) ExitCode() int { return 2 }

// CommandError is true: bad input is the command's, not a rank's to be
// named (package mpi names the failing rank of other errors).
func (e *UsageError) CommandError() bool { return true }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// errHelpShown ends a command that printed help it was asked for.
var errHelpShown = errors.New("help shown")

// Parse reads the common flags that c defines and checks them; it does
// nothing else (no I/O), so every rank reaches the same verdict.
func Parse(c *cli.Context) (Common, error) {
	cm := Common{NP: c.Int("np"), World: c.String("world"), Balancer: c.String("balancer"), Seed: c.Uint64("seed"),
		JSON: c.Bool("json"), Stats: c.Bool("stats"), Quiet: c.Bool("quiet"), Progress: c.Bool("progress"), Budget: c.Int64("budget"),
		StartupTimeout: DefaultStartupTimeout}
	// A command may define only some of the common flags.
	if !defines(c, "world") {
		cm.World = WorldEmbedded
		if mpi.WorldName == "mpi" {
			cm.World = WorldMPI
		}
	}
	if !defines(c, "np") {
		cm.NP = runtime.NumCPU()
	}
	if !defines(c, "budget") {
		cm.Budget = lb.DefaultBudget
	}
	cm.Checkpoint, cm.CheckpointEvery, cm.Restart = c.String("checkpoint"), c.Duration("checkpoint-every"), c.String("restart")
	for _, name := range textFlags {
		if defines(c, name) && c.IsSet(name) && strings.TrimSpace(c.String(name)) == "" {
			return cm, Usagef("--%s: an empty value (see --help)", name)
		}
	}
	if cm.Balancer == "help" {
		if cm.JSON {
			// One JSON line a balancer, as the other listings (uts --tree
			// help, integrate func help) print them with --json.
			if err := WriteJSON(c.App.Writer, listing{Name: Seq, Description: "the plain sequential solver, one rank, no balancer"}); err != nil {
				return cm, err
			}
			for _, info := range lb.Balancers() {
				if err := WriteJSON(c.App.Writer, listing{Name: info.Name, Description: info.Doc, Options: lb.OptionNames(info.Options)}); err != nil {
					return cm, err
				}
			}
			return cm, errHelpShown
		}
		fmt.Fprintf(c.App.Writer, "balancers:\n  %-10s the plain sequential solver, one rank, no balancer\n%s", Seq, lb.Describe())
		return cm, errHelpShown
	}
	if _, err := lookupWorld(cm.World); err != nil {
		return cm, err
	}
	if err := parseSim(c, &cm); err != nil {
		return cm, err
	}
	if cm.World == WorldMPI && !c.IsSet("np") {
		cm.NP = 0 // the launcher's size
	} else if cm.NP < 1 || cm.NP > MaxNP {
		return cm, Usagef("--np %d: need 1 to %d ranks", cm.NP, MaxNP)
	}
	if defines(c, "min-budget") {
		cm.MinBudget = c.Int64("min-budget")
	}
	if err := checkBudget(cm.Budget, cm.MinBudget); err != nil {
		return cm, &UsageError{Err: err}
	}
	if cm.World == WorldEmbedded && cm.Balancer != Seq {
		if err := CheckMemory(float64(cm.NP)*BytesPerEmbeddedRank, fmt.Sprintf("--np %d goroutine ranks", cm.NP)); err != nil {
			return cm, err
		}
	}
	if c.IsSet("idle") {
		var err error
		if cm.Idle, err = mpi.ParseIdle(c.String("idle")); err != nil {
			return cm, Usagef("--idle: %v", err)
		}
	}
	if err := parseLimits(c, &cm); err != nil {
		return cm, err
	}
	if err := cm.checkOutputs(); err != nil {
		return cm, err
	}
	if cm.calibrate && cm.World != WorldSim {
		// It measures instead of searching: these would do nothing.
		for _, name := range []string{"checkpoint", "restart", "checkpoint-every", "max-nodes", "time-limit", "stats"} {
			if defines(c, name) && c.IsSet(name) {
				return cm, Usagef("--%s: --calibrate in the %s world measures this machine instead of searching (with --world sim it simulates after)", name, cm.World)
			}
		}
	}
	switch {
	case cm.CheckpointEvery < 0:
		return cm, Usagef("--checkpoint-every %v: must not be negative", cm.CheckpointEvery)
	case cm.CheckpointEvery > 0 && cm.Checkpoint == "":
		return cm, Usagef("--checkpoint-every needs --checkpoint FILE")
	case (cm.Checkpoint != "" || cm.Restart != "") && (cm.Balancer == Seq || cm.Balancer == ""):
		return cm, Usagef("--checkpoint, --restart: only searches with a balancer can checkpoint (not --balancer %s)", cm.Balancer)
	}
	if cm.Balancer == "" {
		return cm, nil // a command without balancers
	}
	if cm.Balancer == Seq {
		for _, name := range optionFlags() {
			if c.IsSet(name) {
				return cm, Usagef("--%s: the sequential solver (--balancer seq) has no balancer options", name)
			}
		}
		if cm.sim != nil && cm.sim.trace != "" {
			return cm, Usagef("--trace: the sequential solver (--balancer seq) runs for real, one rank: there is no simulation to trace")
		}
		seqNotes(c, &cm)
		return cm, nil
	}
	info, err := lb.Lookup(cm.Balancer)
	if err != nil {
		return cm, Usagef("unknown balancer %q (try --balancer help)", cm.Balancer)
	}
	cm.info = info
	if cm.Options, err = balancerOptions(c, info); err != nil {
		return cm, err
	}
	if cm.NP > 0 {
		return cm, cm.checkSize(cm.NP)
	}
	return cm, nil
}

// seqNotes says, for --balancer seq, what of the command line the
// sequential solver does not use. A function of its own: Parse's frame is
// on every golomb rank's stack, which TestRankStack holds to 8 KB.
func seqNotes(c *cli.Context, cm *Common) {
	// Say what is not used rather than run quietly otherwise than asked
	// (to a reader: the campaign runner's baselines are --json runs of
	// the sequential solver in the world sim, for its nodes).
	switch {
	case cm.World == WorldSim && !cm.JSON:
		fmt.Fprintf(c.App.ErrWriter, "%s: note: --balancer seq runs the sequential solver for real, one rank: --world sim simulates nothing (its time is this machine's)\n", c.App.Name)
	case c.IsSet("np") && cm.NP > 1 && cm.World == WorldEmbedded:
		fmt.Fprintf(c.App.ErrWriter, "%s: note: --balancer seq runs one rank: --np %d is not used\n", c.App.Name, cm.NP)
	}
	// The flags of the balanced search's loop, which the sequential
	// solver has not: taken, as a campaign's baselines give them, but
	// not in silence (--progress printed nothing for minutes).
	var unused []string
	for _, name := range []string{"budget", "min-budget", "seed", "progress", "stall-timeout"} { // work slices, random sources, progress lines, the watchdog
		if defines(c, name) && c.IsSet(name) {
			unused = append(unused, "--"+name)
		}
	}
	if len(unused) > 0 && !cm.JSON {
		verb := "are"
		if len(unused) == 1 {
			verb = "is"
		}
		fmt.Fprintf(c.App.ErrWriter, "%s: note: --balancer seq runs the sequential solver, without the balanced search's loop: %s %s not used\n",
			c.App.Name, strings.Join(unused, ", "), verb)
	}
}

// balancerOptions returns the options of the balancer info that the flags
// of c set: its options type's defaults, with every option flag given on
// the command line (a usage error for a flag the balancer does not
// declare, and for a value out of range).
func balancerOptions(c *cli.Context, info lb.Info) (lb.Options, error) {
	o := info.Options
	if c.String("restart") != "" && !c.IsSet("balancer") {
		// The checkpoint's balancer takes them, over its own options:
		// loadRestart checks them against it (restartOptions). Checked
		// here against the default balancer, rp-local's --growth was
		// refused and rp's --fast-init dropped.
		return o, nil
	}
	return optionsOver(c, info, o, "balancer")
}

// restartOptions returns the balancer options of a restart without
// --balancer: the checkpoint's (file, of its balancer info), with the
// option flags given on the command line over them, as docs/checkpoint.md
// says; an option that balancer does not take is an error.
func restartOptions(c *cli.Context, info lb.Info, file lb.Options) (lb.Options, error) {
	return optionsOver(c, info, file, "the checkpoint's balancer")
}

// optionsOver returns o, options of the balancer info (whose, in a
// message: "balancer"), with every option flag given on the command line
// set over it: a usage error for a flag the balancer does not declare,
// and for a value out of range.
func optionsOver(c *cli.Context, info lb.Info, o lb.Options, whose string) (lb.Options, error) {
	for _, name := range optionFlags() {
		if !c.IsSet(name) {
			continue
		}
		if !lb.HasOption(o, name) {
			return nil, Usagef("--%s: %s %s does not use it (it takes %s)", name, whose, info.Name, optionList(lb.OptionNames(info.Options)))
		}
		var err error
		if o, err = lb.SetOption(o, name, flagText(c, name)); err != nil {
			return nil, Usagef("--%s: %v", name, err)
		}
	}
	if err := checkOptions(o); err != nil {
		return nil, err
	}
	return o, nil
}

// flagText returns the value of the flag called name as text, as
// lb.SetOption reads it.
func flagText(c *cli.Context, name string) string {
	switch v := c.Value(name).(type) {
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return fmt.Sprint(c.Value(name))
}

// FastInit reports whether the run's balancer starts with fast
// initialisation (--fast-init of the balancers that declare it).
func (cm Common) FastInit() bool {
	v, _ := lb.OptionValue(cm.Options, "fast-init")
	return v == "true"
}

// checkOptions checks a balancer's options as their Validate does, naming
// the flag of a bad one.
func checkOptions(o lb.Options) error {
	num := func(name string) float64 {
		v, _ := lb.OptionValue(o, name)
		x, _ := strconv.ParseFloat(v, 64) // "" (the default) is 0
		return x
	}
	perm, _ := lb.OptionValue(o, "perm")
	switch q, c, k, sb := num("queue-limit"), num("clusters"), num("levels"), num("shuffle-below"); {
	case q < 0:
		return Usagef("--queue-limit %g: must not be negative (0: 2·√P)", q)
	case c < 0:
		return Usagef("--clusters %g: must not be negative", c)
	case k < 0 || k > lb.MaxSplitLevels:
		return Usagef("--levels %g: %g split levels: need 0 (the default) to %d", k, k, lb.MaxSplitLevels)
	case perm != "" && perm != "gf" && perm != "lcg":
		return Usagef("--perm %q: need gf or lcg", perm)
	case !(sb >= 0 && sb <= 1):
		return Usagef("--shuffle-below %g: need a fraction from 0 to 1", sb)
	}
	if err := o.Validate(); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// textFlags are the common flags whose value is a name: an empty one is
// an error (not the default).
var textFlags = []string{"world", "balancer", "idle", "perm", "checkpoint", "restart", "machine", "trace"}

// maxLeavesPerRank bounds the leaves of static placement (--levels) per
// rank: each costs its rank k splits of the root, and an empty leaf costs
// no node, so neither --max-nodes nor the node count bounds their time. At
// 2²⁴ leaves a rank splits for minutes (golomb: about 20 µs a leaf).
const maxLeavesPerRank = 1 << 24

// checkSize checks the flags that depend on the number of ranks, size:
// the leaves that --levels makes per rank.
func (cm Common) checkSize(size int) error {
	v, ok := lb.OptionValue(cm.Options, "levels")
	k, _ := strconv.Atoi(v)
	if k <= 0 || !ok || cm.info.Name == "" || size < 1 {
		return nil
	}
	if per := (uint64(1) << k) / uint64(size); per > maxLeavesPerRank {
		most := k
		for most > 0 && (uint64(1)<<most)/uint64(size) > maxLeavesPerRank {
			most--
		}
		return Usagef("--levels %d: 2^%d leaves are %d per rank on %d ranks, each made by %d splits of the root, and an empty leaf counts no node: "+
			"hours of splitting that no node or time bound interrupts; need --levels ≤ %d on %d ranks", k, k, per, size, k, most, size)
	}
	return nil
}

// defines reports whether the command of c has the flag called name.
func defines(c *cli.Context, name string) bool {
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func optionList(opts []string) string {
	if len(opts) == 0 {
		return "no options"
	}
	return "--" + strings.Join(opts, ", --")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Config returns the run configuration of the flags; RankStats follows
// --stats.
func (cm Common) Config() lb.Config {
	return lb.Config{Balancer: cm.info.New, Options: cm.Options, Budget: cm.Budget, MinBudget: cm.MinBudget, Seed: cm.Seed, RankStats: cm.Stats}
}

// Main runs app with the process arguments and exits with the status of
// Execute. A closed pipe on standard output or error is an error of the
// write (exit status ExitOutput), not a SIGPIPE that kills the process
// silently; standard output is closed before the exit, so that a failure
// the close reports (a full NFS disk) is not lost either. Main also sets
// Go's soft memory limit below the process's limit unless GOMEMLIMIT is
// set, and while an embedded world runs keeps its heap goal at 4 MiB per
// rank that can run at once unless GOGC is set (docs/reliability.md,
// Memory; docs/usage.md, the Go runtime's settings). In the MPI build it
// gives each process of a launch that did not bind it its share of the
// node's CPUs as GOMAXPROCS, unless GOMAXPROCS is set (setMPIProcs).
// Execute does none of these.
func Main(app *cli.App) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// A SIGUSR1 that comes before the command has parsed --checkpoint
	// (a batch system's signal at start-up) is kept for it: the Go
	// runtime would drop it, and the run would end with status 0 and no
	// checkpoint. The runs without --checkpoint ignore it, as Go does.
	early := make(chan os.Signal, 1)
	signal.Notify(early, syscall.SIGUSR1)
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[MetaEarlySignal] = early
	app.Metadata[metaSilentGrace] = silentTaskGrace
	app.Metadata[metaProcess] = true
	setMemoryLimit()
	if mpi.WorldName == "mpi" {
		setMPIProcs()
	}
	app.Writer = NewCheckedWriter(os.Stdout, "standard output")
	if mpi.WorldName == "mpi" && !mpi.DetectLauncher(os.Getenv).Speaks() {
		// Help and --version come before any world starts, from every
		// task alike, and an MPI world's output is rank 0's (the task
		// the launcher numbers 0): the other tasks' standard output stays
		// silent; their errors still go to standard error.
		app.Writer = io.Discard
	}
	code := Execute(app, os.Args)
	if err := os.Stdout.Close(); err != nil && code == 0 {
		fmt.Fprintf(errWriter(app), "%s: closing standard output: %v\n", app.Name, err)
		code = ExitOutput
	}
	os.Exit(code)
}

// errWriter is where app's errors go.
func errWriter(app *cli.App) io.Writer {
	if app.ErrWriter != nil {
		return app.ErrWriter
	}
	return os.Stderr
}

// Execute runs app with args (args[0] the program's name) and returns the
// exit status, printing errors on app.ErrWriter; Main is Execute with the
// process's arguments, and tests call it in process.
//
// Every write to app.Writer and app.ErrWriter is checked: a failed one
// (a full disk, a closed pipe) ends a run that would have succeeded with
// ExitOutput and a message on the error output where it can. A panic
// becomes an *InternalError, ExitInternal, with its stack in a file.
func Execute(app *cli.App, args []string) (code int) {
	out := NewCheckedWriter(orStdout(app.Writer), "standard output")
	errw := NewCheckedWriter(errWriter(app), "standard error")
	app.Writer, app.ErrWriter = out, errw
	defer func() {
		if code == 0 || code == ExitCheckpointed || code == ExitLimit {
			if err := out.Err(); err != nil {
				fmt.Fprintf(errw, "%s: %v\n", app.Name, err)
				code = ExitOutput
			} else if errw.Err() != nil {
				code = ExitOutput
			}
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(errw, "%s: %v\n", app.Name, internalError(app.Name, -1, p, debug.Stack()))
			code = ExitInternal
		}
	}()
	return execute(app, args)
}

// versionAfterCommand reports whether args name a subcommand of app and
// --version (or -v) after it, before any "--", where the subcommand has
// no flag of that name.
func versionAfterCommand(app *cli.App, args []string) bool {
	var cmd *cli.Command
	for _, a := range args[1:] {
		switch {
		case a == "--":
			return false
		case cmd == nil:
			cmd = app.Command(a)
		case a == "--version" || a == "-v":
			for _, f := range cmd.Flags {
				for _, n := range f.Names() {
					if n == strings.TrimLeft(a, "-") {
						return false
					}
				}
			}
			return true
		}
	}
	return false
}

func orStdout(w io.Writer) io.Writer {
	if w == nil {
		return os.Stdout
	}
	return w
}

// helpAnywhere rewrites a command line with -h or --help anywhere before
// "--" to the help of the command it names: the app and the subcommands
// among its words, then --help, the other words dropped. cli read the
// first argument beside --help as a help topic, so `integrate func gauss
// --help` failed ("No help topic for 'gauss'", exit 3) and `golomb 12
// --help` depended on where the flag stood.
func helpAnywhere(app *cli.App, args []string) []string {
	i := slices.IndexFunc(args[1:], func(a string) bool { return a == "--help" || a == "-h" || a == "--" })
	if i < 0 || args[1+i] == "--" {
		return args
	}
	out := []string{args[0]}
	cmds := app.Commands
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		for _, c := range cmds {
			if c.HasName(a) {
				out, cmds = append(out, a), c.Subcommands
				break
			}
		}
	}
	return append(out, "--help")
}

// onlyHelp reports whether the one argument of a command line, its flags
// and their values aside, is the word help, no subcommand named and no
// "--": `golomb --np 2 help` is `golomb help`, which is `golomb --help`
// (it read help as MARKS). A subcommand's word help is its own
// (`integrate func help` lists the functions).
func onlyHelp(app *cli.App, args []string) bool {
	known := append(append([]cli.Flag(nil), app.Flags...), commandFlags(app)...)
	var words []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return false
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if takesValue(known, a) && !strings.Contains(a, "=") {
				i++
			}
		default:
			words = append(words, a)
		}
	}
	return len(words) == 1 && words[0] == "help"
}

func execute(app *cli.App, args []string) int {
	if onlyHelp(app, args) {
		// `APP help` is `APP --help` in every command, as in go and git
		// (a file or an argument named help: ./help), with flags too.
		args = []string{args[0], "--help"}
	}
	if len(args) == 3 && args[1] == "help" && len(app.Commands) > 0 {
		// `APP help SUB` is `APP SUB --help`, as `go help build` is.
		if app.Command(args[2]) == nil {
			fmt.Fprintf(errWriter(app), "%s help %s: no such command; the commands: %s\n", app.Name, args[2], CommandNames(app.Commands))
			return 2
		}
		args = []string{args[0], args[2], "--help"}
	}
	args = helpAnywhere(app, args)
	if len(app.Commands) > 0 && versionAfterCommand(app, args) {
		// `integrate alpha --version` is `integrate --version`: the build
		// is the command's, whatever the subcommand.
		args = []string{args[0], "--version"}
	}
	app.Version = version.Get().String() // --version, -v: the build and its MPI library
	if app.CustomAppHelpTemplate == "" {
		// The help's VERSION section holds the build's lines, each indented
		// (cli's template indents the first alone).
		app.CustomAppHelpTemplate = strings.Replace(cli.AppHelpTemplate, "   {{.Version}}", "{{indent 3 .Version}}", 1)
	}
	// Under a launcher that started several tasks, what every task would
	// print alike comes from the task the launcher numbers 0 alone: in the
	// embedded build, whose tasks never share a world, every message (help,
	// --version, the launch check's error); in the MPI build the launch
	// checks' errors (below), where the tasks found no world to share. In
	// an MPI world rank 0 prints the run's output and verdicts.
	speaks := mpi.DetectLauncher(os.Getenv).Speaks()
	if !speaks && mpi.WorldName != "mpi" {
		app.Writer, app.ErrWriter = io.Discard, io.Discard
	}
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = usageFor(app.Flags, app.Commands)
	app.HideHelpCommand = true
	// Subcommands too: their bad flags are usage errors, and an argument
	// "help" is theirs to read (integrate func help).
	for _, cmd := range app.Commands {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = usageFor(cmd.Flags, cmd.Subcommands)
		}
		cmd.HideHelpCommand = true
		cmd.Before = checkBefore(app, cmd, cmd.Before)
	}
	if app.Metadata == nil {
		app.Metadata = map[string]any{}
	}
	app.Metadata[metaArgs] = args
	args, err := restartCommand(app, args)
	if err == nil {
		err = app.Run(ReorderArgs(app, args))
	}
	if err == nil || errors.Is(err, errHelpShown) {
		return 0
	}
	if topic, ok := strings.CutPrefix(err.Error(), "No help topic for "); ok {
		// cli's answer to --help WORD, with its exit status 3, which is
		// "checkpointed" here: a usage error, as `APP help WORD` is.
		err = Usagef("--help %s: no such command (see --help)", strings.Trim(topic, "'"))
	}
	var ue *UsageError
	if errors.As(err, &ue) && !started(err) && mpi.WorldName == "mpi" {
		// Rejected before the world started (a flag cli could not parse):
		// the other ranks must not wait for this one in MPI's start-up.
		err = failTogether(app, err)
	}
	err = panicError(app.Name, err)
	var q *quietError
	var le *mpi.LaunchError
	if !errors.As(err, &q) && (speaks || !errors.As(err, &le)) {
		fmt.Fprintf(errWriter(app), "%s: %v\n", app.Name, err)
	}
	if !speaks && errors.As(err, &le) {
		// A launcher ends the whole job when the first task exits
		// non-zero (Open MPI's mpirun at once, killing the rest): a
		// silent task that exits first can take task 0 down before it
		// has said why. Task 0's exit ends this wait early, by the same
		// rule, so it costs nothing when task 0 speaks.
		// Main sets the wait (tests that call Execute have no launcher
		// to race).
		grace, _ := app.Metadata[metaSilentGrace].(time.Duration)
		time.Sleep(grace)
	}
	var ec mpi.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return 1
}

// silentTaskGrace is how long a task that must not print a launch error
// waits before it exits, so that the task that prints it goes first; Main
// puts it in the app's Metadata under metaSilentGrace.
const (
	silentTaskGrace = 5 * time.Second
	metaSilentGrace = "treelb.silentgrace"
)

// checkOutputs refuses a file this run writes (--checkpoint, --trace) that
// is also one it reads (--restart, --machine) or the other output: the run
// would overwrite its own input, or write two things into one file.
// --restart and --checkpoint may name one file: the run resumes from it and
// saves over it.
func (cm Common) checkOutputs() error {
	machine := ""
	if cm.sim != nil {
		machine = cm.sim.file
	}
	for _, pair := range []struct{ out, outFlag, in, inFlag string }{
		{cm.traceFile(), "--trace", cm.Checkpoint, "--checkpoint"},
		{cm.traceFile(), "--trace", cm.Restart, "--restart"},
		{cm.traceFile(), "--trace", machine, "--machine"},
		{cm.Checkpoint, "--checkpoint", machine, "--machine"},
	} {
		if pair.out != "" && pair.in != "" && SameFile(pair.out, pair.in) {
			return Usagef("%s %s is the file of %s too: give each a file of its own", pair.outFlag, pair.out, pair.inFlag)
		}
	}
	return nil
}

// CheckInput refuses, as a usage error, an input file (what names it: "the
// instance FILE", "--file"; "-" for standard input) that this run also
// writes: the file of --checkpoint or of --trace. An app's Read calls it
// for every file it reads (a checkpoint written over the instance it was
// read from left the instance only inside the checkpoint).
func (cm Common) CheckInput(path, what string) error {
	if path == "" {
		return nil
	}
	for _, out := range []struct{ flag, path string }{{"--checkpoint", cm.Checkpoint}, {"--trace", cm.traceFile()}} {
		if out.path == "" {
			continue
		}
		if path == "-" {
			// Standard input redirected from the output's file.
			in, err := os.Stdin.Stat()
			if st, err2 := os.Stat(out.path); err == nil && err2 == nil && in.Mode().IsRegular() && os.SameFile(in, st) {
				return Usagef("%s: standard input is the file of %s: the run would write over its own input", what, out.flag)
			}
			continue
		}
		if SameFile(path, out.path) {
			return Usagef("%s %s is the file of %s too: the run would write over its own input", what, path, out.flag)
		}
	}
	return nil
}

func (cm Common) traceFile() string {
	if cm.sim == nil {
		return ""
	}
	return cm.sim.trace
}

// SameFile reports whether paths a and b name one file: the same file when
// both exist (links followed); otherwise the same name in the same
// directory, the directories' links followed (a file not made yet, in a
// directory reached by two paths).
func SameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, errA := os.Stat(filepath.Dir(a))
	db, errB := os.Stat(filepath.Dir(b))
	return errA == nil && errB == nil && os.SameFile(da, db)
}

// listing is a line of --balancer help --json.
type listing struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Options     []string `json:"options,omitempty"` // the balancer's own flags, without their dashes
}
