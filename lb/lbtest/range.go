package lbtest

import (
	"encoding/binary"
	"errors"

	"github.com/treelb/treelb/lb"
)

// Range is the simplest tree-shaped computation: the nodes 0..N-1 of a
// range, one node per unit of work, split in halves, so that it splits as
// often as it holds nodes. Its result is the nodes a rank worked; it
// implements lb.Reducer[int64] and lb.Halver. Make one per rank with
// NewRange; it is not safe for concurrent use.
type Range struct {
	n     uint64
	nodes int64
}

// NewRange returns one rank's view of the range of n nodes.
func NewRange(n uint64) *Range { return &Range{n: n} }

type rangeTask struct {
	app    *Range
	lo, hi uint64
}

// Root returns the whole range.
func (a *Range) Root() lb.Task { return &rangeTask{a, 0, a.n} }

// Unmarshal decodes a task of any rank's Range.
func (a *Range) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) != 16 {
		return nil, errors.New("range: bad task")
	}
	lo, hi := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
	if lo > hi || hi > a.n {
		return nil, errors.New("range: a task outside the range")
	}
	return &rangeTask{a, lo, hi}, nil
}

// Result is the nodes this rank worked.
func (a *Range) Result() int64 { return a.nodes }

// Combine adds.
func (a *Range) Combine(x, y int64) int64 { return x + y }

func (t *rangeTask) Work(budget int64) int64 {
	n := min(uint64(max(budget, 0)), t.hi-t.lo)
	t.lo += n
	t.app.nodes += int64(n)
	return int64(n)
}

func (t *rangeTask) Empty() bool { return t.lo >= t.hi }

func (t *rangeTask) Split() lb.Task {
	if t.hi-t.lo < 2 {
		return nil
	}
	mid := t.lo + (t.hi-t.lo)/2
	o := &rangeTask{t.app, mid, t.hi}
	t.hi = mid
	return o
}

func (t *rangeTask) Halve(give bool) bool {
	if t.hi-t.lo < 2 {
		return false
	}
	mid := t.lo + (t.hi-t.lo)/2
	if give {
		t.lo = mid
	} else {
		t.hi = mid
	}
	return true
}

func (t *rangeTask) Reroot() { t.lo, t.hi = 0, t.app.n }

func (t *rangeTask) AppendBinary(b []byte) ([]byte, error) {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(b, t.lo), t.hi), nil
}
