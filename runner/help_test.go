package runner

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestFlagCategories: every common flag is in one of the five categories
// of --help, and the help text shows each under its heading.
func TestFlagCategories(t *testing.T) {
	cats := []string{CategoryBalancer, CategoryCheckpoint, CategoryOutput, CategoryRun, CategorySimulation}
	type categorized interface{ GetCategory() string }
	for _, f := range Flags() {
		c, ok := f.(categorized)
		if !ok || !slices.Contains(cats, c.GetCategory()) {
			t.Errorf("--%s: no category of %q", f.Names()[0], cats)
		}
	}
	app := testApp(nil)
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	if code := Execute(app, []string{"t", "--help"}); code != 0 {
		t.Fatalf("--help: exit status %d\n%s", code, out.String())
	}
	help := out.String()
	var h bytes.Buffer
	happ := testApp(nil)
	happ.Writer, happ.ErrWriter = &h, &h
	if code := Execute(happ, []string{"t", "help"}); code != 0 || h.String() != help {
		t.Errorf("help: exit status %d, %q: want --help's", code, h.String())
	}
	// `t help sub` is `t sub --help` (it printed t's help); an unknown
	// command is an error naming the commands.
	var sub, subHelp bytes.Buffer
	sapp, shapp := testApp(nil), testApp(nil)
	sapp.Writer, sapp.ErrWriter, shapp.Writer, shapp.ErrWriter = &sub, &sub, &subHelp, &subHelp
	if code := Execute(sapp, []string{"t", "sub", "--help"}); code != 0 || !strings.Contains(sub.String(), "t sub") {
		t.Fatalf("sub --help: exit status %d, %q", code, sub.String())
	}
	if code := Execute(shapp, []string{"t", "help", "sub"}); code != 0 || subHelp.String() != sub.String() {
		t.Errorf("help sub: exit status %d, %q: want sub --help's %q", code, subHelp.String(), sub.String())
	}
	var bad bytes.Buffer
	bapp := testApp(nil)
	bapp.Writer, bapp.ErrWriter = &bad, &bad
	if code := Execute(bapp, []string{"t", "help", "subb"}); code != 2 || !strings.Contains(bad.String(), "t help subb: no such command; the commands: sub") {
		t.Errorf("help subb: exit status %d, %q; want 2 and the commands", code, bad.String())
	}
	// The categories' headings in order, each followed by one of its flags.
	at := 0
	for _, c := range []struct{ heading, flag string }{
		{"--count", ""}, // the command's own flags first
		{CategoryBalancer, "--fast-init"}, {CategoryCheckpoint, "--checkpoint-every"}, {CategoryOutput, "--json"},
		{CategoryRun, "--np"}, {CategorySimulation, "--machine"},
	} {
		i := strings.Index(help[at:], c.heading)
		if i < 0 {
			t.Fatalf("--help does not say %q after byte %d:\n%s", c.heading, at, help)
		}
		at += i
		if c.flag != "" {
			next := len(help)
			for _, h := range cats {
				if j := strings.Index(help[at+len(c.heading):], h); j >= 0 {
					next = min(next, at+len(c.heading)+j)
				}
			}
			if !strings.Contains(help[at:next], c.flag+" ") {
				t.Errorf("--help lists no %s under %q:\n%s", c.flag, c.heading, help[at:next])
			}
		}
	}
}

