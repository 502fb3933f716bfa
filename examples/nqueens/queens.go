package main

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/treelb/treelb/skeleton"
)

// board is a node of the N-queens tree: queens on the first row rows, one
// a row, none attacking another; cols, left and right are the squares of
// the next row that they attack along columns and the two diagonals.
type board struct {
	row               int
	cols, left, right uint32
}

// queens is the tree of the n-queens problem, for package skeleton: its
// root is the empty board, and the children of a board are the boards
// with one more queen on a free square of the next row, from left to
// right: Children makes them all at once (skeleton.Brancher, the fast
// path), Child one at a time (the cursor being the column after the
// queen's).
type queens struct{ n int }

// maxN is the largest board: the masks hold a row in 32 bits, and larger
// boards take hours on one core anyway.
const maxN = 20

func (q *queens) Root() board { return board{} }

func (q *queens) Child(b board, c int) (board, int, bool) {
	if b.row == q.n {
		return board{}, 0, false
	}
	free := ^(b.cols | b.left | b.right) & (1<<q.n - 1) &^ (1<<c - 1)
	if free == 0 {
		return board{}, 0, false
	}
	col := bits.TrailingZeros32(free)
	m := uint32(1) << col
	return board{b.row + 1, b.cols | m, (b.left | m) << 1 & (1<<q.n - 1), (b.right | m) >> 1}, col + 1, true
}

func (q *queens) Children(b board, buf []board) []board {
	if b.row == q.n {
		return buf
	}
	for free := ^(b.cols | b.left | b.right) & (1<<q.n - 1); free != 0; free &= free - 1 {
		m := free & -free
		buf = append(buf, board{b.row + 1, b.cols | m, (b.left | m) << 1 & (1<<q.n - 1), (b.right | m) >> 1})
	}
	return buf
}

func (q *queens) AppendNode(dst []byte, b board) []byte {
	dst = append(dst, byte(b.row))
	dst = binary.LittleEndian.AppendUint32(dst, b.cols)
	dst = binary.LittleEndian.AppendUint32(dst, b.left)
	return binary.LittleEndian.AppendUint32(dst, b.right)
}

func (q *queens) DecodeNode(src []byte) (board, []byte, error) {
	if len(src) < 13 || int(src[0]) > q.n {
		return board{}, nil, errors.New("nqueens: a malformed board")
	}
	le := binary.LittleEndian
	b := board{int(src[0]), le.Uint32(src[1:]), le.Uint32(src[5:]), le.Uint32(src[9:])}
	if bits.OnesCount32(b.cols) != b.row || b.cols>>q.n != 0 || b.left>>q.n != 0 || b.right>>q.n != 0 {
		return board{}, nil, errors.New("nqueens: a board that no search reaches")
	}
	return b, src[13:], nil
}

// count is the search of the n-queens solutions: an enumeration that adds
// 1 for every full board (Fold: Value and Combine in one call a node).
func count(n int) *skeleton.Enumeration[board, int64] {
	return &skeleton.Enumeration[board, int64]{
		Space: &queens{n},
		Fold: func(acc int64, b board) int64 {
			if b.row == n {
				acc++
			}
			return acc
		},
		Combine: func(x, y int64) int64 { return x + y },
	}
}
