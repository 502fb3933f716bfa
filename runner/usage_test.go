package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
		if got := flagUsage(flags, nil, errors.New(in), nil).Error(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
	// A short flag with its value attached, as typed (-Q16), and an unknown
	// long flag that starts with the same letter, typed with two dashes.
	if got := flagUsage(flags, nil, errors.New("flag provided but not defined: -Q16"), []string{"app", "-Q16"}).Error(); got != "-Q16: no such flag (for -Q with a value, give it apart: -Q 16; see --help)" {
		t.Errorf("-Q16: got %q", got)
	}
	if got := flagUsage(flags, nil, errors.New("flag provided but not defined: -Qx"), []string{"app", "--Qx"}).Error(); got != "--Qx: no such flag (see --help)" {
		t.Errorf("--Qx: got %q", got)
	}
	// A command with subcommands: a flag only they define is theirs.
	sub := []*cli.Command{{Name: "poly", Flags: flags}, {Name: "func", Flags: flags}, {Name: "bare"}}
	for in, want := range map[string]string{
		`flag provided but not defined: -np`:    `--np is a flag of the subcommands (poly, func), and none of them is named: give one (see --help)`,
		`flag provided but not defined: -bogus`: `--bogus: no such flag (see --help)`,
	} {
		if got := flagUsage(nil, sub, errors.New(in), nil).Error(); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// TestFlagBeforeSubcommand: a flag of the app's own given before a
// subcommand's name is refused (exit 2, naming it), not dropped (dht
// --seed 9 sim ran with the default seed); the subcommand's own flags may
// stand before its name. NoArgs: "help" alone shows a subcommand's help,
// another argument is refused.
func TestFlagBeforeSubcommand(t *testing.T) {
	ran := ""
	newApp := func() *cli.App {
		return &cli.App{
			Name:   "app",
			Flags:  []cli.Flag{&cli.Uint64Flag{Name: "seed"}, &cli.IntFlag{Name: "np"}, &cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}}},
			Action: func(*cli.Context) error { ran = "app"; return nil },
			Commands: []*cli.Command{{
				Name:   "sim",
				Flags:  []cli.Flag{&cli.Uint64Flag{Name: "seed"}, &cli.IntFlag{Name: "max-p"}},
				Before: NoArgs,
				Action: func(c *cli.Context) error {
					ran = fmt.Sprintf("sim %d %d", c.Uint64("seed"), c.Int("max-p"))
					return nil
				},
			}},
		}
	}
	for _, tc := range []struct {
		args       string
		code       int
		ran, inErr string
	}{
		{"sim --seed 9", 0, "sim 9 0", ""},
		{"--max-p 4 sim", 0, "sim 0 4", ""},
		{"--seed 9 sim", 2, "", "--seed before sim is a flag of app itself, not of app sim: give it after sim (app sim --seed …)"},
		{"--np 3 sim", 2, "", "--np is a flag of app itself, not of app sim (see app sim --help)"},
		{"-q sim", 2, "", "--quiet is a flag of app itself"},
		{"--seed 9", 0, "app", ""},
		{"sim help", 0, "", ""},
		{"sim x", 2, "", `sim takes no arguments, got ["x"] (see app sim --help)`},
		{"--seed 9 sim help", 2, "", "--seed before sim"},
	} {
		ran = ""
		app := newApp()
		var out, errs strings.Builder
		app.Writer, app.ErrWriter = &out, &errs
		code := Execute(app, append([]string{"app"}, strings.Fields(tc.args)...))
		if code != tc.code || ran != tc.ran || !strings.Contains(errs.String(), tc.inErr) {
			t.Errorf("%s: exit %d, ran %q, stderr %q; want %d, %q, %q", tc.args, code, ran, errs.String(), tc.code, tc.ran, tc.inErr)
		}
		if tc.args == "sim help" && !strings.Contains(out.String(), "app sim") {
			t.Errorf("sim help printed %q", out.String())
		}
	}
}

// TestIncompleteSpec: a Spec without Read or Solve is the app's bug, said
// in one line (ExitInternal), not a nil pointer's panic and stack file.
func TestIncompleteSpec(t *testing.T) {
	for name, spec := range map[string]Spec[int]{
		"empty":    {App: "x"},
		"no solve": {App: "x", Read: func(*cli.Context, Common) (int, error) { return 1, nil }},
	} {
		app := &cli.App{Name: "x", Flags: Flags(), Action: Action(spec)}
		var out strings.Builder
		app.Writer, app.ErrWriter = &out, &out
		if code := Execute(app, []string{"x"}); code != ExitInternal || !strings.Contains(out.String(), "lacks Read or Solve") || strings.Contains(out.String(), "panic") {
			t.Errorf("%s: exit %d, %q", name, code, out.String())
		}
	}
}

// TestSameFile: one file by two paths, made or not yet (a directory
// reached through a link), and two files.
func TestSameFile(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "R"), filepath.Join(dir, "L")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{filepath.Join(link, "x"), filepath.Join(real, "x"), true}, // neither made yet
		{filepath.Join(real, "x"), filepath.Join(real, ".", "x"), true},
		{filepath.Join(real, "x"), filepath.Join(real, "y"), false},
		{filepath.Join(real, "x"), filepath.Join(dir, "x"), false},
	} {
		if got := SameFile(tc.a, tc.b); got != tc.same {
			t.Errorf("SameFile(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
	if err := os.WriteFile(filepath.Join(real, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !SameFile(filepath.Join(link, "x"), filepath.Join(real, "x")) {
		t.Error("a file made, by two paths")
	}
}
