package doccheck

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// root returns the repository's root: the directory above this package's
// that holds go.mod.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = parent
	}
}

// markdown returns the Markdown files of the repository at dir that git
// tracks or would track (new files git does not ignore); without git (a
// copy of the tree), every .md file outside hidden directories and the
// build outputs.
func markdown(t *testing.T, dir string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.md")
	cmd.Dir = dir
	if out, err := cmd.Output(); err == nil {
		var files []string
		for f := range strings.SplitSeq(strings.TrimRight(string(out), "\x00"), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
		return files
	}
	t.Log("git ls-files failed: checking every .md file of the tree")
	var files []string
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && (strings.HasPrefix(d.Name(), ".") || p == "bin" || p == "out") {
			return fs.SkipDir
		}
		if !d.IsDir() && path.Ext(p) == ".md" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRepositoryLinks: every relative link of every Markdown file of the
// repository leads to a file of the repository, and every anchor to a
// heading.
func TestRepositoryLinks(t *testing.T) {
	dir := root(t)
	files := markdown(t, dir)
	if !slices.Contains(files, "README.md") {
		t.Fatalf("README.md is not among the Markdown files %q", files)
	}
	for _, p := range Check(os.DirFS(dir), files) {
		t.Error(p)
	}
}

// TestCampaignDirectories: every directory under results/ says what it
// holds in a README.md (docs/measuring.md, "Where campaigns live").
func TestCampaignDirectories(t *testing.T) {
	dir := filepath.Join(root(t), "results")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "README.md")); err != nil {
			t.Errorf("results/%s has no README.md: %v", e.Name(), err)
		}
	}
	if n == 0 {
		t.Error("no campaign directory under results/")
	}
}

func TestCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte(`# Top

See [the guide](docs/guide.md), [its second part](docs/guide.md#part-two-α),
[a repeat](docs/guide.md#notes-1), ![a plot](results/x/plot.png),
[a folder](results/x/), [here](#top) and [the web](https://example.com/a.md).

Broken: [gone](docs/gone.md), [no part](docs/guide.md#part-three),
[outside](../elsewhere.md), [absolute](/docs/guide.md), [no anchor](#nowhere).

    [in an indented code block](nothing.md)

` + "```" + `
[in a fenced block](nothing.md)
` + "```" + `

A code span: ` + "`[x](nothing.md)`" + `.

| table | cell |
|---|---|
| [in a table](docs/missing.md) | x |
`)},
		"docs/guide.md":      {Data: []byte("# Guide\n\n## Part two: α\n\n## Notes\n\n## Notes\n\n[back](../README.md#top)\n")},
		"results/x/plot.png": {Data: []byte("png")},
	}
	problems := Check(fsys, []string{"README.md", "docs/guide.md"})
	var got []string
	for _, p := range problems {
		got = append(got, p.Target)
	}
	want := []string{"docs/gone.md", "docs/guide.md#part-three", "../elsewhere.md", "/docs/guide.md", "#nowhere", "docs/missing.md"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q\nwant %q\n%v", got, want, problems)
	}
	for _, p := range problems {
		if p.File != "README.md" || p.Line < 7 || p.Line > 20 {
			t.Errorf("%v: want a line of README.md from 7 to 20", p)
		}
	}
	if len(problems) > 0 && !strings.Contains(problems[0].Error(), "README.md:7: docs/gone.md: no such file") {
		t.Errorf("message %q", problems[0].Error())
	}
}

func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"§6.1: Golomb rulers on 1024 PEs":                    "61-golomb-rulers-on-1024-pes",
		"Messages against h·P":                               "messages-against-hp",
		"The binomial trees (T3, T3L) and the budget Δt":     "the-binomial-trees-t3-t3l-and-the-budget-δt",
		"Baselines: every speedup is against the sequential": "baselines-every-speedup-is-against-the-sequential",
		"The `mpi` layer":                                    "the-mpi-layer",
		"snake_case and hyphen-ated":                         "snake_case-and-hyphen-ated",
	} {
		if got := Anchor(in); got != want {
			t.Errorf("Anchor(%q) = %q, want %q", in, got, want)
		}
	}
}
