package reliability

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestSimReportSameEverywhere: every command's --json output in the
// simulated world carries the simulator's report under the same keys with
// the same meaning, which campaign CSVs put in one column whatever the
// app: virtual_seconds is the virtual time and sim_seconds the simulator's
// own real time. The machine's node cost is set to a second, so the
// virtual time is at least the nodes in seconds while the real time is
// under the test's own wall time. (knapsack and integrate once wrote the
// virtual time as sim_seconds, shadowing the report's field.)
func TestSimReportSameEverywhere(t *testing.T) {
	bin := build(t)
	for _, v := range invocations {
		if !v.worlds {
			continue
		}
		t.Run(v.String(), func(t *testing.T) {
			args := append(append(append([]string(nil), v.sub...), "--json", "--world", "sim", "--np", "3", "--node-ns", "1e9"), v.args...)
			start := time.Now()
			res := run(t, t.TempDir(), nil, filepath.Join(bin, v.cmd), args...)
			wall := time.Since(start).Seconds()
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			var out struct {
				Nodes          int64
				VirtualSeconds *float64 `json:"virtual_seconds"`
				SimSeconds     *float64 `json:"sim_seconds"`
				Events         int64
			}
			if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
				t.Fatalf("%v:\n%s", err, res.stdout)
			}
			if out.VirtualSeconds == nil || out.SimSeconds == nil || out.Events <= 0 || out.Nodes <= 0 {
				t.Fatalf("no simulator's report (virtual_seconds, sim_seconds, events, nodes):\n%s", res.stdout)
			}
			if *out.VirtualSeconds < float64(out.Nodes)/3 {
				t.Errorf("virtual_seconds %g for %d nodes of a second each on 3 ranks", *out.VirtualSeconds, out.Nodes)
			}
			if *out.SimSeconds <= 0 || *out.SimSeconds > wall {
				t.Errorf("sim_seconds %g is not the simulator's real time (the run took %.3f s)", *out.SimSeconds, wall)
			}
		})
	}
}
