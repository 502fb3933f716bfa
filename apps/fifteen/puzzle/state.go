package puzzle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Side is the length of a side of the board, and Size the number of cells.
const (
	Side = 4
	Size = Side * Side
)

// State is a board: State[p] is the tile at position p (row p/4, column p%4),
// 0 for the blank. The zero value is not a valid board; build one with
// Parse, FromInts or Goal, or check it with Validate.
type State [Size]uint8

// Goal returns the solved board: the blank at position 0 and tile i at
// position i.
func Goal() State {
	var s State
	for i := range s {
		s[i] = uint8(i)
	}
	return s
}

// ErrUnsolvable is the error, wrapped with the board, for a valid board
// that cannot reach the goal.
var ErrUnsolvable = errors.New("unsolvable: odd permutation parity")

// Parse reads a board from 16 decimal fields, tiles row by row with 0 for the
// blank. It returns an error naming the problem for a wrong number of fields,
// a field that is not a number, a tile out of 0..15 or a repeated tile. It
// does not test solvability (see Solvable).
func Parse(fields []string) (State, error) {
	s, err := parse(fields)
	if err != nil {
		return State{}, fmt.Errorf("puzzle: %w", err)
	}
	return s, nil
}

// FromInts builds a board from 16 tiles given row by row, 0 for the blank,
// with the same checks as Parse.
func FromInts(tiles []int) (State, error) {
	s, err := fromInts(tiles)
	if err != nil {
		return State{}, fmt.Errorf("puzzle: %w", err)
	}
	return s, nil
}

// Validate reports whether s holds every tile 0..15 exactly once.
func (s State) Validate() error {
	if err := s.check(); err != nil {
		return fmt.Errorf("puzzle: %w", err)
	}
	return nil
}

// parse, fromInts and check are Parse, FromInts and Validate with errors
// that do not name the package, for callers that add their own context.
func parse(fields []string) (State, error) {
	if len(fields) != Size {
		return State{}, fmt.Errorf("need %d numbers, got %d", Size, len(fields))
	}
	tiles := make([]int, Size)
	for i, f := range fields {
		f = strings.TrimSpace(f)
		v, err := strconv.Atoi(f)
		if err != nil {
			return State{}, fmt.Errorf("tile %d: %q is not a number from 0 to %d", i+1, f, Size-1)
		}
		tiles[i] = v
	}
	return fromInts(tiles)
}

func fromInts(tiles []int) (State, error) {
	if len(tiles) != Size {
		return State{}, fmt.Errorf("need %d numbers, got %d", Size, len(tiles))
	}
	var s State
	for i, v := range tiles {
		if v < 0 || v >= Size {
			return State{}, fmt.Errorf("tile %d: value %d out of range 0..%d", i+1, v, Size-1)
		}
		s[i] = uint8(v)
	}
	return s, s.check()
}

func (s State) check() error {
	var seen [Size]int // position+1 of the first occurrence
	for p, t := range s {
		if int(t) >= Size {
			return fmt.Errorf("tile %d: value %d out of range 0..%d", p+1, t, Size-1)
		}
		if seen[t] != 0 {
			return fmt.Errorf("value %d appears twice (tiles %d and %d)", t, seen[t], p+1)
		}
		seen[t] = p + 1
	}
	return nil
}

// Blank returns the position of the blank, or -1 if s has none.
func (s State) Blank() int {
	for p, t := range s {
		if t == 0 {
			return p
		}
	}
	return -1
}

// Solvable reports whether the valid board s can reach the goal, by the
// parity argument: read the 15 tiles row by row, skipping the blank. A move
// along a row keeps that order; a move along a column carries one tile past
// three others, changing the number of inversions by an odd amount, and
// changes the blank's row by one. So the number of inversions plus the
// blank's row is invariant mod 2, and it is even for the goal (no
// inversions, blank in row 0). Solvable is false for an invalid board.
// Cost: O(16²).
func Solvable(s State) bool {
	if s.check() != nil {
		return false
	}
	inv := 0
	for i := 0; i < Size; i++ {
		if s[i] == 0 {
			continue
		}
		for j := i + 1; j < Size; j++ {
			if s[j] != 0 && s[i] > s[j] {
				inv++
			}
		}
	}
	return (inv+s.Blank()/Side)%2 == 0
}

// Manhattan returns the sum over tiles 1..15 of the rows plus columns between
// each tile and its goal position: an admissible and consistent lower bound
// on the number of moves to the goal. s must be valid.
func (s State) Manhattan() int {
	h := 0
	for p, t := range s {
		if t != 0 {
			h += int(manhattan[t][p])
		}
	}
	return h
}

// String formats s as its 16 tiles row by row, separated by spaces, the
// form Parse reads.
func (s State) String() string {
	var b strings.Builder
	for p, t := range s {
		if p > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(t)))
	}
	return b.String()
}

// Move is a direction in which the blank moves. The numbering is the order
// in which searches try the moves, and Up+Down = Left+Right = 3, so the move
// undoing m is 3-m.
type Move uint8

// The four moves, in search order.
const (
	Up Move = iota
	Left
	Right
	Down
)

// Inverse returns the move that undoes m.
func (m Move) Inverse() Move { return 3 - m }

// String returns "U", "L", "R" or "D".
func (m Move) String() string {
	if m < 4 {
		return "ULRD"[m : m+1]
	}
	return "Move(" + strconv.Itoa(int(m)) + ")"
}

// FormatMoves returns the moves as one string of U, L, R and D letters.
func FormatMoves(moves []Move) string {
	b := make([]byte, len(moves))
	for i, m := range moves {
		b[i] = m.String()[0]
	}
	return string(b)
}

// Apply returns the board after moving the blank in direction m, or false
// if that would leave the board or s has no blank.
func (s State) Apply(m Move) (State, bool) {
	b := s.Blank()
	if b < 0 || m > Down || !canMove[b][m] {
		return s, false
	}
	nb := b + int(moveOffset[m])
	s[b], s[nb] = s[nb], 0
	return s, true
}

// ApplyMoves applies the moves in order and returns the final board, or an
// error naming the first move that leaves the board.
func ApplyMoves(s State, moves []Move) (State, error) {
	for i, m := range moves {
		next, ok := s.Apply(m)
		if !ok {
			return s, fmt.Errorf("puzzle: move %d (%v) leaves the board", i+1, m)
		}
		s = next
	}
	return s, nil
}
