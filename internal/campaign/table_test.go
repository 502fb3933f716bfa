package campaign

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/treelb/treelb/runner"
)

// TestWriteFileWhole: a failed write leaves the old file as it was and no
// temporary file; a good one replaces it, mode 0644, and replaces a
// symbolic link at the path rather than writing into its target; a
// directory or a device at the path is refused and left.
func TestWriteFileWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := writeFile(path, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk full")
	})
	var oe *runner.OutputError
	if !errors.As(err, &oe) {
		t.Fatalf("a failed write: %v, want a *runner.OutputError", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("a failed write left %d files", len(es))
	}
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, link} {
		if err := writeFile(p, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v, want a regular file of mode 0644", p, st.Mode(), err)
		}
		if b, _ := os.ReadFile(p); string(b) != "new\n" {
			t.Errorf("%s: %q", p, b)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	// A directory, or a device (a /dev/null of the test's own, made as
	// root), is left as it is, with an error.
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		dev = ""
	}
	for _, p := range []string{dir, dev} {
		if p == "" {
			continue
		}
		before, _ := os.Lstat(p)
		err := writeFile(p, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err })
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), "not a file the campaign may replace") {
			t.Errorf("%s: %v, want a refusal", p, err)
		}
		if st, err := os.Lstat(p); err != nil || st.Mode() != before.Mode() {
			t.Errorf("%s: now %v (%v), was %v", p, st.Mode(), err, before.Mode())
		}
	}
}

// TestReadTableTorn: a last line without its newline (a row cut while it
// was appended) is left out and measured; a file that does not parse is a
// usage error naming it.
func TestReadTableTorn(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	whole := "a,b\n1,2\n3,4\n"
	for text, want := range map[string]struct{ rows, torn int }{
		whole:           {2, 0},
		whole + "5,\"6": {2, 4},
		"a,b\n1,2":      {0, 3},
		"a,b":           {0, 0}, // a header alone is no torn row
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := ReadTable(path)
		if err != nil || len(tab.Rows) != want.rows || tab.Torn != want.torn {
			t.Errorf("%q: %d rows, torn %d, %v; want %d rows, torn %d", text, len(tab.Rows), tab.Torn, err, want.rows, want.torn)
		}
	}
	if err := os.WriteFile(path, []byte("a,b\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ue *runner.UsageError
	if _, err := ReadTable(path); !errors.As(err, &ue) || !strings.Contains(err.Error(), path) {
		t.Errorf("a row longer than the header: %v, want a usage error naming the file", err)
	}
}

// TestDeriveDamaged: a table with a run twice, or a negative or NaN time,
// is refused with a usage error naming the rows, not summarised (a
// negative time gave a negative speedup, a repeated row counted twice),
// and the runner refuses it before it runs anything (it ran the new runs
// first).
func TestDeriveDamaged(t *testing.T) {
	dir := t.TempDir()
	head := "run_world,run_np,run_balancer,run_instance,run_seed,run_repeat,seconds,nodes\n"
	seq := "embedded,1,seq,golomb 9,1,0,1.5,100\n"
	par := "embedded,2,rp,golomb 9,1,0,0.8,100\n"
	for text, want := range map[string]string{
		head + seq + par:       "",
		head + seq + par + par: "rows 2 and 3 are the same run",
		head + seq + strings.Replace(par, "0.8", "-1", 1):  `seconds "-1" is no time`,
		head + seq + strings.Replace(par, "0.8", "NaN", 1): `seconds "NaN" is no time`,
	} {
		path := filepath.Join(dir, "t.csv")
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		tab, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Derive(tab, "")
		var ue *runner.UsageError
		if want == "" && err != nil || want != "" && (!errors.As(err, &ue) || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
		ran := false
		r := Runner{CSV: path, Progress: io.Discard, Exec: func(context.Context, []string) (Output, error) {
			ran = true
			return Output{}, errors.New("no run")
		}}
		_, err = r.Run(context.Background(), []Key{{World: "embedded", NP: 4, Balancer: "rp", Instance: "golomb 9", Seed: 1}})
		if want != "" && (ran || !errors.As(err, &ue) || !strings.Contains(err.Error(), want)) {
			t.Errorf("%q: the runner ran %v, %v; want no run and %q", text, ran, err, want)
		}
	}
}
