package lbtest_test

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTreeApp: the test tree keeps lb.Task's promises in every mode
// (lbtest.TestApp), exhaustively in Count mode. Its nodes split only
// after they are expanded, so a fresh part can refuse to split: NoHalving.
func TestTreeApp(t *testing.T) {
	t.Run("count", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App { return lbtest.NewTree(3, 14, lbtest.Count) }, lbtest.AppOptions{Exhaustive: true, NoHalving: true, Result: lbtest.SameResult[lbtest.TreeResult](nil)})
	})
	t.Run("bound", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App { return lbtest.NewTree(3, 14, lbtest.Bound) }, lbtest.AppOptions{NoHalving: true,
			Result: lbtest.SameResult(func(w, p lbtest.TreeResult) bool { return w.Best == p.Best })})
	})
}

// TestRangeApp: so does the range, a Halver.
func TestRangeApp(t *testing.T) {
	lbtest.TestApp(t, func() lb.App { return lbtest.NewRange(100000) }, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult[int64](nil)})
}

// faulty is a range app with one fault, for TestCheckAppFinds.
type faulty struct {
	fault string
	n     uint64
	sum   uint64 // the result: the sum of the numbers worked
}

type faultyTask struct {
	app     *faulty
	lo, hi  uint64
	kept    bool // the part a split kept
	decoded bool // made by Unmarshal
}

func (a *faulty) Root() lb.Task { return &faultyTask{app: a, hi: a.n} }

func (a *faulty) Result() uint64 { return a.sum }

func (a *faulty) Combine(x, y uint64) uint64 {
	if a.fault == "combine" {
		return max(x, y) // not a sum
	}
	return x + y
}

func (a *faulty) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) != 16 {
		return nil, errors.New("faulty: bad task")
	}
	t := &faultyTask{app: a, lo: binary.LittleEndian.Uint64(b), hi: binary.LittleEndian.Uint64(b[8:]), decoded: true}
	if a.fault == "decode" && t.hi-t.lo > 2 {
		t.hi-- // loses a node in transit
	}
	return t, nil
}

func (t *faultyTask) Work(budget int64) int64 {
	if t.app.fault == "stall" && t.hi-t.lo == 3 {
		return 0 // no progress, not empty
	}
	n := min(uint64(budget), t.hi-t.lo)
	for i := t.lo; i < t.lo+n; i++ {
		t.app.sum += i
	}
	t.lo += n
	if t.app.fault == "overshoot" && n > 0 && budget == 1 {
		return 2
	}
	if t.app.fault == "overshoot-split" && t.decoded && n > 0 && budget <= 4 {
		return budget + 5 // a piece overshoots its budget; the root never does
	}
	if t.app.fault == "undercount" && t.decoded && n > 0 && t.lo >= t.hi {
		return int64(n) - 1 // a decoded task does not count its last node
	}
	return int64(n)
}

func (t *faultyTask) Empty() bool { return t.lo >= t.hi }

func (t *faultyTask) split() (lo, mid, hi uint64, ok bool) {
	if t.hi-t.lo < 2 {
		return 0, 0, 0, false
	}
	return t.lo, t.lo + (t.hi-t.lo)/2, t.hi, true
}

func (t *faultyTask) Split() lb.Task {
	_, mid, hi, ok := t.split()
	if !ok || t.app.fault == "fresh" && t.lo == 0 && t.hi == t.app.n {
		return nil // "fresh": the root does not split
	}
	switch t.app.fault {
	case "overlap":
		return &faultyTask{app: t.app, lo: mid, hi: hi} // keeps it all
	case "lossy":
		t.hi = mid - 1 // drops a node
		if t.hi < t.lo {
			t.hi = t.lo
		}
		return &faultyTask{app: t.app, lo: mid, hi: hi}
	}
	if t.app.fault == "twice" {
		t.app.sum += mid // counts a number at the split that the piece counts again
	}
	t.hi, t.kept = mid, true
	return &faultyTask{app: t.app, lo: mid, hi: hi}
}

func (t *faultyTask) Halve(give bool) bool {
	_, mid, _, ok := t.split()
	if !ok {
		return false
	}
	if give != (t.app.fault == "halve") {
		t.lo = mid
	} else {
		t.hi = mid
	}
	return true
}

func (t *faultyTask) Reroot() { t.lo, t.hi = 0, t.app.n }

func (t *faultyTask) AppendBinary(b []byte) ([]byte, error) {
	if t.app.fault == "append" {
		b = nil // forgets what it was given
	}
	hi := t.hi
	if t.app.fault == "kept" && t.kept && hi-t.lo > 1 {
		hi-- // the part a split kept loses a node in transit (a node it owes, say)
	}
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, t.lo), hi), nil
}

// TestCheckAppFinds: CheckApp finds each fault of an app that breaks a
// promise of lb.Task, and none in the same app without a fault.
func TestCheckAppFinds(t *testing.T) {
	for fault, want := range map[string]string{
		"":           "",
		"overlap":    "split",
		"lossy":      "split",
		"decode":     "encoding",
		"undercount": "encoding: step 0: the decoded task works",
		"halve":      "halve",
		"append":     "did not append",
		"overshoot":  "Work(1) returned 2",
		// After a split too (it was checked on unsplit roots alone).
		"overshoot-split": "of a split task returned",
		"stall":           "expanded nothing",
		"fresh":           "halving: Split of a fresh part",
		"kept":            "split: seed",
		"combine":         "split: seed 0, 7 splits: the results of the 9 apps that searched the parts combine to 3901677, the root's search alone gives 12497500",
		"twice":           "halving: the 64 parts of the halved root: the results",
	} {
		err := lbtest.CheckApp(func() lb.App { return &faulty{fault: fault, n: 5000} }, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult[uint64](nil)})
		switch {
		case want == "" && err != nil:
			t.Errorf("no fault: %v", err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("fault %s: %v, want an error about %q", fault, err, want)
		}
	}
}
