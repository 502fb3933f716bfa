package knap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// maxLine is the longest line Parse reads.
const maxLine = 1 << 20

// lineReader reads the non-blank lines of an instance, with one line of
// lookahead, counting physical lines from 1.
type lineReader struct {
	sc     *bufio.Scanner
	phys   int      // physical lines scanned
	line   int      // number of the current line; at the end, one past the last
	fields []string // fields of the current line, nil at the end
	err    error    // read error, reported once the lines run out

	peeked     bool // a line is buffered in peekLine, peekFields
	peekLine   int
	peekFields []string
	peekOK     bool
}

// read scans up to the next non-blank line.
func (r *lineReader) read() (int, []string, bool) {
	for r.sc.Scan() {
		r.phys++
		text := r.sc.Text()
		if r.phys == 1 {
			// A byte-order mark, which some Windows editors write first.
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if f := strings.Fields(text); len(f) > 0 {
			return r.phys, f, true
		}
	}
	if err := r.sc.Err(); err != nil && r.err == nil {
		r.err = fmt.Errorf("knapsack: %w", err) // a directory: "read .: is a directory"
		if errors.Is(err, bufio.ErrTooLong) {
			r.err = fmt.Errorf("knapsack: line %d: longer than %d bytes", r.phys+1, maxLine) // the line the scanner failed on
		}
	}
	return r.phys + 1, nil, false
}

// next makes the next non-blank line current; false at the end of the
// input or on a read error (then in r.err).
func (r *lineReader) next() bool {
	if r.peeked {
		r.peeked = false
		r.line, r.fields = r.peekLine, r.peekFields
		return r.peekOK
	}
	var ok bool
	r.line, r.fields, ok = r.read()
	return ok
}

// more reports whether another non-blank line follows the current one,
// without making it current.
func (r *lineReader) more() bool {
	if !r.peeked {
		r.peekLine, r.peekFields, r.peekOK = r.read()
		r.peeked = true
	}
	return r.peekOK
}

// plural returns "1 thing" or "n things".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// fieldsOf returns "1 field" or "n fields".
func fieldsOf(n int) string { return plural(n, "field") }

// Parse reads an instance in the common text format: a line with the number
// of items n, n lines "profit weight", and a line with the capacity; fields
// are separated by blanks, and blank lines are ignored.
//
// With scale 0 every number must be a non-negative integer. With scale ≥ 1
// profits, weights and the capacity may be decimal numbers (digits with at
// most one decimal point, no exponent); each is multiplied by scale exactly
// and rounded to the nearest integer, halves up. The count n is always an
// integer.
//
// Errors name the line: a missing or extra line, a line with the wrong
// number of fields, a count that does not match the item lines, a negative
// number, a non-number, a number or a sum of profits or of weights that
// overflows (see Instance.Validate). It takes time linear in the input.
func Parse(r io.Reader, scale int64) (*Instance, error) {
	in, _, err := ParseScaled(r, scale)
	return in, err
}

// Zeroed says which numbers of an input a scale rounded to 0 although they
// are not 0 (a weight of 0.25 under --scale 1): Count of them, the first
// on line First.
type Zeroed struct{ Count, First int }

// ParseScaled is Parse, also reporting the nonzero decimal numbers that
// the scale rounded to 0, which change the instance (a weight of 0 packs
// for free): a larger scale keeps them.
func ParseScaled(r io.Reader, scale int64) (*Instance, Zeroed, error) {
	var z Zeroed
	zeroed := func(s string, v int64, line int) {
		if v == 0 && strings.ContainsAny(s, "123456789") {
			if z.Count == 0 {
				z.First = line
			}
			z.Count++
		}
	}
	if scale < 0 {
		return nil, z, fmt.Errorf("knapsack: negative scale %d", scale)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	lr := &lineReader{sc: sc}
	if !lr.next() {
		if lr.err != nil {
			return nil, z, lr.err
		}
		return nil, z, errors.New("knapsack: empty input: want the number of items on line 1")
	}
	if len(lr.fields) != 1 {
		return nil, z, fmt.Errorf("knapsack: line %d: want the number of items alone, got %s", lr.line, fieldsOf(len(lr.fields)))
	}
	n64, err := parseNumber(lr.fields[0], -1, "item count")
	if err != nil {
		return nil, z, fmt.Errorf("knapsack: line %d: %w", lr.line, err)
	}
	if n64 > MaxItems {
		return nil, z, fmt.Errorf("knapsack: line %d: %d items, at most %d supported", lr.line, n64, MaxItems)
	}
	n, countLine := int(n64), lr.line
	in := &Instance{Profit: make([]int64, 0, min(n, 1<<16)), Weight: make([]int64, 0, min(n, 1<<16))}
	var sp, sw int64
	for i := range n {
		if !lr.next() {
			if lr.err != nil {
				return nil, z, lr.err
			}
			return nil, z, fmt.Errorf("knapsack: line %d: input ends after %d of the %d items declared on line %d, and the capacity line is missing", lr.line, i, n, countLine)
		}
		if len(lr.fields) == 1 && !lr.more() {
			return nil, z, fmt.Errorf("knapsack: line %d: count mismatch: line %d declares %s, but only %s the capacity", lr.line, countLine, plural(n, "item"), map[bool]string{true: "1 item line precedes", false: plural(i, "item line") + " precede"}[i == 1])
		}
		if len(lr.fields) != 2 {
			return nil, z, fmt.Errorf("knapsack: line %d: want \"profit weight\" for item %d, got %s", lr.line, i+1, fieldsOf(len(lr.fields)))
		}
		p, err := parseNumber(lr.fields[0], scale, "profit")
		if err != nil {
			return nil, z, fmt.Errorf("knapsack: line %d: %w", lr.line, err)
		}
		w, err := parseNumber(lr.fields[1], scale, "weight")
		if err != nil {
			return nil, z, fmt.Errorf("knapsack: line %d: %w", lr.line, err)
		}
		zeroed(lr.fields[0], p, lr.line)
		zeroed(lr.fields[1], w, lr.line)
		if sp > math.MaxInt64-1-p {
			return nil, z, fmt.Errorf("knapsack: line %d: %w", lr.line, errSumProfit)
		}
		if sw > math.MaxInt64-w {
			return nil, z, fmt.Errorf("knapsack: line %d: %w", lr.line, errSumWeight)
		}
		sp, sw = sp+p, sw+w
		in.Profit = append(in.Profit, p)
		in.Weight = append(in.Weight, w)
	}
	if !lr.next() {
		if lr.err != nil {
			return nil, z, lr.err
		}
		return nil, z, fmt.Errorf("knapsack: line %d: the capacity line is missing after %s", lr.line, plural(n, "item"))
	}
	if len(lr.fields) == 2 {
		return nil, z, fmt.Errorf("knapsack: line %d: count mismatch: line %d declares %s, but more item lines follow", lr.line, countLine, plural(n, "item"))
	}
	if len(lr.fields) != 1 {
		return nil, z, fmt.Errorf("knapsack: line %d: want the capacity alone, got %s", lr.line, fieldsOf(len(lr.fields)))
	}
	if in.Capacity, err = parseNumber(lr.fields[0], scale, "capacity"); err != nil {
		return nil, z, fmt.Errorf("knapsack: line %d: %w", lr.line, err)
	}
	zeroed(lr.fields[0], in.Capacity, lr.line)
	if lr.next() {
		return nil, z, fmt.Errorf("knapsack: line %d: extra line after the capacity", lr.line)
	}
	if lr.err != nil {
		return nil, z, lr.err
	}
	return in, z, nil
}

// parseNumber parses one field, a non-negative integer with scale 0 (or
// -1: a field no scale applies to, the item count) or a decimal number to
// multiply by scale ≥ 1 and round, halves up. Its errors quote at most the
// field's first 40 bytes.
func parseNumber(s string, scale int64, what string) (int64, error) {
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("negative %s %s", what, clip(s))
	}
	if scale <= 0 {
		v, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err == nil:
			return v, nil
		case errors.Is(err, strconv.ErrRange):
			return 0, fmt.Errorf("%s %s overflows int64", what, clip(s))
		case isDecimal(s) && scale == 0:
			return 0, fmt.Errorf("%s %s is not an integer (decimal numbers need a scale)", what, clip(s))
		case isDecimal(s):
			return 0, fmt.Errorf("%s %s is not an integer", what, clip(s))
		default:
			return 0, fmt.Errorf("%s %s is not a number", what, clipQuoted(s))
		}
	}
	if !isDecimal(s) {
		return 0, fmt.Errorf("%s %s is not a number", what, clipQuoted(s))
	}
	ip, fp, _ := strings.Cut(strings.TrimPrefix(s, "+"), ".")
	m, _ := new(big.Int).SetString("0"+ip+fp, 10) // digits only: cannot fail
	m.Mul(m, big.NewInt(scale))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(fp))), nil)
	q, rem := new(big.Int).QuoRem(m, den, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("%s %s × %d overflows int64", what, clip(s), scale)
	}
	return q.Int64(), nil
}

