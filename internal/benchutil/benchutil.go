// Package benchutil holds the small helpers that the measurement programs
// under scripts/ share: the median of a sample and the machine's load
// average, which every wall-clock figure quotes.
package benchutil

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Median returns the middle value of xs (the mean of the two middle ones
// for an even count), NaN for none, in O(n log n) time; xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// LoadAvg returns the first three fields of /proc/loadavg (the load
// averages over 1, 5 and 15 minutes), or "unknown" where there is none.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// ReadCSV reads a CSV file that a campaign wrote and returns its records
// after the header, which must be header exactly; it fails for another
// header or no records.
func ReadCSV(path string, header []string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 || !slices.Equal(recs[0], header) {
		return nil, fmt.Errorf("%s: not a CSV file of this program (want the header %q), or no records", path, strings.Join(header, ","))
	}
	return recs[1:], nil
}

// Build builds the command of package pkg ("./apps/knapsack", relative to
// the repository's root, which must be the working directory) into dir and
// returns the binary's path.
func Build(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, filepath.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s (run from the repository's root): %v\n%s", pkg, err, out)
	}
	return bin, nil
}
