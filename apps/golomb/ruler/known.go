package ruler

import (
	"bufio"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// optimalTSV is the table of optimal Golomb rulers with 1 to 28 marks (OEIS
// A003022 and the published optimal rulers; provenance in the file's
// comment lines).
//
//go:embed optimal.tsv
var optimalTSV string

// Known returns the known optimal rulers, indexed by their number of marks
// (1..28; index 0 is nil). It parses the embedded table on every call, so
// callers own the result; O(28²).
func Known() ([][]int, error) {
	out := make([][]int, 1)
	sc := bufio.NewScanner(strings.NewReader(optimalTSV))
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.HasPrefix(text, "#") || strings.HasPrefix(text, "marks") || strings.TrimSpace(text) == "" {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 3 {
			return nil, fmt.Errorf("ruler: optimal.tsv line %d: %d columns", line, len(cols))
		}
		n, err1 := strconv.Atoi(cols[0])
		length, err2 := strconv.Atoi(cols[1])
		marks := strings.Fields(cols[2])
		if err1 != nil || err2 != nil || n != len(out) || len(marks) != n {
			return nil, fmt.Errorf("ruler: optimal.tsv line %d: malformed", line)
		}
		r := make([]int, n)
		for i, m := range marks {
			if r[i], err1 = strconv.Atoi(m); err1 != nil {
				return nil, fmt.Errorf("ruler: optimal.tsv line %d: %w", line, err1)
			}
		}
		if r[n-1] != length || !Valid(r) {
			return nil, fmt.Errorf("ruler: optimal.tsv line %d: %v is not a Golomb ruler of length %d", line, r, length)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// KnownBounds returns the bounds of a search for rulers with n marks
// (NewProblem's g) from the table of known optimal rulers: g[m] is the
// length of a shortest m-mark ruler for 1 ≤ m < n. The table is proved
// (OEIS A003022, distributed.net's OGR for 24 to 28 marks), so a count
// bounded by it needs no search for the shorter rulers first; O(28²).
func KnownBounds(n int) ([]int, error) {
	if n < 2 || n > MaxMarks {
		return nil, fmt.Errorf("ruler: %d marks: need 2 to %d", n, MaxMarks)
	}
	known, err := Known()
	if err != nil {
		return nil, err
	}
	g := make([]int, n)
	for m := 1; m < n; m++ {
		g[m] = known[m][m-1]
	}
	return g, nil
}
