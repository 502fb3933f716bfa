// Package doccheck checks the links of Markdown documentation: every
// relative link and image of a file must lead to a file or directory of the
// same tree, and a link with a fragment (page.md#section) to a heading of
// that Markdown page, by the anchors GitHub gives headings. Links with a
// scheme (https:, mailto:) are not followed.
//
// Links are found by parsing the Markdown (goldmark, with GitHub's tables),
// so that code spans and code blocks, which often hold text that looks like
// a link, are not checked. The checker works on an fs.FS, in the manner of
// testing/fstest.TestFS: the repository's test (doccheck_test.go) runs it on
// every Markdown file git tracks, so that `go test ./...` fails on a
// broken link; tests can run it on a fstest.MapFS.
//
// Commands finds the command lines in a Markdown file's code that run given
// programs, with their arguments; the repository's test checks their flags
// against each program's --help (commands_test.go).
package doccheck

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Link is a link or image found in a Markdown file.
type Link struct {
	File   string // the Markdown file, a slash-separated path in the tree
	Line   int    // its line, 1-based
	Target string // the destination as written
}

// Problem is a link that does not resolve.
type Problem struct {
	Link
	Reason string
}

func (p Problem) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", p.File, p.Line, p.Target, p.Reason)
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Links returns the links and images of the Markdown source src of file,
// and the anchors of its headings.
func Links(file string, src []byte) (links []Link, anchors map[string]bool) {
	doc := md.Parser().Parse(text.NewReader(src))
	anchors = map[string]bool{}
	seen := map[string]int{}
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			a := Anchor(plain(n, src))
			if k := seen[a]; k > 0 {
				anchors[fmt.Sprintf("%s-%d", a, k)] = true
			} else {
				anchors[a] = true
			}
			seen[a]++
		case *ast.Link:
			links = append(links, Link{file, line(n, src), string(n.Destination)})
		case *ast.Image:
			links = append(links, Link{file, line(n, src), string(n.Destination)})
		}
		return ast.WalkContinue, nil
	})
	return links, anchors
}

// plain returns the text of n's inline children, without markup.
func plain(n ast.Node, src []byte) string {
	var b strings.Builder
	ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// line returns the line of the first text at or under n (links carry no
// position of their own), or of the block holding it.
func line(n ast.Node, src []byte) int {
	for p := ast.Node(n); p != nil; p = p.Parent() {
		var off = -1
		ast.Walk(p, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if t, ok := c.(*ast.Text); ok && entering {
				off = t.Segment.Start
				return ast.WalkStop, nil
			}
			return ast.WalkContinue, nil
		})
		if off < 0 && p.Type() == ast.TypeBlock && p.Lines().Len() > 0 {
			off = p.Lines().At(0).Start
		}
		if off >= 0 {
			return 1 + bytes.Count(src[:off], []byte("\n"))
		}
	}
	return 0
}

// Anchor returns the anchor GitHub gives a heading of text s: lower case,
// every character but letters, digits, marks, '-', '_' and spaces dropped,
// and spaces made '-'. (A repeated heading gets -1, -2, … appended.)
func Anchor(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Check checks the links of the Markdown files (slash-separated paths) of
// fsys and returns every problem found, or nil.
func Check(fsys fs.FS, files []string) []Problem {
	var problems []Problem
	anchors := map[string]map[string]bool{} // per Markdown file, read lazily
	headings := func(file string) (map[string]bool, error) {
		if a, ok := anchors[file]; ok {
			return a, nil
		}
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		_, a := Links(file, src)
		anchors[file] = a
		return a, nil
	}
	for _, file := range files {
		src, err := fs.ReadFile(fsys, file)
		if err != nil {
			problems = append(problems, Problem{Link{File: file}, err.Error()})
			continue
		}
		links, a := Links(file, src)
		anchors[file] = a
		for _, l := range links {
			if reason := resolve(fsys, l, headings); reason != "" {
				problems = append(problems, Problem{l, reason})
			}
		}
	}
	return problems
}

// resolve returns why link l does not resolve in fsys, or "".
func resolve(fsys fs.FS, l Link, headings func(string) (map[string]bool, error)) string {
	u, err := url.Parse(l.Target)
	switch {
	case err != nil:
		return "not a URL: " + err.Error()
	case u.Scheme != "" || u.Host != "":
		return "" // absolute: not followed
	case l.Target == "":
		return "empty link"
	}
	target := l.File
	if u.Path != "" {
		if path.IsAbs(u.Path) {
			return "absolute path: write it relative to the file"
		}
		target = path.Join(path.Dir(l.File), u.Path)
		if target == ".." || strings.HasPrefix(target, "../") {
			return "leads out of the repository"
		}
		if _, err := fs.Stat(fsys, target); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "no such file"
			}
			return err.Error()
		}
	}
	if u.Fragment == "" {
		return ""
	}
	if path.Ext(target) != ".md" {
		return "" // anchors of other files (line numbers, …) are not checked
	}
	a, err := headings(target)
	if err != nil {
		return err.Error()
	}
	if !a[u.Fragment] {
		return fmt.Sprintf("no heading with anchor #%s in %s", u.Fragment, target)
	}
	return ""
}
