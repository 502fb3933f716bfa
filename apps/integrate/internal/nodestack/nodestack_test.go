package nodestack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// node is a node of the complete binary tree of the tests: its level and
// its index among the nodes of that level.
type node struct{ level, index uint32 }

func (n node) Level() int { return int(n.level) }

func (n node) AppendBinary(b []byte) []byte {
	return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, n.level), n.index)
}

// nextNode decodes a node; it refuses a level above maxLevel or an index
// outside the level, as an app's decoder refuses what it never encodes.
func nextNode(b []byte) (node, int, error) {
	if len(b) < 8 {
		return node{}, 0, errors.New("short node")
	}
	n := node{binary.BigEndian.Uint32(b), binary.BigEndian.Uint32(b[4:])}
	if n.level > maxLevel || uint64(n.index) >= 1<<n.level {
		return node{}, 0, fmt.Errorf("no node %+v", n)
	}
	return n, 8, nil
}

const maxLevel = 12

// tree is an lb.App of the complete binary tree of depth maxLevel, worked
// by Task with an Expand that visits it depth first, left child first.
type tree struct{ nodes int64 }

func (a *tree) expand(open []node, budget int64) ([]node, int64) {
	var n int64
	for n < budget && len(open) > 0 {
		x := open[len(open)-1]
		open = open[:len(open)-1]
		n++
		if x.level < maxLevel {
			open = append(open, node{x.level + 1, 2*x.index + 1}, node{x.level + 1, 2 * x.index})
		}
	}
	a.nodes += n
	return open, n
}

func (a *tree) Root() lb.Task {
	return NewTask(Stack[node]{Open: []node{{0, 0}}}, a.expand)
}

func (a *tree) Unmarshal(b []byte) (lb.Task, error) {
	s, err := Decode(b, 8, nextNode)
	if err != nil {
		return nil, err
	}
	return NewTask(s, a.expand), nil
}

// TestTaskKeepsPromises: a Task keeps lb.Task's promises (lbtest.TestApp),
// exhaustively: its parts cover the tree whichever way it is split, moved
// and worked. A lone node does not split before it is expanded:
// NoHalving.
func TestTaskKeepsPromises(t *testing.T) {
	lbtest.TestApp(t, func() lb.App { return &tree{} }, lbtest.AppOptions{Exhaustive: true, NoHalving: true})
}

// TestDrain: the sequential solver expands every node of the tree once.
func TestDrain(t *testing.T) {
	a := &tree{}
	if n, want := Drain(a.Root()), int64(1)<<(maxLevel+1)-1; n != want || a.nodes != want {
		t.Fatalf("Drain: %d nodes (the app counted %d), the tree has %d", n, a.nodes, want)
	}
}

// TestSplitOff: the shallowest open node goes, the others stay in order,
// and a stack of fewer than two nodes does not split.
func TestSplitOff(t *testing.T) {
	var s Stack[node]
	if !s.Empty() || s.Level() != -1 {
		t.Fatalf("zero stack: Empty %v, Level %d", s.Empty(), s.Level())
	}
	if _, ok := s.SplitOff(); ok {
		t.Fatal("an empty stack split")
	}
	s.Open = []node{{3, 1}}
	if _, ok := s.SplitOff(); ok || len(s.Open) != 1 {
		t.Fatalf("a lone node split: %v", s.Open)
	}
	s.Open = []node{{2, 1}, {3, 5}, {4, 9}, {4, 8}}
	if s.Level() != 2 {
		t.Fatalf("Level %d, want 2 (the shallowest)", s.Level())
	}
	piece, ok := s.SplitOff()
	if !ok || !reflect.DeepEqual(piece.Open, []node{{2, 1}}) || !reflect.DeepEqual(s.Open, []node{{3, 5}, {4, 9}, {4, 8}}) {
		t.Fatalf("SplitOff: piece %v (%v), left %v", piece.Open, ok, s.Open)
	}
	if s.Level() != 3 || piece.Level() != 2 {
		t.Fatalf("levels after the split: %d and the piece's %d", s.Level(), piece.Level())
	}
	task := NewTask(Stack[node]{Open: []node{{0, 0}}}, (&tree{}).expand)
	if task.Split() != nil {
		t.Fatal("the root split before it was expanded")
	}
	task.Work(1) // the root's two children are open
	p := task.Split()
	if p == nil || p.(*Task[node]).Level() != 1 || task.Level() != 1 || len(task.Open) != 1 {
		t.Fatalf("after one node: piece %v, left %v", p, task.Open)
	}
}

// TestEncoding: a stack encodes as its count and its nodes, shallowest
// first, and decodes to itself.
func TestEncoding(t *testing.T) {
	s := Stack[node]{Open: []node{{1, 1}, {2, 0}, {5, 31}}}
	b, err := s.AppendBinary([]byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte("x"), 3)
	for _, n := range s.Open {
		want = n.AppendBinary(want)
	}
	if !reflect.DeepEqual(b, want) {
		t.Fatalf("encoding %x, want %x", b, want)
	}
	got, err := Decode(b[1:], 8, nextNode)
	if err != nil || !reflect.DeepEqual(got.Open, s.Open) {
		t.Fatalf("Decode: %v (%v), want %v", got.Open, err, s.Open)
	}
	empty, err := Decode([]byte{0}, 8, nextNode)
	if err != nil || !empty.Empty() {
		t.Fatalf("Decode of the empty stack: %v, %v", empty.Open, err)
	}
}

// TestDecodeRejects: malformed encodings are errors that wrap
// ErrMalformed, and a count larger than the bytes can hold allocates
// nothing first.
func TestDecodeRejects(t *testing.T) {
	one := node{1, 0}.AppendBinary(nil)
	for name, b := range map[string][]byte{
		"nothing":         nil,
		"bad varint":      {0x80},
		"padded count":    {0x80, 0x00},
		"count too large": append([]byte{2}, one...),
		"huge count":      binary.AppendUvarint(nil, 1<<62),
		"short node":      append([]byte{1}, one[:7]...),
		"trailing bytes":  append(append([]byte{1}, one...), 0),
		"bad node":        append([]byte{1}, node{1, 2}.AppendBinary(nil)...),
	} {
		if _, err := Decode(b, 8, nextNode); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
}

// FuzzDecode: Decode either fails or gives a stack whose encoding is the
// input.
func FuzzDecode(f *testing.F) {
	for _, s := range [][]node{nil, {{0, 0}}, {{1, 1}, {3, 6}}} {
		b, _ := (&Stack[node]{Open: s}).AppendBinary(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(b, 8, nextNode)
		if err != nil {
			return
		}
		again, _ := s.AppendBinary(nil)
		if !reflect.DeepEqual(again, b) {
			t.Fatalf("%x decodes and encodes to %x", b, again)
		}
	})
}
