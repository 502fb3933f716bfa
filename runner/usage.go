package runner

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// The flag package's words for a bad command line, which urfave/cli
// passes on: a value that does not parse ("invalid value "abc" for flag
// -np: parse error"), a boolean's ("invalid boolean value "x" for -json:
// parse error") and an unknown flag ("flag provided but not defined: -x").
var (
	badValue   = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)
	notDefined = regexp.MustCompile(`^flag provided but not defined: -(.+)$`)
	noValue    = regexp.MustCompile(`^flag needs an argument: -(.+)$`)
)

// CommandNames lists the names of cmds, comma-separated, for a message
// about a command that is not one of them.
func CommandNames(cmds []*cli.Command) string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// flagUsage rewrites the flag package's messages for a bad command line
// in the commands' own style, naming the flag as it is written (--np, -Q)
// and saying what it wants: `--np "abc": need an integer`. flags are the
// command's, and sub the flags of its subcommands (for a command that has
// some: a flag only they define, given where no subcommand is named, is said
// to be theirs, and one of them to be named); args is the command line as
// typed, where a short flag with its value attached (-bseq) is told apart
// from an unknown long one; any other error is returned as it is.
func flagUsage(flags []cli.Flag, sub []*cli.Command, err error, args []string) error {
	if m := notDefined.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		for _, c := range sub {
			if findFlag(c.Flags, m[1]) != nil {
				names = append(names, c.Name)
			}
		}
		if len(names) > 0 {
			// Only where no subcommand is named (ReorderArgs moves the flags
			// after one that is): name one, before or after the flag.
			return fmt.Errorf("%s is a flag of the subcommands (%s), and none of them is named: give one (see --help)", dashed(m[1]), strings.Join(names, ", "))
		}
		if short := "-" + m[1][:1]; len(m[1]) > 1 && slices.Contains(args, "-"+m[1]) && findFlag(flags, short) != nil && takesValue(flags, short) {
			// -bseq, -Q16: a short flag with its value attached, which
			// the flag package reads as one long name (it said "--bseq:
			// no such flag", a flag nobody typed).
			return fmt.Errorf("-%s: no such flag (for %s with a value, give it apart: %s %s; see --help)", m[1], short, short, m[1][1:])
		}
	}
	return FlagError(err, func(name string) string {
		switch findFlag(flags, name).(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.IntSliceFlag, *cli.Int64SliceFlag:
			return "need an integer"
		case *cli.UintFlag, *cli.Uint64Flag:
			return "need a whole number, 0 or more"
		case *cli.Float64Flag, *cli.Float64SliceFlag:
			return "need a number"
		case *cli.DurationFlag:
			return "need a duration such as 90s, 10m or 1h30m"
		case *cli.BoolFlag:
			return "need true or false"
		}
		return ""
	})
}

// FlagError rewrites the flag package's messages for a bad command line
// (urfave/cli's, or a flag.FlagSet's) in the commands' own style, naming
// the flag as it is written (--np, -Q) and saying what it wants: `--np
// "abc": need an integer`, with want(name) the words for the flag's type
// ("" to keep the flag package's reason). Any other error is returned as
// it is.
func FlagError(err error, want func(name string) string) error {
	msg := err.Error()
	if m := noValue.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: needs a value (see --help)", dashed(m[1]))
	}
	if m := notDefined.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: no such flag (see --help)", dashed(m[1]))
	}
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return err
	}
	value, name, reason := m[1], m[2], m[3]
	words := cmp.Or(want(name), reason)
	if reason == "value out of range" {
		words = "out of range"
	}
	return fmt.Errorf("%s %q: %s", dashed(name), value, words)
}

// usageFor returns the handler of a bad command line of a command with
// flags and subcommands sub: a *UsageError (exit status 2) in the
// commands' words (flagUsage).
func usageFor(flags []cli.Flag, sub []*cli.Command) cli.OnUsageErrorFunc {
	return func(c *cli.Context, err error, _ bool) error {
		args, _ := c.App.Metadata[metaArgs].([]string) // as typed (-bseq, not --bseq)
		return &UsageError{Err: flagUsage(flags, sub, err, args)}
	}
}

// dashed writes a flag's name as it is given: -Q, --np.
func dashed(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + strings.TrimLeft(name, "-")
}

// checkBefore returns a Before for app's subcommand cmd that refuses, as a
// usage error, a flag of the app's own given before the subcommand's name
// (ReorderArgs moves there only the flags the app does not define): cli
// parses it into the app's flags, where the subcommand never reads it, and
// the run would go on without it (dht --seed 9 sim). Then before, if any,
// runs.
func checkBefore(app *cli.App, cmd *cli.Command, before cli.BeforeFunc) cli.BeforeFunc {
	return func(c *cli.Context) error {
		if l := c.Lineage(); len(l) > 1 {
			for _, f := range app.Flags {
				name := f.Names()[0]
				if name == "help" || name == "version" || !l[1].IsSet(name) {
					continue // cli's own (--help=false) do nothing there
				}
				var names []string // as the user may have written it: -Q/--buckets-per-rank
				for _, n := range f.Names() {
					names = append(names, dashed(n))
				}
				slices.SortFunc(names, func(a, b string) int { return len(a) - len(b) })
				written := strings.Join(names, "/")
				if findFlag(cmd.Flags, name) != nil {
					return Usagef("%s before %s is a flag of %s itself, not of %s %s: give it after %s (%s %s %s …)",
						written, cmd.Name, app.Name, app.Name, cmd.Name, cmd.Name, app.Name, cmd.Name, dashed(name))
				}
				return Usagef("%s is a flag of %s itself, not of %s %s (see %s %s --help)",
					written, app.Name, app.Name, cmd.Name, app.Name, cmd.Name)
			}
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}

// NoArgs is the Before of a subcommand that takes no arguments: "help"
// alone shows its help, as --help and APP help SUB do (exit status 0), and
// any other argument is a usage error naming them.
func NoArgs(c *cli.Context) error {
	switch {
	case c.NArg() == 0:
		return nil
	case c.NArg() == 1 && c.Args().First() == "help" && len(c.Lineage()) > 1:
		if err := cli.ShowCommandHelp(c.Lineage()[1], c.Command.Name); err != nil {
			return err
		}
		return errHelpShown
	}
	return Usagef("%s takes no arguments, got %q (see %s --help)", c.Command.Name, c.Args().Slice(), CommandPath(c))
}
