package runner

import (
	"errors"
	"testing"

	"github.com/urfave/cli/v2"
)

func TestFlagUsage(t *testing.T) {
	flags := []cli.Flag{&cli.IntFlag{Name: "np"}, &cli.Uint64Flag{Name: "seed"}, &cli.Float64Flag{Name: "alpha"},
		&cli.DurationFlag{Name: "time-limit"}, &cli.BoolFlag{Name: "json"}, &cli.IntFlag{Name: "buckets-per-rank", Aliases: []string{"Q"}}}
	for in, want := range map[string]string{
		`invalid value "abc" for flag -np: parse error`:          `--np "abc": need an integer`,
		`invalid value "1e99" for flag -np: value out of range`:  `--np "1e99": out of range`,
		`invalid value "-1" for flag -seed: parse error`:         `--seed "-1": need a whole number, 0 or more`,
		`invalid value "x" for flag -alpha: parse error`:         `--alpha "x": need a number`,
		`invalid value "soon" for flag -time-limit: parse error`: `--time-limit "soon": need a duration such as 90s, 10m or 1h30m`,
		`invalid boolean value "maybe" for -json: parse error`:   `--json "maybe": need true or false`,
		`invalid value "q" for flag -Q: parse error`:             `-Q "q": need an integer`,
		`invalid value "q" for flag -unknown: some reason`:       `--unknown "q": some reason`,
		`flag provided but not defined: -bogus`:                  `--bogus: no such flag (see --help)`,
		`flag provided but not defined: -x`:                      `-x: no such flag (see --help)`,
		`Required flag "file" not set`:                           `Required flag "file" not set`,
		`flag needs an argument: -np`:                            `--np: needs a value (see --help)`,
		`flag needs an argument: -Q`:                             `-Q: needs a value (see --help)`,
	} {
		if got := flagUsage(flags, nil, errors.New(in)).Error(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	// A command with subcommands: a flag only they define is theirs.
	sub := []*cli.Command{{Name: "poly", Flags: flags}, {Name: "func", Flags: flags}, {Name: "bare"}}
	for in, want := range map[string]string{
		`flag provided but not defined: -np`:    `--np is a flag of the subcommands (poly, func), and the command line names none of them (see --help)`,
		`flag provided but not defined: -bogus`: `--bogus: no such flag (see --help)`,
	} {
		if got := flagUsage(nil, sub, errors.New(in)).Error(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}
