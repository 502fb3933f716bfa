package knap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Search selects a branch-and-bound search.
type Search int

const (
	// Core is the expanding-core search of Pisinger's expknap, the default.
	Core Search = iota
	// HS is the Horowitz–Sahni search of seed 002.
	HS
	nSearches
)

var searchNames = [nSearches]string{"core", "hs"}

// String returns the search's name as ParseSearch reads it.
func (s Search) String() string {
	if s >= 0 && s < nSearches {
		return searchNames[s]
	}
	return fmt.Sprintf("Search(%d)", int(s))
}

// ParseSearch returns the search called name: "core" or "hs".
func ParseSearch(name string) (Search, error) {
	for s, n := range searchNames {
		if n == name {
			return Search(s), nil
		}
	}
	return 0, fmt.Errorf("knapsack: unknown search %q (want core or hs)", name)
}

// Task is a subproblem of one App's search, kept on an explicit depth-first
// stack so that it can work for a bounded number of nodes, resume, split
// and travel as bytes. It implements lb.Task. The zero value is not
// usable: tasks come from App.Root, Task.Split and App.Unmarshal. A Task is
// not safe for concurrent use, and it reads and raises its App's incumbent.
type Task struct {
	a      *App
	search Search
	// fresh says that the task has not worked since App.Root made it or
	// Split split it off a fresh task; its splits are then canonical (see
	// Task.Split).
	fresh bool

	// Core: frames 0..len(st)-1 from the root; those below base are the
	// path to the first frame this task owns.
	st   []cframe
	base int

	// HS
	h hsState
}

// Work expands up to budget nodes and returns how many it expanded; it
// returns early when the task is exhausted. Improvements raise the App's
// incumbent and best solution.
func (t *Task) Work(budget int64) int64 {
	t.fresh = false
	var nodes int64
	if t.search == Core {
		nodes = t.workCore(budget)
	} else {
		nodes = t.workHS(budget)
	}
	t.a.nodes += nodes
	return nodes
}

// Empty reports whether the task has no alternative left to try. It may
// report false for a task whose remaining alternatives will all be pruned.
func (t *Task) Empty() bool {
	if t.search == Core {
		return t.emptyCore()
	}
	return !t.h.have && len(t.h.rs) == 0 && t.h.owed == 0
}

// split is Split with a concrete result type; see app.go.
func (t *Task) split() *Task {
	var o *Task
	if t.search == Core {
		o = t.splitCore()
	} else {
		o = t.splitHS()
	}
	if o != nil {
		o.fresh = t.fresh
	}
	return o
}

// Task encodings start with a tag byte naming the search.
const (
	tagCore = 'C'
	tagHS   = 'H'
)

// AppendBinary appends the task's encoding to b: the search, the path
// from the root to the part the task owns, and that part. It implements
// encoding.BinaryAppender; App.Unmarshal decodes it on any rank of the same
// instance and search.
func (t *Task) AppendBinary(b []byte) ([]byte, error) {
	if t.search == Core {
		return t.appendCore(b), nil
	}
	return t.appendHS(b), nil
}

// decoder reads the varints of a task or result encoding.
type decoder struct {
	b   []byte
	err error
}

var errTruncated = errors.New("truncated")

// uint reads an unsigned varint at most max.
func (d *decoder) uint(max uint64, what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, k := binary.Uvarint(d.b)
	if k <= 0 {
		d.err = fmt.Errorf("%s: %w", what, errTruncated)
		return 0
	}
	d.b = d.b[k:]
	if v > max {
		d.err = fmt.Errorf("%s %d out of range 0..%d", what, v, max)
		return 0
	}
	return v
}

// int reads a signed varint (binary.AppendVarint's zig-zag encoding).
func (d *decoder) int(what string) int64 {
	u := d.uint(math.MaxUint64, what)
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a number of elements, each of which needs at least one more
// byte, so that garbage cannot make Unmarshal allocate much.
func (d *decoder) count(what string) int {
	return int(d.uint(min(uint64(len(d.b)), math.MaxInt32), what))
}
