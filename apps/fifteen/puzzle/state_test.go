package puzzle

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	s, err := Parse(strings.Fields("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"))
	if err != nil {
		t.Fatal(err)
	}
	if s[0] != 14 || s[9] != 0 || s[15] != 3 || s.Blank() != 9 {
		t.Errorf("Parse: got %v", s)
	}
	if got := s.String(); got != "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3" {
		t.Errorf("String: got %q", got)
	}
	back, err := Parse(strings.Fields(s.String()))
	if err != nil || back != s {
		t.Errorf("Parse(String()) = %v, %v; want %v", back, err, s)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14", "need 16 numbers, got 15"},
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", "need 16 numbers, got 17"},
		{"", "need 16 numbers, got 0"},
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 x", "tile 16"},
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16", "tile 16: value 16 out of range 0..15"},
		{"0 1 2 3 -4 5 6 7 8 9 10 11 12 13 14 15", "tile 5: value -4 out of range"},
		{"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 14", "value 14 appears twice (tiles 15 and 16)"},
		{"1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15", "value 1 appears twice (tiles 1 and 2)"},
	} {
		_, err := Parse(strings.Fields(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "puzzle: ") {
			t.Errorf("Parse(%q): error %v, want one containing %q", tc.in, err, tc.want)
		}
	}
	if _, err := FromInts([]int{0, 1}); err == nil {
		t.Error("FromInts with 2 numbers: no error")
	}
	bad := Goal()
	bad[3] = 200
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Validate of a tile 200: %v", err)
	}
	if Solvable(bad) {
		t.Error("an invalid board is solvable")
	}
}

// randomWalk returns the goal scrambled by n random legal moves.
func randomWalk(r *rand.Rand, n int) State {
	s := Goal()
	for i := 0; i < n; i++ {
		if next, ok := s.Apply(Move(r.IntN(4))); ok {
			s = next
		}
	}
	return s
}

func TestSolvable(t *testing.T) {
	if !Solvable(Goal()) {
		t.Fatal("goal not solvable")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		s := randomWalk(r, r.IntN(200))
		if !Solvable(s) {
			t.Fatalf("%v, reached from the goal, not solvable", s)
		}
		// Swapping two tiles (not the blank) flips the parity.
		var a, b int
		for {
			a, b = r.IntN(Size), r.IntN(Size)
			if a != b && s[a] != 0 && s[b] != 0 {
				break
			}
		}
		s[a], s[b] = s[b], s[a]
		if Solvable(s) {
			t.Fatalf("%v, a transposition away from a solvable board, solvable", s)
		}
		if _, err := Solve(s); !errors.Is(err, ErrUnsolvable) {
			t.Fatalf("Solve(%v): %v, want ErrUnsolvable", s, err)
		}
	}
	// The classic 14-15 swap.
	s, _ := FromInts([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 14})
	if Solvable(s) {
		t.Error("14-15 swap solvable")
	}
	// Moving the blank along a row keeps the board solvable.
	s, _ = FromInts([]int{1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	if !Solvable(s) {
		t.Error("one move from the goal not solvable")
	}
}

func TestApplyAndManhattan(t *testing.T) {
	g := Goal()
	if g.Manhattan() != 0 || pack(g) != goalPacked || unpack(goalPacked) != g {
		t.Fatal("goal tables inconsistent")
	}
	if _, ok := g.Apply(Up); ok {
		t.Error("Up from the top left allowed")
	}
	if _, ok := g.Apply(Left); ok {
		t.Error("Left from the top left allowed")
	}
	s, ok := g.Apply(Down)
	if !ok || s[0] != 4 || s[4] != 0 || s.Manhattan() != 1 {
		t.Errorf("Down from the goal: %v %v", s, ok)
	}
	if _, err := ApplyMoves(g, []Move{Right, Up}); err == nil || !strings.Contains(err.Error(), "move 2 (U)") {
		t.Errorf("ApplyMoves RU from the goal: %v", err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		s := randomWalk(r, 100)
		// Manhattan is consistent: one move changes it by exactly 1.
		for m := Up; m <= Down; m++ {
			if n, ok := s.Apply(m); ok {
				if d := n.Manhattan() - s.Manhattan(); d != 1 && d != -1 {
					t.Fatalf("move %v from %v changes h by %d", m, s, d)
				}
				if back, _ := n.Apply(m.Inverse()); back != s {
					t.Fatalf("move %v then its inverse from %v gives %v", m, s, back)
				}
			}
		}
	}
	if got := FormatMoves([]Move{Up, Left, Right, Down}); got != "ULRD" {
		t.Errorf("FormatMoves: %q", got)
	}
}