// clip returns s, or its first 40 bytes and how long it is when longer, for
// a message (a 200 000-digit number is not echoed whole).
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:40], ""), len(s))
}

// clipQuoted is clip with the text quoted (%q), the length outside.
func clipQuoted(s string) string {
	if len(s) <= 40 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q… (%d bytes)", strings.ToValidUTF8(s[:40], ""), len(s))
}

// isDecimal reports whether s is an optional '+', digits, and at most one
// decimal point, with at least one digit.
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "+")
	digits, points := 0, 0
	for _, c := range []byte(s) {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

// WriteTo writes the instance in the format Parse reads, integers only:
// n, then "profit weight" per item, then the capacity, one per line. It
// implements io.WriterTo.
func (in *Instance) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	var written int64
	var buf []byte
	put := func(b []byte) error {
		k, err := bw.Write(b)
		written += int64(k)
		return err
	}
	buf = strconv.AppendInt(buf[:0], int64(in.Len()), 10)
	if err := put(append(buf, '\n')); err != nil {
		return written, fmt.Errorf("knapsack: writing: %w", err)
	}
	for i, p := range in.Profit {
		buf = strconv.AppendInt(buf[:0], p, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, in.Weight[i], 10)
		if err := put(append(buf, '\n')); err != nil {
			return written, fmt.Errorf("knapsack: writing: %w", err)
		}
	}
	buf = strconv.AppendInt(buf[:0], in.Capacity, 10)
	if err := put(append(buf, '\n')); err != nil {
		return written, fmt.Errorf("knapsack: writing: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return written, fmt.Errorf("knapsack: writing: %w", err)
	}
	return written, nil
}
