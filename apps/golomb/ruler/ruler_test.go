package ruler

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// optimal reads the reference lengths of ../shared/data/golomb_optimal.tsv.
func optimal(t testing.TB) map[int]int {
	f, err := os.Open("../../../../shared/data/golomb_optimal.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[int]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Split(sc.Text(), "\t")
		n, err1 := strconv.Atoi(fs[0])
		l, err2 := strconv.Atoi(fs[1])
		if err1 == nil && err2 == nil {
			m[n] = l
		}
	}
	return m
}

func TestSolve(t *testing.T) {
	want := optimal(t)
	top := 11
	if testing.Short() {
		top = 9
	}
	steps, err := Solve(top)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if l := s.Ruler[len(s.Ruler)-1]; l != want[s.Marks] || !Valid(s.Ruler) {
			t.Errorf("%d marks: %v (length %d), want length %d", s.Marks, s.Ruler, l, want[s.Marks])
		}
		t.Logf("%d marks: %v nodes %d", s.Marks, s.Ruler, s.Nodes)
	}
}

// BenchmarkSolve measures the sequential solver; n=12 and n=13 are the
// figures of the README (go test -bench 'Solve/n=1[23]' -benchtime 1x).
func BenchmarkSolve(b *testing.B) {
	for _, n := range []int{10, 11, 12, 13} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			var nodes int64
			for range b.N {
				steps, err := Solve(n)
				if err != nil {
					b.Fatal(err)
				}
				nodes = 0
				for _, s := range steps {
					nodes += s.Nodes
				}
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(nodes)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
		})
	}
}
