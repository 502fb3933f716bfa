package puzzle

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func loadKorf(t testing.TB) []Instance {
	t.Helper()
	ins, err := Korf100()
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// easiest returns the n instances with the fewest given nodes.
func easiest(t testing.TB, n int) []Instance {
	ins := slices.DeleteFunc(loadKorf(t), func(in Instance) bool { return in.Nodes == 0 })
	slices.SortFunc(ins, func(a, b Instance) int { return int(a.Nodes - b.Nodes) })
	return ins[:n]
}

func TestLoadKorf(t *testing.T) {
	ins := loadKorf(t)
	if len(ins) != 100 {
		t.Fatalf("%d instances, want 100", len(ins))
	}
	withNodes := 0
	for i, in := range ins {
		if in.ID != i+1 {
			t.Errorf("line %d: id %d", i+2, in.ID)
		}
		if in.Nodes > 0 {
			withNodes++
		}
		if h := in.State.Manhattan(); h > in.Optimal || (in.Optimal-h)%2 != 0 {
			t.Errorf("id %d: h %d and optimal %d disagree", in.ID, h, in.Optimal)
		}
	}
	if withNodes != 50 {
		t.Errorf("%d instances with node counts, want 50", withNodes)
	}
	if in := ins[0]; in.State.String() != "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3" || in.Optimal != 57 || in.Nodes != 276361933 {
		t.Errorf("instance 1: %+v", in)
	}
	if ins[99].Nodes != 0 {
		t.Errorf("instance 100 has nodes %d, want 0 (empty column)", ins[99].Nodes)
	}
}

func TestReadKorfErrors(t *testing.T) {
	const header = "id\tt0\tt1\tt2\tt3\tt4\tt5\tt6\tt7\tt8\tt9\tt10\tt11\tt12\tt13\tt14\tt15\toptimal_length\tnodes\n"
	const good = "7\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\t0\t1\n"
	ins, err := ReadKorf(strings.NewReader(header + good + "\n# comment\n" + strings.Replace(good, "7", "8", 1)))
	if err != nil || len(ins) != 2 || ins[1].ID != 8 || ins[1].State != Goal() || ins[1].Nodes != 1 {
		t.Fatalf("good input: %v %+v", err, ins)
	}
	for _, tc := range []struct {
		line, want string
	}{
		{"1\t0\t1\t2\n", "want 19 tab-separated columns, got 4"},
		{"x\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\t0\t\n", "id"},
		{"1\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t14\t0\t\n", "appears twice"},
		{"1\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t15\t14\t0\t\n", "unsolvable"},
		{"1\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\tx\t\n", "optimal_length"},
		{"1\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\t0\t-3\n", "nodes"},
	} {
		_, err := ReadKorf(strings.NewReader(header + good + tc.line))
		if err == nil || !strings.Contains(err.Error(), "line 3: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("line %q: error %v, want line 3 and %q", tc.line, err, tc.want)
		}
	}
	// A header must name the columns in the order they are read, and an
	// instance appears once.
	if _, err := ReadKorf(strings.NewReader(strings.Replace(header, "t0\tt1", "t1\tt0", 1) + good)); err == nil || !strings.Contains(err.Error(), "line 1: header") {
		t.Errorf("a header with two columns swapped: %v", err)
	}
	if _, err := ReadKorf(strings.NewReader(header + good + good)); err == nil || !strings.Contains(err.Error(), "line 3: instance 7 again (first on line 2)") {
		t.Errorf("an instance twice: %v", err)
	}
	// A line too long for the scanner is named by its own number.
	if _, err := ReadKorf(strings.NewReader(header + good + strings.Repeat("1\t", 40000) + "\n")); err == nil || !strings.Contains(err.Error(), "line 3: longer than") {
		t.Errorf("an overlong line 3: error %v, want line 3", err)
	}
	path := filepath.Join(t.TempDir(), "bad.tsv")
	if err := os.WriteFile(path, []byte(header+"2\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKorf(path); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("LoadKorf of a bad file: %v", err)
	}
	if _, err := LoadKorf(filepath.Join(t.TempDir(), "missing.tsv")); err == nil {
		t.Error("LoadKorf of a missing file: no error")
	}
}
