package skeleton_test

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/skeleton"
)

// queen is a node of the N-queens tree: the first row queens placed, one
// a row, on no attacked square; cols, d1, d2 the attacked columns and
// diagonals of the next row; score the sum of (row+1)·column of the queens
// (weightedQueens' objective).
type queen struct {
	row          int
	cols, d1, d2 uint32
	score        int32
}

// queens is the Space of the N-queens tree.
type queens struct{ n int }

func (q *queens) Root() queen { return queen{} }

func (q *queens) Child(s queen, c int) (queen, int, bool) {
	if s.row == q.n {
		return queen{}, 0, false
	}
	free := ^(s.cols | s.d1 | s.d2) & (1<<q.n - 1) &^ (1<<c - 1)
	if free == 0 {
		return queen{}, 0, false
	}
	col := bits.TrailingZeros32(free)
	b := uint32(1) << col
	return queen{s.row + 1, s.cols | b, (s.d1 | b) << 1, (s.d2 | b) >> 1, s.score + int32((s.row+1)*col)}, col + 1, true
}

// Children appends the children of s, in Child's order (skeleton.Brancher).
func (q *queens) Children(s queen, buf []queen) []queen {
	if s.row == q.n {
		return buf
	}
	for free := ^(s.cols | s.d1 | s.d2) & (1<<q.n - 1); free != 0; free &= free - 1 {
		col := bits.TrailingZeros32(free)
		b := uint32(1) << col
		buf = append(buf, queen{s.row + 1, s.cols | b, (s.d1 | b) << 1, (s.d2 | b) >> 1, s.score + int32((s.row+1)*col)})
	}
	return buf
}

func (q *queens) AppendNode(b []byte, s queen) []byte {
	b = append(b, byte(s.row))
	b = binary.LittleEndian.AppendUint32(b, s.cols)
	b = binary.LittleEndian.AppendUint32(b, s.d1)
	b = binary.LittleEndian.AppendUint32(b, s.d2)
	return binary.LittleEndian.AppendUint32(b, uint32(s.score))
}

func (q *queens) DecodeNode(b []byte) (queen, []byte, error) {
	if len(b) < 17 || int(b[0]) > q.n {
		return queen{}, nil, errors.New("queens: a bad node")
	}
	le := binary.LittleEndian
	return queen{int(b[0]), le.Uint32(b[1:]), le.Uint32(b[5:]), le.Uint32(b[9:]), int32(le.Uint32(b[13:]))}, b[17:], nil
}

// countQueens is the skeleton's N-queens counter: the solutions are the
// nodes of row n.
func countQueens(n int) *skeleton.Enumeration[queen, int64] {
	return &skeleton.Enumeration[queen, int64]{
		Space: &queens{n},
		Value: func(s queen) int64 {
			if s.row == n {
				return 1
			}
			return 0
		},
		Combine: func(a, b int64) int64 { return a + b },
	}
}

// handQueens is the same search as countQueens written as an lb.Task by
// hand, as an app without the skeleton would: a stack of frames, each the
// free columns of its row still to try. Its Split gives away half of the
// free columns of the shallowest frame with two or more.
type handQueens struct {
	n            int
	nodes, count int64
}

type handFrame struct {
	row          int
	cols, d1, d2 uint32
	free         uint32
}

type handTask struct {
	a     *handQueens
	root  bool
	stack []handFrame
}

func (a *handQueens) Root() lb.Task { return &handTask{a: a, root: true} }

func (a *handQueens) frame(row int, cols, d1, d2 uint32) handFrame {
	f := handFrame{row: row, cols: cols, d1: d1, d2: d2}
	if row < a.n {
		f.free = ^(cols | d1 | d2) & (1<<a.n - 1)
	}
	return f
}

func (t *handTask) Work(budget int64) int64 {
	a := t.a
	var n int64
	if t.root && budget > 0 {
		t.root = false
		n++
		if a.n == 0 {
			a.count++
		} else {
			t.stack = append(t.stack, a.frame(0, 0, 0, 0))
		}
	}
	for n < budget && len(t.stack) > 0 {
		f := &t.stack[len(t.stack)-1]
		if f.free == 0 {
			t.stack = t.stack[:len(t.stack)-1]
			continue
		}
		b := f.free & -f.free
		f.free &^= b
		n++
		if f.row+1 == a.n {
			a.count++
			continue
		}
		t.stack = append(t.stack, a.frame(f.row+1, f.cols|b, (f.d1|b)<<1, (f.d2|b)>>1))
	}
	a.nodes += n
	return n
}

