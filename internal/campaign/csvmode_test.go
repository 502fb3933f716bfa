package campaign

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteMode: a table written whole (through a temporary file) or
// appended to is mode 0644, as a file the shell creates, not the temporary
// file's 0600.
func TestWriteMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.csv")
	tb := &Table{Columns: []string{"a", "b"}, Rows: [][]string{{"1", "2"}}}
	if err := tb.Write(path); err != nil {
		t.Fatal(err)
	}
	tb.Rows = append(tb.Rows, []string{"3", "4"})
	if err := tb.AppendLast(path); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Fatalf("%s: mode %v, want 0644", path, st.Mode().Perm())
	}
}
