package ruler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestTaskContract: a Search keeps lb.Task's promises (lbtest.TestApp):
// exhaustively when counting the 8-mark rulers up to length 40, and so
// does the search for the shortest 8-mark ruler, whose pruning depends on
// the order. The parts' results combine to the whole's: the same count
// and digest, the same shortest ruler.
func TestTaskContract(t *testing.T) {
	// Few marks too: with 3 to 5 the level below a task's top can be the
	// last mark's, which no task holds as a frame (a split there once gave
	// a task that did not decode: golomb --count 40 3 -b hybrid --np 2).
	for _, c := range []struct{ marks, limit int }{{8, 40}, {3, 40}, {3, 255}, {4, 30}, {5, 40}} {
		t.Run(fmt.Sprintf("count %d %d", c.limit, c.marks), func(t *testing.T) {
			lbtest.TestApp(t, func() lb.App {
				p, err := NewProblem(c.marks, shorter(t, c.marks), Count, c.limit)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult(func(w, p Outcome) bool {
				return w.Nodes == p.Nodes && w.Solutions == p.Solutions && w.Digest == p.Digest
			})})
		})
	}
	t.Run("shortest", func(t *testing.T) {
		lbtest.TestApp(t, func() lb.App {
			p, err := NewProblem(8, shorter(t, 8), Shortest, 40)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}, lbtest.AppOptions{Result: lbtest.SameResult(func(w, p Outcome) bool { return slices.Equal(w.Ruler, p.Ruler) })})
	})
}

// TestEveryPartDecodes: whatever a task went through (slices of one to
// three nodes, Split, SplitEven, Halve either way, in random order, as
// static placement, hybrid, poll-and-shuffle and random polling apply
// them), it and every piece it gave encode to bytes that decode, and the
// parts count the whole's nodes. With few marks the level below a task's
// top can be the last mark's: a division there gave a part that did not
// decode (golomb --count 40 3 -b hybrid --np 2 --budget 1 failed with
// "malformed task"; lbtest.TestApp's checks did not reach that state).
func TestEveryPartDecodes(t *testing.T) {
	for _, c := range []struct{ marks, limit int }{{3, 40}, {4, 30}, {5, 30}, {6, 30}} {
		p, err := NewProblem(c.marks, shorter(t, c.marks), Count, c.limit)
		if err != nil {
			t.Fatal(err)
		}
		var whole int64
		for root := p.Root(); !root.Empty(); {
			whole += root.Work(1 << 20)
		}
		t.Logf("%d marks up to %d: %d nodes", c.marks, c.limit, whole)
		for seed := range uint64(max(10, 300000/whole)) {
			rng := rand.New(rand.NewPCG(seed, 1))
			var nodes int64
			pending := []lb.Task{p.Root()}
			for len(pending) > 0 {
				task := pending[len(pending)-1].(*Search)
				pending = pending[:len(pending)-1]
				for !task.Empty() {
					var piece lb.Task
					switch rng.IntN(5) {
					case 0, 1:
						nodes += task.Work(1 + rng.Int64N(3))
					case 2:
						piece = task.Split()
					case 3:
						piece = task.SplitEven()
					case 4:
						// Halve keeps one part of Split's division in place
						// (static placement: each rank its own); a copy
						// halved the other way is the other part.
						before, err := task.AppendBinary(nil)
						if err != nil {
							t.Fatal(err)
						}
						rest, err := p.Unmarshal(before)
						if err != nil {
							t.Fatal(err)
						}
						give := rng.IntN(2) == 0
						if task.Halve(give) {
							rest.(*Search).Halve(!give)
							piece = rest
						}
					}
					for _, x := range []lb.Task{task, piece} {
						if x == nil {
							continue
						}
						b, err := x.AppendBinary(nil)
						if err != nil {
							t.Fatal(err)
						}
						if _, err := p.Unmarshal(b); err != nil {
							t.Fatalf("%d marks up to %d, seed %d: %v", c.marks, c.limit, seed, err)
						}
					}
					if piece != nil && !piece.Empty() {
						pending = append(pending, piece)
					}
				}
			}
			if nodes != whole {
				t.Fatalf("%d marks up to %d, seed %d: the parts hold %d nodes, the whole %d", c.marks, c.limit, seed, nodes, whole)
			}
		}
	}
}
