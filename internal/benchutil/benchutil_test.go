package benchutil

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{2, 2, 9, -1, 2}, 2}} {
		in := append([]float64(nil), c.xs...)
		if got := Median(c.xs); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.xs, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Fatalf("Median changed its argument: %v, was %v", c.xs, in)
			}
		}
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median of nothing is not NaN")
	}
}

func TestLoadAvg(t *testing.T) {
	s := LoadAvg()
	if s == "unknown" {
		t.Skip("no /proc/loadavg")
	}
	f := strings.Fields(s)
	if len(f) != 3 {
		t.Fatalf("LoadAvg() = %q, want three numbers", s)
	}
	for _, x := range f {
		if v, err := strconv.ParseFloat(x, 64); err != nil || v < 0 {
			t.Errorf("LoadAvg() = %q: %q is not a load", s, x)
		}
	}
}

func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := []string{"a", "b"}
	recs, err := ReadCSV(write("ok.csv", "a,b\n1,2\n3,4\n"), header)
	if err != nil || len(recs) != 2 || recs[1][0] != "3" || recs[1][1] != "4" {
		t.Errorf("ReadCSV: %q, %v", recs, err)
	}
	for name, text := range map[string]string{"other.csv": "a,c\n1,2\n", "empty.csv": "a,b\n", "ragged.csv": "a,b\n1\n"} {
		if recs, err := ReadCSV(write(name, text), header); err == nil {
			t.Errorf("%s accepted: %q", name, recs)
		}
	}
	if _, err := ReadCSV(filepath.Join(dir, "none.csv"), header); err == nil {
		t.Error("a missing file accepted")
	}
}
