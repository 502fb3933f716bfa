package runner

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The embedded world's ranks share one heap, and the Go runtime sizes its
// heap goal for the process: at least 4 MiB (GOGC=100), and twice the live
// heap. A search's live heap is small, so that goal is the 4 MiB floor,
// and P ranks that steal allocate P times as fast as one: on 16 cores
// (issue 22, docs/scaling.md) UTS T3L at P = 16 collected 143 times in
// 0.38 s, and ran 1.33 times slower than with GOGC=800. Each MPI process
// has one rank and a heap of its own, which is why mpirun did not lose the
// time. So while an embedded world of k busy ranks runs, the heap goal is
// kept at 4 MiB per busy rank or more: what k processes of one rank would
// each get.

// gcFloorPerRank is the heap goal a busy rank adds: the Go runtime's own
// minimum at GOGC=100.
const gcFloorPerRank = 4 << 20

// gcFloorBytes returns the heap goal to keep for n ranks on gomaxprocs
// threads: gcFloorPerRank for each rank that can run at once, 0 (no floor)
// for one.
func gcFloorBytes(n, gomaxprocs int) uint64 {
	k := min(n, gomaxprocs)
	if k <= 1 {
		return 0
	}
	return uint64(k) * gcFloorPerRank
}

// gcPercentFor returns the GOGC value that puts the heap goal at floor,
// given the live heap after the last collection and the stacks and globals
// it scanned, never below base (the GOGC in force otherwise). The runtime's
// goal is the larger of live + (live+scan)·GOGC/100 and a minimum of
// 4 MiB·GOGC/100; the value returned is the smaller of the two GOGCs that
// make one of them floor, so that neither exceeds it.
func gcPercentFor(floor, live, scan uint64, base int) int {
	if base < 0 || floor == 0 {
		return base // collection off, or no floor
	}
	pct := floor * 100 / gcFloorPerRank // the minimum at floor
	if live < floor {
		pct = min(pct, (floor-live)*100/max(live+scan, 1)) // the proportional goal at floor
	} else {
		pct = 0
	}
	return max(base, int(min(pct, 1<<30)))
}

// gcFloor keeps the heap goal at floor bytes or more while it runs, by
// setting GOGC after every collection from the live heap that collection
// found (a finalizer runs once per cycle). It exists between startGCFloor
// and its stop function, for one world's run.
type gcFloor struct {
	floor   uint64
	base    int
	mu      sync.Mutex // tune against stop
	stopped bool
	samples []metrics.Sample
}

// gcSentinel is an object nothing refers to: its finalizer runs after the
// first collection that finds it unreachable. It is larger than the
// runtime's tiny objects, whose finalizers may never run.
type gcSentinel struct{ _ [32]byte }

// startGCFloor starts keeping the heap goal at floor bytes or more and
// returns the function that stops it and restores GOGC. It does nothing
// with a floor of 0 or where the user set GOGC: their setting wins.
func startGCFloor(floor uint64, getenv func(string) string) (stop func()) {
	if floor == 0 || getenv("GOGC") != "" {
		return func() {}
	}
	base := debug.SetGCPercent(100) // GOGC now: the runtime has no getter
	debug.SetGCPercent(base)
	f := &gcFloor{floor: floor, base: base, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	f.tune()
	f.arm()
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.stopped = true
		debug.SetGCPercent(f.base)
	}
}

// tune sets GOGC from the last collection's live heap.
func (f *gcFloor) tune() {
	metrics.Read(f.samples)
	var v [3]uint64
	for i, s := range f.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	debug.SetGCPercent(gcPercentFor(f.floor, v[0], v[1]+v[2], f.base))
}

// arm makes a sentinel whose finalizer, after the next collection, tunes
// GOGC and arms again, until stop.
func (f *gcFloor) arm() {
	s := new(gcSentinel)
	runtime.SetFinalizer(s, func(*gcSentinel) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.stopped {
			f.tune()
			f.arm()
		}
	})
}

// metaProcess is the key in cli.App.Metadata under which Main says that
// the command has the process to itself, so that it may tune the Go
// runtime for its embedded world: keep the heap goal (startGCFloor) and
// advise a large world's heap for huge pages (hugeHeapFor). Commands run in
// process by Execute (tests, many at once) leave the runtime alone.
const metaProcess = "treelb.process"

// gcFloorFor starts the floor of an embedded world of n ranks when Main
// said the process is the command's (metaProcess).
func gcFloorFor(meta map[string]any, n int) (stop func()) {
	if on, _ := meta[metaProcess].(bool); !on {
		return func() {}
	}
	return startGCFloor(gcFloorBytes(n, runtime.GOMAXPROCS(0)), os.Getenv)
}
