package runner

import (
	"flag"

	"github.com/urfave/cli/v2"
)

// urfave/cli v2 adds its package-level HelpFlag and VersionFlag, one
// *cli.BoolFlag each, to every App and command, and BoolFlag.Apply writes
// into the flag (its default value) whenever a command line is parsed: two
// commands run at once in one process (Execute from two goroutines, as the
// apps' invariant tests do) race on them (go test -race; upstream
// urfave/cli issue 1699). They are replaced, once as the package starts,
// by flags whose Apply works on a copy.
func init() {
	for _, f := range []*cli.Flag{&cli.HelpFlag, &cli.VersionFlag} {
		if b, ok := (*f).(*cli.BoolFlag); ok {
			*f = applyCopy{b}
		}
	}
}

// applyCopy is a boolean flag that is never written once made.
type applyCopy struct{ *cli.BoolFlag }

// Apply defines the flag in set from a copy of f.
func (f applyCopy) Apply(set *flag.FlagSet) error {
	c := *f.BoolFlag
	return c.Apply(set)
}

// GetDefaultText is empty, as cli shows a *cli.BoolFlag with
// DisableDefaultText (help and version are).
func (f applyCopy) GetDefaultText() string { return "" }
