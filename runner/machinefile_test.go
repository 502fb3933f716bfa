package runner

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
)

// TestReadMachineFiles: --machine FILE reads a regular file of a model,
// and refuses at once, with a usage error naming the file, what is no
// model file: /dev/zero (read without a limit, it filled the memory), a
// FIFO nobody writes (it waited for ever), a directory, a file over
// MaxMachineBytes.
func TestReadMachineFiles(t *testing.T) {
	dir, fifo := tempFIFO(t)
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", MaxMachineBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/dev/zero": "a character device, not a machine file",
		fifo:        "a named pipe (FIFO), not a machine file",
		dir:         "a directory, not a machine file",
		big:         "larger than the 1 MiB",
	} {
		start := time.Now()
		_, err := ReadMachine(path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--machine "+path) || exitCode(err) != 2 {
			t.Errorf("--machine %s: %v (exit %d), want a usage error naming the file and %q", path, err, exitCode(err), want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("--machine %s: refused after %v", path, d)
		}
	}
	good := filepath.Join(dir, "m.json")
	if err := os.WriteFile(good, []byte(`{"name": "m", "node_ns": 20, "latency_ns": 1500}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if m, err := ReadMachine(good); err != nil || m.NodeNS != 20 {
		t.Errorf("a model file: %+v, %v", m, err)
	}
}

// TestNodeNSFlagReplacesBusy: --node-ns sets the node's cost at every rank
// count. A calibrated machine file's busy_node_ns, which the simulator
// charges instead of node_ns from 2 ranks on, went on being charged under
// the flag: a parallel run's virtual time did not move while its work time
// and speedup did (found by a review of the simulator).
func TestNodeNSFlagReplacesBusy(t *testing.T) {
	file := lb.Machine{Name: "cal", NodeNS: 20, BusyNodeNS: 30, LatencyNS: 1500}
	cm := Common{sim: &simOptions{floats: map[string]float64{"node-ns": 1000}}}
	m, err := cm.overrides(file)
	if err != nil {
		t.Fatal(err)
	}
	if m.NodeNS != 1000 || m.BusyNodeNS != 0 {
		t.Errorf("--node-ns 1000 over a file of node_ns 20, busy_node_ns 30: node_ns %g, busy_node_ns %g; want 1000 and 0", m.NodeNS, m.BusyNodeNS)
	}
	cm.sim.floats = map[string]float64{"latency-ns": 10}
	if m, err = cm.overrides(file); err != nil || m.BusyNodeNS != 30 || m.NodeNS != 20 {
		t.Errorf("another flag: %+v, %v; want the file's node costs", m, err)
	}
}

// TestMachineFlagsNamed: a bad value of a machine parameter's flag is a
// usage error that names the flag as the user gave it (it read "lb:
// machine cluster: latency-ns -5: …", the model's name and no dashes).
func TestMachineFlagsNamed(t *testing.T) {
	file := lb.Machine{Name: "cal", NodeNS: 20, LatencyNS: 1500}
	for _, f := range machineFloats {
		for _, v := range []float64{-1, math.NaN(), math.Inf(1), 1e300} {
			cm := Common{sim: &simOptions{floats: map[string]float64{f.name: v}}}
			_, err := cm.overrides(file)
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), fmt.Sprintf("--%s %g: ", f.name, v)) {
				t.Errorf("--%s %g: %v; want a usage error naming the flag", f.name, v, err)
			}
		}
	}
	cm := Common{sim: &simOptions{floats: map[string]float64{"node-ns": 0}}}
	if _, err := cm.overrides(file); err == nil || !strings.HasPrefix(err.Error(), "--node-ns 0: ") {
		t.Errorf("--node-ns 0: %v", err)
	}
}
