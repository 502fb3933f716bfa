package runner

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// heapGoal is the Go runtime's heap goal for a GOGC of pct
// (runtime/mgcpacer.go, commit): the live heap grown by pct percent of
// itself and the scanned stacks and globals, at least 4 MiB·pct/100.
func heapGoal(pct int, live, scan uint64) uint64 {
	return max(gcFloorPerRank*uint64(pct)/100, live+(live+scan)*uint64(pct)/100)
}

func TestGCFloorBytes(t *testing.T) {
	for _, c := range []struct {
		n, procs int
		want     uint64
	}{{1, 16, 0}, {16, 1, 0}, {2, 2, 8 << 20}, {16, 16, 64 << 20}, {65536, 16, 64 << 20}, {4, 16, 16 << 20}} {
		if got := gcFloorBytes(c.n, c.procs); got != c.want {
			t.Errorf("gcFloorBytes(%d ranks, %d procs) = %d, want %d", c.n, c.procs, got, c.want)
		}
	}
}

// TestGCPercentFor checks the GOGC chosen against the runtime's goal: the
// goal is the floor where the base GOGC's goal is below it, and the base's
// goal (never less) where it is not.
func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		floor, live, scan uint64
		base              int
	}{
		{64 * mib, 0, 0, 100},          // before the first collection
		{64 * mib, mib / 2, 0, 100},    // a search's heap: the minimum sets the goal
		{64 * mib, 3 * mib, mib, 100},  // the minimum still
		{64 * mib, 20 * mib, mib, 100}, // the proportional goal
		{64 * mib, 40 * mib, 0, 100},   // the base's goal is above the floor
		{64 * mib, 200 * mib, 0, 100},  // a large live heap
		{64 * mib, mib, 0, 400},        // a larger base
		{8 * mib, 5 * mib, 0, 50},
	} {
		pct := gcPercentFor(c.floor, c.live, c.scan, c.base)
		if pct < c.base {
			t.Errorf("%+v: GOGC %d below the base", c, pct)
		}
		got, base := heapGoal(pct, c.live, c.scan), heapGoal(c.base, c.live, c.scan)
		want := max(c.floor, base)
		// The integer division leaves the goal up to a percent of the
		// live heap and scan (and 4 MiB/100) under the floor.
		slack := (c.live+c.scan)/100 + gcFloorPerRank/100 + 1
		if got > want || got+slack < want {
			t.Errorf("%+v: GOGC %d gives the goal %d, want %d (the floor %d, the base's goal %d)", c, pct, got, want, c.floor, base)
		}
	}
	if got := gcPercentFor(64<<20, 1<<20, 0, -1); got != -1 {
		t.Errorf("GOGC=off: got %d, want -1 (collection stays off)", got)
	}
	if got := gcPercentFor(0, 1<<20, 0, 100); got != 100 {
		t.Errorf("no floor: got %d, want 100", got)
	}
}

// churn allocates n bytes of garbage in 64-KiB pieces and returns the
// collections that ran meanwhile.
func churn(n int) uint32 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.NumGC
	var keep []byte
	for range n / (64 << 10) {
		keep = make([]byte, 64<<10)
		keep[0] = 1
	}
	runtime.ReadMemStats(&ms)
	return ms.NumGC - before
}

// TestGCFloor churns the same garbage without and with a floor of 64 MiB:
// with the runtime's 4-MiB goal a collection comes every few MiB, with the
// floor every 64 MiB; stop restores GOGC. A GOGC of the user's disables
// the floor. Not parallel: the collections are the process's.
func TestGCFloor(t *testing.T) {
	none := func(string) string { return "" }
	defer debug.SetGCPercent(debug.SetGCPercent(100)) // whatever GOGC the tests run with
	runtime.GC()
	plain := churn(512 << 20)
	stop := startGCFloor(64<<20, none)
	floored := churn(512 << 20)
	stop()
	t.Logf("512 MiB of garbage: %d collections at GOGC=100, %d with a floor of 64 MiB", plain, floored)
	// Alone, the runtime's goal gives 70–90 collections here; after the
	// package's other tests have left a live heap of some MiB, about 20.
	// With the floor, 512/64 = 8, and 1–9 alone; on a loaded machine (the
	// other packages' tests beside it) the finalizer that retunes GOGC
	// after each collection runs late, and a review saw 20: at most half
	// as many either way, and at most four times 8.
	if floored*2 > plain || floored > 32 || floored == 0 {
		t.Errorf("collections with the floor %d, without %d: want at most half as many, and some, but not over 32", floored, plain)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC after stop: %d, want 100", got)
	}

	stop = startGCFloor(64<<20, func(k string) string { return map[string]string{"GOGC": "100"}[k] })
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set by the user: the floor changed GOGC to %d", got)
	}
	stop()
	stop = gcFloorFor(map[string]any{}, 16) // Execute's commands: no floor
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("without Main's metadata the floor changed GOGC to %d", got)
	}
	stop()
}
