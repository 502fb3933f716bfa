package puzzle

import (
	"bufio"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// korf100 is Korf's table of 100 instances, with the optimal lengths and,
// for ids 1–50, the IDA* node counts: R. E. Korf, "Depth-first
// iterative-deepening: an optimal admissible tree search", Artificial
// Intelligence 27 (1985), Table 1 (node counts reproduced; provenance in
// the file's comment lines).
//
//go:embed korf100.tsv
var korf100 string

// Korf100 returns Korf's 100 instances from the table embedded in the
// package, in id order. It parses the table on every call, so callers own
// the result.
func Korf100() ([]Instance, error) {
	ins, err := readKorf(strings.NewReader(korf100))
	if err != nil {
		return nil, fmt.Errorf("puzzle: the embedded korf100.tsv: %w", err)
	}
	return ins, nil
}

// Instance is one line of Korf's table of 100 instances.
type Instance struct {
	ID      int   // 1..100
	State   State // the start board, solvable
	Optimal int   // length of an optimal solution
	Nodes   int64 // total IDA* nodes over all iterations, 0 if not given
}

// korfColumns is the number of tab-separated columns of a data line:
// id, 16 tiles, optimal length, nodes (possibly empty).
const korfColumns = 1 + Size + 2

// korfHeader is the table's header line: the columns in their order.
const korfHeader = "id\tt0\tt1\tt2\tt3\tt4\tt5\tt6\tt7\tt8\tt9\tt10\tt11\tt12\tt13\tt14\tt15\toptimal_length\tnodes"

// LoadKorf reads instances from the file at path, in the format of the
// embedded table (Korf100); see ReadKorf.
func LoadKorf(path string) ([]Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("puzzle: %w", err)
	}
	defer f.Close()
	ins, err := readKorf(f)
	if err != nil {
		return nil, fmt.Errorf("puzzle: %s: %w", path, err)
	}
	return ins, nil
}

// ReadKorf reads instances in the format of the embedded table (Korf100):
// an optional header line starting with "id" before the first instance, then one line per instance with
// tab-separated columns id, t0..t15 (tiles row by row, 0 = blank),
// optimal_length and nodes, the last possibly empty. Blank lines and lines
// starting with '#' are skipped. Every board must be valid and solvable.
// Errors name the line number.
func ReadKorf(r io.Reader) ([]Instance, error) {
	ins, err := readKorf(r)
	if err != nil {
		return nil, fmt.Errorf("puzzle: %w", err)
	}
	return ins, nil
}

func readKorf(r io.Reader) ([]Instance, error) {
	var out []Instance
	sc := bufio.NewScanner(r)
	line := 0
	header := false
	seen := map[int]int{} // id → its line
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(out) == 0 && !header && strings.TrimSpace(cols[0]) == "id" {
			// The columns are read by position: a header must name them so.
			if got := strings.Join(cols, "\t"); got != korfHeader {
				return nil, fmt.Errorf("line %d: header %q: want %q (the columns are read in that order)", line, got, korfHeader)
			}
			header = true
			continue
		}
		in, err := parseKorfLine(cols)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if l, ok := seen[in.ID]; ok {
			return nil, fmt.Errorf("line %d: instance %d again (first on line %d)", line, in.ID, l)
		}
		seen[in.ID] = line
		out = append(out, in)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d bytes", line+1, bufio.MaxScanTokenSize) // the line the scanner failed on
		}
		return nil, err // a directory: "read /tmp: is a directory"
	}
	return out, nil
}

func parseKorfLine(cols []string) (Instance, error) {
	var in Instance
	if len(cols) != korfColumns {
		return in, fmt.Errorf("want %d tab-separated columns, got %d", korfColumns, len(cols))
	}
	id, err := strconv.Atoi(strings.TrimSpace(cols[0]))
	if err != nil {
		return in, fmt.Errorf("id: %w", err)
	}
	st, err := parse(cols[1 : 1+Size])
	if err != nil {
		return in, err
	}
	if !Solvable(st) {
		return in, ErrUnsolvable
	}
	opt, err := strconv.Atoi(strings.TrimSpace(cols[1+Size]))
	if err != nil || opt < 0 {
		return in, fmt.Errorf("optimal_length %q: not a non-negative integer", cols[1+Size])
	}
	var nodes int64
	if s := strings.TrimSpace(cols[2+Size]); s != "" {
		nodes, err = strconv.ParseInt(s, 10, 64)
		if err != nil || nodes <= 0 {
			return in, fmt.Errorf("nodes %q: not a positive integer", s)
		}
	}
	return Instance{ID: id, State: st, Optimal: opt, Nodes: nodes}, nil
}
