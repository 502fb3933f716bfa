//go:build unix

package puzzle

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKorfAll solves all 100 instances of Korf's table, checking every
// length and the node counts given for ids 1-50, and prints the totals. It
// takes minutes, so it runs only with TREELB_KORF_ALL=1:
//
//	TREELB_KORF_ALL=1 go test -run TestKorfAll -v -timeout 0 ./apps/fifteen/puzzle
func TestKorfAll(t *testing.T) {
	if os.Getenv("TREELB_KORF_ALL") != "1" {
		t.Skip("set TREELB_KORF_ALL=1 to solve all 100 instances (minutes)")
	}
	var total, total50 int64
	var elapsed, elapsed50, cpu time.Duration
	for _, in := range loadKorf(t) {
		start, cpuStart := time.Now(), cpuTime(t)
		res, err := Solve(in.State)
		d, c := time.Since(start), cpuTime(t)-cpuStart
		if err != nil {
			t.Fatalf("id %d: %v", in.ID, err)
		}
		if res.Length != in.Optimal {
			t.Errorf("id %d: length %d, want %d", in.ID, res.Length, in.Optimal)
		}
		if in.Nodes != 0 && res.Nodes != in.Nodes {
			t.Errorf("id %d: nodes %d, want %d", in.ID, res.Nodes, in.Nodes)
		}
		checkSolution(t, in.State, res.Moves, in.Optimal)
		total += res.Nodes
		elapsed += d
		cpu += c
		if in.Nodes != 0 {
			total50 += res.Nodes
			elapsed50 += d
		}
		t.Logf("id %3d length %2d nodes %13d %8.2fs %6.1f Mnodes/s (CPU %.2fs)", in.ID, res.Length, res.Nodes,
			d.Seconds(), float64(res.Nodes)/d.Seconds()/1e6, c.Seconds())
	}
	t.Logf("ids 1-50:  %d nodes in %.1fs, %.1f Mnodes/s", total50, elapsed50.Seconds(), float64(total50)/elapsed50.Seconds()/1e6)
	t.Logf("all 100:   %d nodes in %.1fs, %.1f Mnodes/s", total, elapsed.Seconds(), float64(total)/elapsed.Seconds()/1e6)
	t.Logf("CPU time:  %.1fs, %.1f Mnodes/s per CPU second; load average now %s", cpu.Seconds(),
		float64(total)/cpu.Seconds()/1e6, loadAverage())
}

// cpuTime returns the user and system CPU time of the process so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage returns the first three fields of /proc/loadavg, or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