func (t *handTask) Empty() bool {
	for len(t.stack) > 0 && t.stack[len(t.stack)-1].free == 0 {
		t.stack = t.stack[:len(t.stack)-1]
	}
	return !t.root && len(t.stack) == 0
}

func (t *handTask) Split() lb.Task {
	for i := range t.stack {
		f := &t.stack[i]
		if k := bits.OnesCount32(f.free); k >= 2 {
			give := f.free
			for range (k + 1) / 2 {
				give &= give - 1 // keep the lowest ⌈k/2⌉
			}
			f.free &^= give
			p := *f
			p.free = give
			return &handTask{a: t.a, stack: []handFrame{p}}
		}
	}
	return nil
}

func (t *handTask) AppendBinary(b []byte) ([]byte, error) {
	if t.root {
		return append(b, 1), nil
	}
	b = append(b, 0)
	for _, f := range t.stack {
		b = append(b, byte(f.row))
		for _, v := range [...]uint32{f.cols, f.d1, f.d2, f.free} {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	return b, nil
}

func (a *handQueens) Unmarshal(b []byte) (lb.Task, error) {
	if len(b) < 1 || (len(b)-1)%17 != 0 {
		return nil, errors.New("queens: a bad task")
	}
	t := &handTask{a: a, root: b[0] == 1}
	le := binary.LittleEndian
	for b = b[1:]; len(b) > 0; b = b[17:] {
		t.stack = append(t.stack, handFrame{int(b[0]), le.Uint32(b[1:]), le.Uint32(b[5:]), le.Uint32(b[9:]), le.Uint32(b[13:])})
	}
	return t, nil
}

// board is the node of the same N-queens tree without weightedQueens'
// score: the state that handQueens keeps, as examples/nqueens has it.
type board struct {
	row          int
	cols, d1, d2 uint32
}

// boards is the Space of the N-queens tree of boards, with Children
// (skeleton.Brancher).
type boards struct{ n int }

func (q *boards) Root() board { return board{} }

func (q *boards) Child(s board, c int) (board, int, bool) {
	if s.row == q.n {
		return board{}, 0, false
	}
	free := ^(s.cols | s.d1 | s.d2) & (1<<q.n - 1) &^ (1<<c - 1)
	if free == 0 {
		return board{}, 0, false
	}
	col := bits.TrailingZeros32(free)
	b := uint32(1) << col
	return board{s.row + 1, s.cols | b, (s.d1 | b) << 1, (s.d2 | b) >> 1}, col + 1, true
}

func (q *boards) Children(s board, buf []board) []board {
	if s.row == q.n {
		return buf
	}
	for free := ^(s.cols | s.d1 | s.d2) & (1<<q.n - 1); free != 0; free &= free - 1 {
		b := free & -free
		buf = append(buf, board{s.row + 1, s.cols | b, (s.d1 | b) << 1, (s.d2 | b) >> 1})
	}
	return buf
}

func (q *boards) AppendNode(b []byte, s board) []byte {
	b = append(b, byte(s.row))
	b = binary.LittleEndian.AppendUint32(b, s.cols)
	b = binary.LittleEndian.AppendUint32(b, s.d1)
	return binary.LittleEndian.AppendUint32(b, s.d2)
}

func (q *boards) DecodeNode(b []byte) (board, []byte, error) {
	if len(b) < 13 || int(b[0]) > q.n {
		return board{}, nil, errors.New("queens: a bad board")
	}
	le := binary.LittleEndian
	return board{int(b[0]), le.Uint32(b[1:]), le.Uint32(b[5:]), le.Uint32(b[9:])}, b[13:], nil
}

// countBoards is countQueens over boards.
func countBoards(n int) *skeleton.Enumeration[board, int64] {
	return &skeleton.Enumeration[board, int64]{
		Space: &boards{n},
		Value: func(s board) int64 {
			if s.row == n {
				return 1
			}
			return 0
		},
		Combine: func(a, b int64) int64 { return a + b },
	}
}

// foldBoards is countBoards with a Fold instead of Value.
func foldBoards(n int) *skeleton.Enumeration[board, int64] {
	return &skeleton.Enumeration[board, int64]{
		Space: &boards{n},
		Fold: func(acc int64, s board) int64 {
			if s.row == n {
				acc++
			}
			return acc
		},
		Combine: func(a, b int64) int64 { return a + b },
	}
}
