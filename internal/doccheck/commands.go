package doccheck

import (
	"bytes"
	"path"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Command is an invocation of one of the programs Commands looks for, in
// the code of a Markdown file: a code span, or a line of a code block
// (with the lines a trailing backslash continues).
type Command struct {
	File    string
	Line    int    // the line of the span or of the command's first line, 1-based
	Program string // the program's name as Commands was given it
	// Args are the words after the program, quotes removed, up to the end
	// of the command: a shell operator (|, ;, &&, a redirection), a
	// comment, or the end of the code.
	Args []string
}

// Commands returns the invocations of programs in the code of the Markdown
// file src. A word names a program when its last path element is the
// program's name (golomb, ./golomb, bin/mpich/golomb), or when it is a
// package path after `go run` whose last element is (go run ./apps/golomb,
// go run ./scripts/campaign). A word in which a shell variable or a
// placeholder stands for the program (`$APP`, `APP`) names none.
func Commands(file string, src []byte, programs []string) []Command {
	want := map[string]bool{}
	for _, p := range programs {
		want[p] = true
	}
	var cmds []Command
	find := func(code string, line int) {
		for _, c := range commandsIn(code, want) {
			c.File, c.Line = file, line+c.Line
			cmds = append(cmds, c)
		}
	}
	doc := md.Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindCodeSpan:
			var b bytes.Buffer
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			find(b.String(), line(n, src))
			return ast.WalkSkipChildren, nil
		case ast.KindFencedCodeBlock, ast.KindCodeBlock:
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkSkipChildren, nil
			}
			var b bytes.Buffer
			for i := range lines.Len() {
				s := lines.At(i)
				b.Write(s.Value(src))
			}
			first := 1 + bytes.Count(src[:lines.At(0).Start], []byte("\n"))
			find(b.String(), first)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return cmds
}

// commandsIn finds the invocations in a piece of shell code; each
// Command's Line counts from 0 at the code's first line.
func commandsIn(code string, want map[string]bool) []Command {
	var cmds []Command
	words := shellWords(code)
	first := 0 // the command's first word
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w.op {
			first = i + 1
			continue
		}
		if i == first && strings.Contains(w.text, "=") && !strings.HasPrefix(w.text, "-") {
			first++ // VAR=value before the command
			continue
		}
		name := path.Base(w.text)
		if !want[name] || strings.ContainsAny(w.text, "$<>{}") {
			continue
		}
		// The program is the command, or what a launcher runs: a word
		// elsewhere is an argument (scripts/validate.sh --apps golomb).
		if i > first && !launchers[path.Base(words[first].text)] {
			continue
		}
		// A package path is a program only after go run.
		if strings.Contains(w.text, "/apps/") || strings.Contains(w.text, "/scripts/") {
			if i < 2 || words[i-1].text != "run" || words[i-2].text != "go" {
				if !strings.HasPrefix(w.text, "bin/") && !strings.HasPrefix(w.text, "./bin/") {
					continue
				}
			}
		}
		c := Command{Line: w.line, Program: name}
		for i+1 < len(words) && !words[i+1].op {
			i++
			c.Args = append(c.Args, words[i].text)
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// launchers are the commands whose arguments hold the command they run.
var launchers = map[string]bool{
	"mpirun": true, "mpiexec": true, "mpirun.openmpi": true, "mpirun.mpich": true, "mpiexec.hydra": true,
	"srun": true, "time": true, "taskset": true, "env": true, "nohup": true, "timeout": true,
	"exec": true, "perf": true, "valgrind": true, "go": true, "sudo": true,
}

// word is a word of shell code, or an operator that ends a command.
type word struct {
	text string
	op   bool
	line int
}

// shellWords splits shell code into words as a POSIX shell would, closely
// enough for documentation: single and double quotes group and are
// removed, a backslash before a newline joins lines, and |, ;, &, the
// redirections, a comment, $( and ) end a command (an op word).
func shellWords(code string) []word {
	var words []word
	var cur strings.Builder
	in, line, start := false, 0, 0
	flush := func() {
		if in {
			words = append(words, word{text: cur.String(), line: start})
			cur.Reset()
			in = false
		}
	}
	op := func() {
		flush()
		if len(words) == 0 || !words[len(words)-1].op {
			words = append(words, word{op: true, line: line})
		}
	}
	begin := func() {
		if !in {
			in, start = true, line
		}
	}
	for i := 0; i < len(code); i++ {
		ch := code[i]
		switch {
		case ch == '\\' && i+1 < len(code) && code[i+1] == '\n':
			i++
			line++
		case ch == '\n':
			op()
			line++
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '\'' || ch == '"':
			begin()
			j := strings.IndexByte(code[i+1:], ch)
			if j < 0 {
				j = len(code) - i - 1
			}
			cur.WriteString(code[i+1 : i+1+j])
			line += strings.Count(code[i+1:i+1+j], "\n")
			i += j + 1
		case ch == '#' && !in:
			for i+1 < len(code) && code[i+1] != '\n' {
				i++
			}
			op()
		case ch == '|' || ch == ';' || ch == '&' || ch == '<' || ch == '>' || ch == ')' || ch == '(' || ch == '`':
			if ch == '>' && in && isDigits(cur.String()) { // 2>, 1>
				cur.Reset()
				in = false
			}
			op()
		default:
			begin()
			cur.WriteByte(ch)
		}
	}
	flush()
	return words
}

func isDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
