// Package provcsv stamps the CSV tables that treelb's tools derive from
// their runs (dht sim's figures, the theorem and figure scripts) with the
// provenance of the process that wrote them: every row gets the columns
// provenance.version … provenance.load (version.Provenance.Columns), the
// names the campaign runner gives the same fields, so that every committed
// CSV row says which build on which machine made it.
package provcsv

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"

	"github.com/treelb/treelb/version"
)

// Stamp reads the CSV table in data (a header row, then records) and
// writes it to w with p's columns appended to the header and to every
// record. It fails on malformed CSV, on a table that already has a
// provenance.version column, and on a write error.
func Stamp(w io.Writer, data []byte, p version.Provenance) error {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return fmt.Errorf("provcsv: reading the table: %w", err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("provcsv: the table has no header")
	}
	names, values := p.Columns()
	for _, h := range rows[0] {
		if h == names[0] {
			return fmt.Errorf("provcsv: the table already has a %s column", h)
		}
	}
	cw := csv.NewWriter(w)
	for i, r := range rows {
		if i == 0 {
			r = append(r, names...)
		} else {
			r = append(r, values...)
		}
		if err := cw.Write(r); err != nil {
			return fmt.Errorf("provcsv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("provcsv: %w", err)
	}
	return nil
}

// Writer returns a writer that collects a CSV table and, on Close, writes
// it to w stamped with p (Stamp). Nothing reaches w before Close.
func Writer(w io.Writer, p version.Provenance) io.WriteCloser {
	return &stamper{w: w, p: p}
}

type stamper struct {
	w   io.Writer
	p   version.Provenance
	buf bytes.Buffer
}

func (s *stamper) Write(b []byte) (int, error) { return s.buf.Write(b) }

func (s *stamper) Close() error { return Stamp(s.w, s.buf.Bytes(), s.p) }
