package puzzle

// Read-only lookup tables, computed once at package initialisation and never
// written afterwards.

// goalPacked is Goal() packed by pack: nibble i holds i.
const goalPacked uint64 = 0xFEDCBA9876543210

// noMove stands for "no previous move" at the root of a search.
const noMove = 4

// moveOffset[m] is the change of the blank's position when it moves m.
var moveOffset = [4]int8{-Side, -1, +1, +Side}

var (
	// manhattan[t][p] is the distance of tile t at position p from its goal
	// position t (0 for the blank).
	manhattan [Size][Size]uint8

	// canMove[p][m] reports whether the blank at p can move m.
	canMove [Size][4]bool

	// closer[p][m] has bit t set if tile t, sitting at p, comes one step
	// closer to its goal when the blank moves m into p (the tile moving
	// the opposite way). Otherwise the tile moves one step away.
	closer [Size][4]uint16

	// moveMask[p] has bit m set if the blank at p can move m.
	moveMask [Size]uint8

	// succ[p*5+prev] lists the moves generated at a node whose blank is at
	// p and whose last move was prev (noMove at the root): the legal moves
	// in search order, minus the inverse of prev.
	succ [Size * 5]succList
)

// succList is the list of moves generated at a node, see succ.
type succList struct {
	n  int      // number of moves
	to [4]uint8 // new position of the blank
	m  [4]Move  // the move
}

func init() {
	abs := func(x int) int {
		if x < 0 {
			return -x
		}
		return x
	}
	for t := 1; t < Size; t++ {
		for p := 0; p < Size; p++ {
			manhattan[t][p] = uint8(abs(t/Side-p/Side) + abs(t%Side-p%Side))
		}
	}
	for p := 0; p < Size; p++ {
		r, c := p/Side, p%Side
		canMove[p] = [4]bool{r > 0, c > 0, c < Side-1, r < Side-1}
	}
	for p := 0; p < Size; p++ {
		for m := Up; m <= Down; m++ {
			if canMove[p][m] {
				moveMask[p] |= 1 << m
			}
		}
	}
	for p := 0; p < Size; p++ {
		for m := Up; m <= Down; m++ {
			// The blank at q moves m into p, so the tile goes from p to q.
			q := p - int(moveOffset[m])
			if q < 0 || q >= Size || !canMove[q][m] {
				continue
			}
			for t := 1; t < Size; t++ {
				if manhattan[t][q] < manhattan[t][p] {
					closer[p][m] |= 1 << t
				}
			}
		}
	}
	for p := 0; p < Size; p++ {
		for prev := Move(0); prev <= noMove; prev++ {
			l := &succ[p*5+int(prev)]
			for m := Up; m <= Down; m++ {
				if !canMove[p][m] || (prev != noMove && m == prev.Inverse()) {
					continue
				}
				l.to[l.n] = uint8(p + int(moveOffset[m]))
				l.m[l.n] = m
				l.n++
			}
		}
	}
}

// pack returns the board as 16 nibbles, nibble p holding the tile at p.
func pack(s State) uint64 {
	var b uint64
	for p, t := range s {
		b |= uint64(t&15) << (4 * p)
	}
	return b
}

// unpack is the inverse of pack.
func unpack(b uint64) State {
	var s State
	for p := range s {
		s[p] = uint8(b>>(4*p)) & 15
	}
	return s
}
