package provcsv

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/treelb/treelb/version"
)

// TestStamp: every row gets the provenance columns, with the campaign
// runner's names, and the table's own columns are kept as they were.
func TestStamp(t *testing.T) {
	p := version.Provenance{Version: "v", Commit: "abc", Go: "go1", Host: "h", CPU: "c", Cores: 2, GOMAXPROCS: 2,
		World: "sim", MPI: "embedded", MPILibrary: "embedded", Load: "0.1 0.2 0.3"}
	var out bytes.Buffer
	w := Writer(&out, p)
	if _, err := w.Write([]byte("a,b\n1,\"x,y\"\n2,z\n")); err != nil {
		t.Fatal(err)
	}
	if out.Len() != 0 {
		t.Fatal("Writer wrote before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	names, values := p.Columns()
	if len(rows) != 3 || strings.Join(rows[0], ",") != "a,b,"+strings.Join(names, ",") {
		t.Fatalf("header %q, %d rows", rows[0], len(rows))
	}
	if rows[1][1] != "x,y" || rows[2][0] != "2" {
		t.Errorf("records changed: %q", rows[1:])
	}
	for _, r := range rows[1:] {
		if strings.Join(r[2:], "|") != strings.Join(values, "|") {
			t.Errorf("row %q: provenance %q, want %q", r, r[2:], values)
		}
	}
	if values[1] != "abc" || values[6] != "2" || values[11] != "0.1 0.2 0.3" || names[10] != "provenance.mpi_library" {
		t.Errorf("columns %q = %q", names, values)
	}
	// Stamping twice is refused; malformed CSV is an error.
	if err := Stamp(&bytes.Buffer{}, out.Bytes(), p); err == nil {
		t.Error("a stamped table was stamped again")
	}
	if err := Stamp(&bytes.Buffer{}, []byte("a,b\n1\n"), p); err == nil {
		t.Error("a malformed table was accepted")
	}
	if err := Stamp(&bytes.Buffer{}, nil, p); err == nil {
		t.Error("an empty table was accepted")
	}
}
