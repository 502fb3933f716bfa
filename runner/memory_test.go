package runner

import "testing"

// TestSoftMemoryLimit: nine tenths of the tightest limit but the machine's
// available memory; none when only that binds, and none when GOMEMLIMIT is
// set (the user's wins).
func TestSoftMemoryLimit(t *testing.T) {
	unset := func(string) string { return "" }
	limits := []MemoryLimit{{Bytes: 1000, Source: "MemAvailable"}, {Bytes: 8000, Source: "cgroup memory.max"}, {Bytes: 5000, Source: "RLIMIT_AS (ulimit -v)"}}
	if n, ok := softMemoryLimit(limits, unset); !ok || n != 4500 {
		t.Errorf("softMemoryLimit = %d, %v; want 4500 (nine tenths of RLIMIT_AS)", n, ok)
	}
	if n, ok := softMemoryLimit(limits[:1], unset); ok {
		t.Errorf("available memory alone: softMemoryLimit = %d, want none", n)
	}
	user := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "2GiB"
		}
		return ""
	}
	if n, ok := softMemoryLimit(limits, user); ok {
		t.Errorf("GOMEMLIMIT set: softMemoryLimit = %d, want none", n)
	}
}
