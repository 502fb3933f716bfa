package runnertest_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treelb/treelb/runner/runnertest"
)

// TestEveryRecordHasProvenance builds every command under apps/ and checks
// that each JSON object they print, in every world and for listings too,
// carries the provenance (issue 20: version, commit, Go, host, CPU, cores,
// GOMAXPROCS, world, MPI library, load).
func TestEveryRecordHasProvenance(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every command")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../../apps/...").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	knap := "../../apps/knapsack/testdata/sanders-m100-seed5.txt"
	for _, c := range []struct {
		world string
		args  []string
	}{
		{"embedded", []string{"golomb", "--json", "--np", "2", "7"}},
		{"embedded", []string{"golomb", "--json", "-b", "seq", "--count", "30", "7"}},
		{"sim", []string{"golomb", "--json", "--world", "sim", "--np", "16", "7"}},
		{"embedded", []string{"fifteen", "--json", "--np", "2", "--korf", "12"}},
		{"sim", []string{"fifteen", "--json", "--world", "sim", "--np", "8", "--korf", "12"}},
		{"embedded", []string{"knapsack", "--json", "--np", "2", knap}},
		{"sim", []string{"knapsack", "--json", "--world", "sim", "--np", "8", knap}},
		{"embedded", []string{"integrate", "poly", "--json", "--np", "2"}},
		{"sim", []string{"integrate", "alpha", "--json", "--world", "sim", "--np", "4", "--alpha", "0.9"}},
		{"none", []string{"integrate", "func", "--json", "help"}},
		{"embedded", []string{"integrate", "func", "--json", "-b", "seq", "gauss"}},
		{"embedded", []string{"uts", "--json", "--np", "2", "--tree", "T1"}},
		{"sim", []string{"uts", "--json", "--world", "sim", "--np", "8", "--tree", "T1"}},
		{"embedded", []string{"uts", "--json", "--tree", "help"}},
		{"embedded", []string{"dht", "--json", "--np", "2", "--rounds", "1"}},
		{"none", []string{"dht", "sim", "--json", "--runs", "2", "--max-p", "8"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			stdout, stderr, code := runnertest.Run(t, filepath.Join(dir, c.args[0]), c.args[1:]...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			runnertest.CheckProvenance(t, stdout, c.world)
		})
	}
}