// TestVersionAnywhere: --version (and -v) after a subcommand prints the
// command's build, as before it (it was an unknown flag of the
// subcommand), and the help's VERSION section indents every line of the
// build (only the first was).
func TestVersionAnywhere(t *testing.T) {
	var want bytes.Buffer
	app := testApp(nil)
	app.Writer, app.ErrWriter = &want, &want
	if code := Execute(app, []string{"t", "--version"}); code != 0 || !strings.Contains(want.String(), "t version ") {
		t.Fatalf("--version: exit status %d, %q", code, want.String())
	}
	for _, args := range [][]string{{"t", "sub", "--version"}, {"t", "sub", "-v"}} {
		var out bytes.Buffer
		app := testApp(nil)
		app.Writer, app.ErrWriter = &out, &out
		if code := Execute(app, args); code != 0 || out.String() != want.String() {
			t.Errorf("%q: exit status %d, %q; want --version's %q", args, code, out.String(), want.String())
		}
	}
	var help bytes.Buffer
	app = testApp(nil)
	app.Writer, app.ErrWriter = &help, &help
	if code := Execute(app, []string{"t", "--help"}); code != 0 {
		t.Fatalf("--help: exit status %d", code)
	}
	_, section, _ := strings.Cut(help.String(), "VERSION:\n")
	section, _, _ = strings.Cut(section, "\n\n")
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "   ") {
			t.Errorf("the VERSION section's line %q is not indented:\n%s", line, section)
		}
	}
	if strings.Count(section, "\n") < 2 {
		t.Errorf("the VERSION section has fewer than three lines:\n%s", section)
	}
}

// TestHelpAnywhere: --help or -h anywhere shows the help of the command
// the words name, whatever else is there (cli read the word beside it as a
// help topic: "No help topic for 'extra'" and exit status 3, which here
// says that a search was checkpointed).
func TestHelpAnywhere(t *testing.T) {
	help := func(args ...string) (int, string) {
		var out bytes.Buffer
		app := testApp(nil)
		app.Writer, app.ErrWriter = &out, &out
		return Execute(app, args), out.String()
	}
	_, top := help("t", "--help")
	_, sub := help("t", "sub", "--help")
	if top == sub || !strings.Contains(sub, "sub") {
		t.Fatalf("the help of t and of t sub:\n%s\n%s", top, sub)
	}
	for _, args := range [][]string{{"t", "--help", "extra"}, {"t", "extra", "-h"}, {"t", "--np", "3", "--help"},
		{"t", "help"}, {"t", "--np", "3", "help"}, {"t", "help", "--json"}, {"t", "--np=3", "-q", "help"}} {
		if code, out := help(args...); code != 0 || out != top {
			t.Errorf("%q: exit status %d, %q; want t's help", args, code, out)
		}
	}
	// The word help is an argument after "--", beside another, or a
	// subcommand's (integrate func help lists the functions), and a flag's
	// value (--balancer help lists the balancers).
	app := testApp(nil)
	for _, args := range [][]string{{"t", "--", "help"}, {"t", "help", "x"}, {"t", "sub", "help"}, {"t", "--balancer", "help"}, {"t", "--np", "help"}} {
		if onlyHelp(app, args) {
			t.Errorf("%q: read as a request for help", args)
		}
	}
	for _, args := range [][]string{{"t", "sub", "--help", "extra"}, {"t", "sub", "word", "-h"}, {"t", "--np", "2", "sub", "--help"}} {
		if code, out := help(args...); code != 0 || out != sub {
			t.Errorf("%q: exit status %d, %q; want t sub's help", args, code, out)
		}
	}
}

// TestListingsJSON: --balancer help and --machine help with --json print
// one JSON object a line, as the apps' other listings do (uts --tree help,
// integrate func help); they printed the text.
func TestListingsJSON(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"t", "--json", "--balancer", "help"}, []string{"seq", "rp", "ps", "static"}},
		{[]string{"t", "--machine", "help", "--json"}, []string{"cluster", "gcel", "unit"}},
	} {
		code, stdout, stderr := runCmd(t, rangeSpec(), strings.Join(c.args[1:], " "))
		if code != 0 || stderr != "" {
			t.Fatalf("%q: exit status %d\n%s", c.args, code, stderr)
		}
		out := bytes.NewBufferString(stdout)
		var names []string
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var rec struct {
				Name, Description string
				Provenance        map[string]any
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Name == "" || rec.Description == "" || rec.Provenance == nil {
				t.Fatalf("%q: the line %q is no listing (%v)", c.args, line, err)
			}
			names = append(names, rec.Name)
		}
		for _, w := range c.want {
			if !slices.Contains(names, w) {
				t.Errorf("%q: %v lacks %s", c.args, names, w)
			}
		}
	}
}
