// Package cmdutil holds what treelb's commands share: the common flags
// (--np, --balancer, --seed, --json, --stats, -q and the balancer options),
// starting the world, exit codes, and the statistics and JSON output.
package cmdutil

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/internal/version"
	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/mpi"
)

// Seq is the balancer name that runs the plain sequential solver, with no
// balancer and one rank.
const Seq = "seq"

// Common is the parsed common flags. The zero value is not meaningful; use
// Parse.
type Common struct {
	NP       int // ranks of the embedded world; 0 under MPI unless --np was given
	Balancer string
	Seed     uint64
	JSON     bool
	Stats    bool
	Quiet    bool
	Budget   int64
	Options  lb.Options
}

// Flags returns the flags every app shares, defined once here.
func Flags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "np", Value: runtime.NumCPU(), Usage: "ranks of the embedded world (under mpirun/srun the launcher's size; a different --np is an error)"},
		&cli.StringFlag{Name: "balancer", Aliases: []string{"b"}, Value: "rp", Usage: "load balancer: seq (sequential solver) or one of " + strings.Join(lb.Names(), ", ") + "; 'help' lists them"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the ranks' random sources"},
		&cli.BoolFlag{Name: "json", Usage: "print one JSON object on stdout"},
		&cli.BoolFlag{Name: "stats", Usage: "print per-rank statistics"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only the answer"},
		&cli.Int64Flag{Name: "budget", Value: lb.DefaultBudget, Usage: "nodes of work between two polls (Δt)"},
		&cli.BoolFlag{Name: "fast-init", Usage: "every rank splits the broadcast root log P times (seed 002 §4.3)"},
		&cli.IntFlag{Name: "queue-limit", Usage: "rp: reject requests without splitting past this many per poll (0: 2·√P)"},
		&cli.BoolFlag{Name: "pair-sync", Usage: "ps: synchronise only pairs after a phase, all ranks once per cycle"},
		&cli.BoolFlag{Name: "ask-lower", Usage: "ps: idle ranks also ask along lower dimensions"},
		&cli.Float64Flag{Name: "shuffle-below", Usage: "ps: shuffle only when fewer than this fraction of ranks are busy (0: always)"},
		&cli.IntFlag{Name: "levels", Usage: "static, hybrid: k, split the root into 2^k leaves (0: default from the seeds' bounds)"},
		&cli.StringFlag{Name: "perm", Value: "gf", Usage: "static, hybrid: pseudo-random permutation, gf or lcg"},
		&cli.IntFlag{Name: "clusters", Value: 1, Usage: "hybrid: clusters of ranks that poll each other"},
	}
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

// NP returns the world size to pass to mpi.Run from --np: its value in the
// embedded world, 0 (the launcher's size) under MPI unless --np was given,
// which mpi.Run then checks against the launcher's.
func NP(c *cli.Context) (int, error) {
	np := c.Int("np")
	if mpi.WorldName == "mpi" && !c.IsSet("np") {
		return 0, nil
	}
	if np < 1 {
		return 0, Usagef("--np %d: need at least 1 rank", np)
	}
	return np, nil
}

// UsageError is a bad command line or input: the command exits with 2.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ExitCode is 2, as for a usage error.
func (e *UsageError) ExitCode() int { return 2 }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// errHelpShown ends a command that printed help it was asked for.
var errHelpShown = errors.New("help shown")

// Parse reads the common flags.
func Parse(c *cli.Context) (Common, error) {
	cm := Common{NP: c.Int("np"), Balancer: c.String("balancer"), Seed: c.Uint64("seed"),
		JSON: c.Bool("json"), Stats: c.Bool("stats"), Quiet: c.Bool("quiet"), Budget: c.Int64("budget"),
		Options: lb.Options{FastInit: c.Bool("fast-init"), QueueLimit: c.Int("queue-limit"),
			PairSync: c.Bool("pair-sync"), AskLower: c.Bool("ask-lower"), ShuffleBelow: c.Float64("shuffle-below"),
			SplitLevels: c.Int("levels"), Permutation: c.String("perm"), Clusters: c.Int("clusters")}}
	if cm.Balancer == "help" {
		fmt.Fprintf(c.App.Writer, "balancers:\n  %-10s the plain sequential solver, one rank, no balancer\n%s", Seq, lb.Describe())
		return cm, errHelpShown
	}
	if cm.Balancer != Seq && !contains(lb.Names(), cm.Balancer) {
		return cm, Usagef("unknown balancer %q (try --balancer help)", cm.Balancer)
	}
	var err error
	if cm.NP, err = NP(c); err != nil {
		return cm, err
	}
	if cm.Budget < 1 {
		return cm, Usagef("--budget %d: need at least 1 node", cm.Budget)
	}
	o := cm.Options
	switch {
	case o.QueueLimit < 0:
		return cm, Usagef("--queue-limit %d: must not be negative", o.QueueLimit)
	case o.ShuffleBelow < 0 || o.ShuffleBelow > 1:
		return cm, Usagef("--shuffle-below %g: need a fraction from 0 to 1", o.ShuffleBelow)
	case o.SplitLevels < 0 || o.SplitLevels > 40:
		return cm, Usagef("--levels %d: need 0 (default) to 40", o.SplitLevels)
	case o.Permutation != "gf" && o.Permutation != "lcg":
		return cm, Usagef("--perm %q: need gf or lcg", o.Permutation)
	case o.Clusters < 1:
		return cm, Usagef("--clusters %d: need at least 1", o.Clusters)
	}
	return cm, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Config returns the driver configuration of the flags.
func (cm Common) Config() lb.Config { return lb.Config{Budget: cm.Budget, Seed: cm.Seed} }

// Run starts the world of the flags: --np goroutine ranks in the embedded
// world, the launcher's ranks under MPI; with the seq balancer, one rank in
// the embedded world.
func (cm Common) Run(f func(c *mpi.Comm) error) error {
	n := cm.NP
	if cm.Balancer == Seq && mpi.WorldName == "embedded" {
		n = 1
	}
	return mpi.Run(n, f)
}

// Main runs app with the process arguments and exits: 0 on success, 2 on a
// usage error (bad flags or input), 1 on any other error, which it prints.
func Main(app *cli.App) {
	app.Version = version.Get().String() // --version, -v: the build and its MPI library
	app.ExitErrHandler = func(*cli.Context, error) {}
	app.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return &UsageError{Err: err} }
	app.HideHelpCommand = true
	err := app.Run(os.Args)
	if err == nil || errors.Is(err, errHelpShown) {
		return
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", app.Name, err)
	var ue *UsageError
	if errors.As(err, &ue) {
		os.Exit(2)
	}
	var ec mpi.ExitCoder
	if errors.As(err, &ec) {
		os.Exit(ec.ExitCode())
	}
	os.Exit(1)
}

// Stats is the statistics part of the JSON output.
type Stats struct {
	Total lb.Stats   `json:"total"`
	Ranks []lb.Stats `json:"ranks"`
}

// NewStats returns the statistics of an outcome, or nil for none.
func NewStats(o *lb.Outcome) *Stats {
	if o == nil {
		return nil
	}
	return &Stats{Total: o.Total, Ranks: o.Ranks}
}

// PrintStats writes the per-rank statistics as a table.
func PrintStats(w io.Writer, o *lb.Outcome) {
	if o == nil {
		fmt.Fprintln(w, "no balancer statistics (sequential run)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\twork s\tidle s\tnodes\treq sent\treq recv\trejected\tsplits\tmsgs\tbytes\t")
	row := func(name string, s *lb.Stats) {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, s.WorkSeconds, s.IdleSeconds, s.Nodes,
			s.RequestsSent, s.RequestsRecv, s.RequestsReject, s.Splits, s.MessagesSent, s.BytesSent)
	}
	for i := range o.Ranks {
		row(fmt.Sprint(i), &o.Ranks[i])
	}
	row("total", &o.Total)
	tw.Flush()
}

// WriteJSON writes v as one JSON object and a newline.
func WriteJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// Header is the part of every app's JSON output that says what ran; apps
// embed it in their output structs.
type Header struct {
	App      string `json:"app"`
	Balancer string `json:"balancer"`
	Ranks    int    `json:"ranks"`
	World    string `json:"world"`
}

// Header returns the header of a run of app on c.
func (cm Common) Header(app string, c *mpi.Comm) Header {
	return Header{App: app, Balancer: cm.Balancer, Ranks: cm.Ranks(c), World: mpi.WorldName}
}

// Ranks is the number of ranks a run used.
func (cm Common) Ranks(c *mpi.Comm) int {
	if cm.Balancer == Seq {
		return 1
	}
	return c.Size()
}
