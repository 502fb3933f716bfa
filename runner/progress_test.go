package runner

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/treelb/treelb/lb"
)

// TestIsTerminal: /dev/null is a character device but no terminal, and
// neither is a pipe or a file; progress lines would rewrite themselves
// with carriage returns into them.
func TestIsTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(t.TempDir() + "/f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, f := range []*os.File{null, w, f} {
		if IsTerminal(f) || terminalWidth(f) != 0 {
			t.Errorf("%s: IsTerminal %v, width %d; want no terminal", f.Name(), IsTerminal(f), terminalWidth(f))
		}
	}
}

// TestProgressFitsWidth: on a terminal every progress line, the final one
// too, is cut to fewer characters than the terminal is wide, so it never
// wraps and leaves no fragments; a wide terminal, or one of unknown width,
// gets the whole line, and a file a line per snapshot.
func TestProgressFitsWidth(t *testing.T) {
	snap := lb.Progress{Nodes: 123456789012, Busy: 1000, Ranks: 1024, HasBound: true, Incumbent: 4242}
	whole := ""
	for _, width := range []int{0, 10, 40, 200} {
		var out bytes.Buffer
		p := &progressPrinter{w: &out, width: func() int { return width }, start: time.Now().Add(-time.Minute)}
		p.report(snap)
		p.finish()
		text := out.String()
		if !strings.HasPrefix(text, "\r") || !strings.HasSuffix(text, "\033[K\n") || strings.Count(text, "\n") != 1 {
			t.Fatalf("width %d: %q, want two rewritten lines, the last ended", width, text)
		}
		for _, seg := range strings.Split(strings.TrimSuffix(text, "\n"), "\r")[1:] {
			line := strings.TrimSuffix(seg, "\033[K")
			n := utf8.RuneCountInString(line)
			switch {
			case width > 1 && n >= width:
				t.Errorf("width %d: line %q has %d characters, want fewer than %d", width, line, n, width)
			case width == 0 && !strings.Contains(line, "bound 4242"):
				t.Errorf("unknown width: line %q is cut", line)
			case width == 200 && !strings.Contains(line, "bound 4242"):
				t.Errorf("width 200: line %q is cut", line)
			}
			if width == 0 && whole == "" {
				whole = line
			}
		}
	}
	if len(whole) < 40 {
		t.Fatalf("the progress line %q is too short to test the cut at 40 columns", whole)
	}
	var out bytes.Buffer
	p := &progressPrinter{w: &out, start: time.Now()}
	p.report(snap)
	p.finish()
	if text := out.String(); strings.ContainsAny(text, "\r\033") || strings.Count(text, "\n") != 2 {
		t.Errorf("into a file: %q, want two plain lines", text)
	}
}

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		line  string
		width int
		want  string
	}{
		{"abcdef", 0, "abcdef"}, {"abcdef", 7, "abcdef"}, {"abcdef", 6, "abcde"}, {"abcdef", 3, "ab"},
		{"Δt=10³ nodes", 5, "Δt=1"}, {"abc", 1, "abc"},
	} {
		if got := fit(tc.line, tc.width); got != tc.want {
			t.Errorf("fit(%q, %d) = %q, want %q", tc.line, tc.width, got, tc.want)
		}
	}
}
