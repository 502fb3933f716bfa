package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/treelb/treelb/apps/fifteen/parallel"

	"github.com/treelb/treelb/apps/fifteen/puzzle"
)

// instance is one board to solve and where it came from. It travels from
// rank 0 to the other ranks.
type instance struct {
	Label string // "korf 12", "boards.txt:3" or "arguments"
	Korf  int    // the id in Korf's table, 0 if not from it
	Start puzzle.State
	Table puzzle.Instance // Korf's line when Korf > 0: the expected length and nodes
	Near  parallel.Near   // --near: where the parallel search's splits give work away
}

// sources is what the command line says to solve.
type sources struct {
	korf    []string // --korf values: ids or ranges A-B
	data    string   // --data, "" for the embedded table
	files   []string // --file values, "-" for stdin
	stdin   io.Reader
	numbers []string // the positional arguments
}

// instances reads every instance the sources name, in the order --korf,
// --file, arguments, and checks each board: 16 numbers, every tile 0..15
// once, and a solvable permutation. It returns an error naming the
// offending input; every error is the user's (exit code 2).
func (s sources) instances() ([]instance, error) {
	var out []instance
	if s.data != "" && len(s.korf) == 0 {
		return nil, fmt.Errorf("--data %s: the table is read for --korf alone; give --korf N", s.data)
	}
	if stdin := slices.Index(s.files, "-"); stdin >= 0 && slices.Contains(s.files[stdin+1:], "-") {
		return nil, errors.New("--file - twice: standard input can be read once")
	}
	if len(s.korf) > 0 {
		ids, err := korfIDs(s.korf)
		if err != nil {
			return nil, err
		}
		table, err := loadKorf(s.data)
		if err != nil {
			return nil, err
		}
		byID := make(map[int]puzzle.Instance, len(table))
		for _, in := range table {
			byID[in.ID] = in
		}
		for _, id := range ids {
			in, ok := byID[id]
			if !ok {
				return nil, fmt.Errorf("--korf %d: no such instance in the table", id)
			}
			out = append(out, instance{Label: fmt.Sprintf("korf %d", id), Korf: id, Start: in.State, Table: in})
		}
	}
	for _, f := range s.files {
		ins, err := readFile(f, s.stdin)
		if err != nil {
			return nil, err
		}
		out = append(out, ins...)
	}
	if len(s.numbers) > 0 {
		fields, err := splitFields(strings.Join(s.numbers, " "))
		if err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
		if len(fields) == 1 && fields[0] == "-" {
			return nil, errors.New("arguments: \"-\" is no board: --file - reads boards from standard input")
		}
		if len(fields) == 0 || len(fields)%puzzle.Size != 0 {
			return nil, fmt.Errorf("arguments: need %d numbers per instance, got %d", puzzle.Size, len(fields))
		}
		for k := 0; k < len(fields); k += puzzle.Size {
			label := "arguments"
			if len(fields) > puzzle.Size {
				label = fmt.Sprintf("arguments %d-%d", k+1, k+puzzle.Size)
			}
			st, err := board(fields[k : k+puzzle.Size])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", label, err)
			}
			out = append(out, instance{Label: label, Start: st})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no instance: give --korf N, --file F or 16 numbers (see --help)")
	}
	return out, nil
}

// korfIDs parses the --korf values: ids 1..100 and ranges A-B.
func korfIDs(vals []string) ([]int, error) {
	var ids []int
	for _, v := range vals {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(v), "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 1 || b > 100 || a > b {
			return nil, fmt.Errorf("--korf %q: need an instance 1..100 or a range like 1-10", v)
		}
		for id := a; id <= b; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// loadKorf reads Korf's table from path, or the embedded one when path is
// "".
func loadKorf(path string) ([]puzzle.Instance, error) {
	if path == "" {
		return puzzle.Korf100()
	}
	ins, err := puzzle.LoadKorf(path)
	if err != nil {
		return nil, fmt.Errorf("reading Korf's instances (--data): %w", err)
	}
	return ins, nil
}

// readFile reads one instance per line from path, or from stdin when path
// is "-" (see readBoards).
func readFile(path string, stdin io.Reader) ([]instance, error) {
	if path == "-" {
		if stdin == nil {
			stdin = os.Stdin
		}
		return readBoards(stdin, "standard input")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--file: %w", err)
	}
	defer f.Close()
	return readBoards(f, path)
}

// readBoards reads one instance per line from r, the file called name: 16
// numbers separated by blanks or commas; '#' starts a comment, and blank
// lines are skipped. Errors name the line.
func readBoards(r io.Reader, name string) ([]instance, error) {
	var out []instance
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text, _, _ := strings.Cut(sc.Text(), "#")
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark, as some editors write
		}
		fields, err := splitFields(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(fields) == 0 {
			continue
		}
		label := fmt.Sprintf("%s:%d", name, line)
		st, err := board(fields)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		out = append(out, instance{Label: label, Start: st})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("--file %s:%d: longer than %d bytes", name, line+1, bufio.MaxScanTokenSize) // the line the scanner failed on
		}
		return nil, fmt.Errorf("--file %s: %w", name, err) // a directory: "read /tmp: is a directory"
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--file %s: no instance in the file", name)
	}
	return out, nil
}

// splitFields splits s at blanks and commas: a separator is a run of blanks
// with at most one comma in it, so that "1, 2" and "1,2" are two numbers
// and "1,,2", a leading or a trailing comma leave out one, which is an
// error rather than a board of the numbers that are there.
func splitFields(s string) ([]string, error) {
	blank := unicode.IsSpace // any blank: a vertical tab or a no-break space between tiles too
	packed := strings.Join(strings.FieldsFunc(s, blank), " ")
	packed = strings.ReplaceAll(strings.ReplaceAll(packed, " ,", ","), ", ", ",")
	if strings.Contains(packed, ",,") || strings.HasPrefix(packed, ",") || strings.HasSuffix(packed, ",") {
		return nil, fmt.Errorf("%q: an empty field between commas", strings.TrimSpace(s))
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || blank(r) }), nil
}

// board parses 16 numbers into a board and checks that it is solvable.
func board(fields []string) (puzzle.State, error) {
	st, err := puzzle.Parse(fields)
	if err != nil {
		return st, err
	}
	if !puzzle.Solvable(st) {
		return st, fmt.Errorf("%v: %w (the goal is 0 1 2 … 15, blank first)", st, puzzle.ErrUnsolvable)
	}
	return st, nil
}

// fileList is --file's value: every file given, in order (a repeated
// --file adds a file, as a repeated --korf adds instances).
type fileList []string

func (l *fileList) Set(s string) error { *l = append(*l, s); return nil }
func (l *fileList) String() string     { return strings.Join(*l, " ") }
