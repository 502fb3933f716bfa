package doccheck

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestShellWords: quotes group, a backslash-newline joins lines, and the
// shell's operators end a command.
func TestShellWords(t *testing.T) {
	code := "golomb --np 4 12 > out.txt 2>&1 && uts --tree 'T1 L' \\\n  --json | jq .nodes # comment\nfifteen -q --korf 3"
	got := commandsIn(code, map[string]bool{"golomb": true, "uts": true, "fifteen": true})
	want := []Command{
		{Program: "golomb", Args: []string{"--np", "4", "12"}},
		{Program: "uts", Args: []string{"--tree", "T1 L", "--json"}},
		{Program: "fifteen", Line: 2, Args: []string{"-q", "--korf", "3"}},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Program != want[i].Program || got[i].Line != want[i].Line || !slices.Equal(got[i].Args, want[i].Args) {
			t.Errorf("command %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	for _, code := range []string{"$APP --np 4", "go build ./apps/golomb", "cd apps/golomb", "scripts/validate.sh --apps golomb --np 2"} {
		if c := commandsIn(code, map[string]bool{"golomb": true}); len(c) != 0 {
			t.Errorf("%q: found %+v, want no command", code, c)
		}
	}
	if c := commandsIn("go run ./apps/golomb --np 2 10", map[string]bool{"golomb": true}); len(c) != 1 || !slices.Equal(c[0].Args, []string{"--np", "2", "10"}) {
		t.Errorf("go run: got %+v", c)
	}
}

// TestDocumentedFlags: every flag that a command line in the repository's
// Markdown gives one of its programs (a code span or a code block) is a
// flag of that program, or of the subcommand it names, in the program's
// --help. A renamed or removed flag leaves the documentation stale, which
// the commands' tests cannot see. It builds the programs.
func TestDocumentedFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command")
	}
	dir := root(t)
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./apps/...", "./scripts/campaign")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(bin)
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]map[string]map[string]bool{} // program, subcommand ("" for none), flag
	var programs []string
	for _, e := range entries {
		p := e.Name()
		programs = append(programs, p)
		top, subs := helpFlags(t, filepath.Join(bin, p))
		flags[p] = map[string]map[string]bool{"": top}
		for _, s := range subs {
			f, _ := helpFlags(t, filepath.Join(bin, p), s)
			for k := range top {
				f[k] = true
			}
			flags[p][s] = f
		}
	}
	if len(programs) < 7 || len(flags["golomb"][""]) < 20 {
		t.Fatalf("programs %q, golomb's flags %v: the help was not read", programs, flags["golomb"][""])
	}
	var checked int
	for _, file := range markdown(t, dir) {
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range Commands(file, src, programs) {
			// The subcommand named, or, where none is, any of them (a
			// placeholder stands for it, or --restart chooses it).
			set := flags[c.Program][""]
			if sub := slices.IndexFunc(c.Args, func(a string) bool { _, ok := flags[c.Program][a]; return a != "" && ok }); sub >= 0 {
				set = flags[c.Program][c.Args[sub]]
			} else if len(flags[c.Program]) > 1 {
				set = map[string]bool{}
				for _, f := range flags[c.Program] {
					maps.Copy(set, f)
				}
			}
			for _, a := range c.Args {
				if a == "--" {
					break // the rest is another program's (uts --ref, mpirun's command)
				}
				name, ok := flagName(a)
				if !ok {
					continue
				}
				checked++
				if !set[name] {
					t.Errorf("%s:%d: %s %s: %s has no flag %s (its --help)", c.File, c.Line, c.Program, strings.Join(c.Args, " "), c.Program, name)
				}
			}
		}
	}
	if checked < 200 {
		t.Errorf("checked %d flags in the documentation: the commands were not found", checked)
	}
	t.Logf("%d documented flags checked against %d programs' help", checked, len(programs))
}

// flagWord is a flag as a command line gives it: -x, --name, --name=value.
var flagWord = regexp.MustCompile(`^--?[A-Za-z][A-Za-z0-9-]*(=|$)`)

// flagName returns the flag a word of a command line gives, without its
// value, and false for a word that is no flag (a value, -1, a placeholder
// such as --FLAG… or -…).
func flagName(a string) (string, bool) {
	m := flagWord.FindString(a)
	if m == "" {
		return "", false
	}
	return strings.TrimSuffix(m, "="), true
}

// helpFlags returns the flags that prog [sub] --help lists (Help), and
// the subcommands it lists.
func helpFlags(t *testing.T, prog string, sub ...string) (map[string]bool, []string) {
	t.Helper()
	out, _ := exec.Command(prog, append(sub, "--help")...).CombinedOutput() // the flag package exits 2 after -help
	names, subs := Help(string(out))
	flags := map[string]bool{}
	for _, f := range names {
		flags[f] = true
	}
	return flags, subs
}

// TestHelp: flags and aliases come from the options sections alone, not
// from a description that shows another program's flags; commands from
// COMMANDS:, help aside; the flag package's layout too.
func TestHelp(t *testing.T) {
	urfave := "NAME:\n   x - y\n\nDESCRIPTION:\n     -t T       the reference's flag\n\nCOMMANDS:\n   sim   simulate\n   help, h  Shows help\n\n" +
		"GLOBAL OPTIONS:\n   --np value, -n value  ranks (default: 2)\n   --quiet, -q  quiet\n\n   Output options\n\n   --json  JSON\n"
	flags, cmds := Help(urfave)
	if want := []string{"--np", "-n", "--quiet", "-q", "--json"}; !slices.Equal(flags, want) || !slices.Equal(cmds, []string{"sim"}) {
		t.Errorf("urfave/cli: flags %q, commands %q; want %q and [sim]", flags, cmds, want)
	}
	if flags, _ := Help("usage: c --csv FILE\nflags:\n  --csv FILE\n    \tthe CSV\n  --jobs int\n    \truns\n"); !slices.Equal(flags, []string{"--csv", "--jobs"}) {
		t.Errorf("flag package: %q", flags)
	}
}
