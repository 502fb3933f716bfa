package campaign

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/treelb/treelb/runner"
)

// Field is one column of a flattened JSON object: its dotted name and its
// value as text.
type Field struct {
	Name, Value string
}

// Flatten returns the fields of the JSON object in data, in their order:
// nested objects become dotted names (messages.request), arrays stay
// compact JSON text, strings their contents, numbers and booleans their
// literal text, null the empty string. It fails unless data is exactly one
// object.
func Flatten(data []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("campaign: JSON output: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("campaign: more than one JSON value in the output")
	}
	var out []Field
	if err := flatten("", raw, &out); err != nil {
		return nil, fmt.Errorf("campaign: JSON output: %w", err)
	}
	return out, nil
}

// flatten appends the fields of the object raw under prefix to out.
func flatten(prefix string, raw json.RawMessage, out *[]Field) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("want an object, have %.40s", raw)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		name := prefix + t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		switch v[0] {
		case '{':
			if err := flatten(name+".", v, out); err != nil {
				return err
			}
			continue
		case '[':
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				return err
			}
			*out = append(*out, Field{name, b.String()})
		case '"':
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			*out = append(*out, Field{name, s})
		case 'n':
			*out = append(*out, Field{name, ""})
		default:
			*out = append(*out, Field{name, string(v)})
		}
	}
	return nil
}

// Table is a CSV file in memory: a header and rows aligned to it. The zero
// value is an empty table; a Table is not safe for concurrent use.
type Table struct {
	Columns []string
	Rows    [][]string
	// Torn is the length of an incomplete last line that ReadTable left
	// out: a file that does not end with a newline was cut while a row was
	// appended (a run stopped, a full disk).
	Torn  int
	index map[string]int
}

// Col returns the index of column name, or -1.
func (t *Table) Col(name string) int {
	if t.index == nil {
		t.index = make(map[string]int, len(t.Columns))
		for i, c := range t.Columns {
			t.index[c] = i
		}
	}
	if i, ok := t.index[name]; ok {
		return i
	}
	return -1
}

// Get returns the value of column name in row i, "" when absent.
func (t *Table) Get(i int, name string) string {
	if c := t.Col(name); c >= 0 && c < len(t.Rows[i]) {
		return t.Rows[i][c]
	}
	return ""
}

// Float returns column name of row i as a number; ok is false when it is
// absent or not a number.
func (t *Table) Float(i int, name string) (v float64, ok bool) {
	v, err := strconv.ParseFloat(t.Get(i, name), 64)
	return v, err == nil
}

// Add appends a row of fields; columns it names for the first time are
// appended to the header, in the fields' order (older rows get "" there).
// It reports whether the header grew. Fields naming a column twice fail.
func (t *Table) Add(fields []Field) (grew bool, err error) {
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.Name] {
			return false, fmt.Errorf("campaign: column %s twice in one row", f.Name)
		}
		seen[f.Name] = true
		if t.Col(f.Name) < 0 {
			t.index[f.Name] = len(t.Columns)
			t.Columns = append(t.Columns, f.Name)
			grew = true
		}
	}
	row := make([]string, len(t.Columns))
	for _, f := range fields {
		row[t.index[f.Name]] = f.Value
	}
	t.Rows = append(t.Rows, row)
	return grew, nil
}

// Keys returns the key of every row; it fails on a row without a valid key.
func (t *Table) Keys() ([]Key, error) {
	t.Col("")
	keys := make([]Key, len(t.Rows))
	for i, r := range t.Rows {
		k, err := KeyOf(t.index, r)
		if err != nil {
			return nil, fmt.Errorf("row %d: %w", i+1, err)
		}
		keys[i] = k
	}
	return keys, nil
}

// ReadTable reads a CSV file with a header line; rows shorter than the
// header are padded with "". A missing file is an empty table and no error.
// A last line without its newline is left out (Table.Torn): every row the
// runner appends ends with one, so that line was cut while it was written.
// A file that does not parse is a *runner.UsageError (exit status 2) that
// names it and the line.
func ReadTable(path string) (*Table, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Table{}, nil
	}
	if err != nil {
		return nil, err
	}
	t := &Table{}
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			t.Torn, data = n-i-1, data[:i+1] // the header and whole rows stay
		}
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, &runner.UsageError{Err: fmt.Errorf("%s: %w", path, err)}
	}
	if len(recs) == 0 {
		return t, nil
	}
	t.Columns = recs[0]
	for i, rec := range recs[1:] {
		if len(rec) > len(t.Columns) {
			return nil, runner.Usagef("%s: line %d: %d fields, the header has %d", path, i+2, len(rec), len(t.Columns))
		}
		t.Rows = append(t.Rows, append(rec, make([]string, len(t.Columns)-len(rec))...))
	}
	if len(t.Columns) != len(slices.Compact(slices.Sorted(slices.Values(t.Columns)))) {
		return nil, runner.Usagef("%s: a column name repeats in the header", path)
	}
	return t, nil
}

// Write writes the whole table to path (writeFile: an interrupted write
// leaves the old file).
func (t *Table) Write(path string) error {
	return writeFile(path, func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write(t.Columns)
		for _, r := range t.Rows {
			w.Write(append(r, make([]string, len(t.Columns)-len(r))...))
		}
		w.Flush()
		return w.Error()
	})
}

// writeFile writes a file of the campaign's (a table, a summary, a plot)
// to path, mode 0644, through a temporary file in the same directory
// renamed over path, so that a failed or interrupted write (a full disk)
// leaves the old file or none, never half of one. Its error is a
// *runner.OutputError (exit status 74).
//
// What is at path must be a regular file, if anything: the rename would
// replace a device with a file (as root, --csv /dev/null replaced
// /dev/null).
func writeFile(path string, write func(io.Writer) error) error {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return &runner.OutputError{What: path, Err: fmt.Errorf("%s, not a file the campaign may replace", runner.FileKind(st.Mode()))}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	defer os.Remove(tmp.Name()) // after the rename: nothing
	if err := errors.Join(write(tmp), tmp.Chmod(0o644), tmp.Close()); err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	return nil
}

// AppendLast appends the table's last row to the CSV file at path, which
// must hold the table's header and earlier rows.
func (t *Table) AppendLast(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	w := csv.NewWriter(f)
	w.Write(t.Rows[len(t.Rows)-1])
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	return nil
}
