package main

import (
	"errors"
	"testing"

	"github.com/treelb/treelb/apps/golomb/ruler"
	"github.com/treelb/treelb/lb"
)

// FuzzPhase feeds the decoder of a suspended golomb search's State (the
// part of a checkpoint that golomb itself reads, a ruler.State) arbitrary
// bytes, and well-formed encodings of arbitrary states: it never panics, its
// errors match lb.ErrBadState (exit status 2), and the steps of a count it
// accepts are rulers of 1 … MARKS−1 marks, which the count indexes by their
// marks.
func FuzzPhase(f *testing.F) {
	enc := func(ph ruler.State) []byte {
		b, _ := ph.MarshalBinary()
		return b
	}
	steps, _ := ruler.Solve(4)
	f.Add(enc(ruler.State{Counting: true, Steps: steps[:3]}), 4, 30, 0, 0)
	f.Add(enc(ruler.State{Steps: steps[:2]}), 5, 0, 0, 0)
	f.Add(enc(ruler.State{Counting: true, Steps: steps}), 4, 30, 2, 7)
	f.Add([]byte{0xff, 0x00}, 3, 0, 0, 0)
	f.Fuzz(func(t *testing.T, state []byte, marks, count, step, mark int) {
		in := instance{Marks: marks, Count: count}
		check := func(state []byte) {
			ph, err := decodePhase(state, in)
			if err != nil {
				if !errors.Is(err, lb.ErrBadState) {
					t.Fatalf("an error that is not a malformed state's: %v", err)
				}
				return
			}
			if ph.Counting {
				g := make([]int, max(in.Marks, 1))
				for _, s := range ph.Steps {
					g[s.Marks] = s.Ruler[s.Marks-1] // what solve does with them
				}
			}
		}
		check(state)
		// A well-formed phase with one step's marks or a mark changed.
		if len(steps) > 0 {
			s := make([]ruler.Step, len(steps))
			for i := range steps {
				s[i] = steps[i]
				s[i].Ruler = append([]int(nil), steps[i].Ruler...)
			}
			i := (step%len(s) + len(s)) % len(s)
			if len(s[i].Ruler) > 0 {
				s[i].Ruler[(mark%len(s[i].Ruler)+len(s[i].Ruler))%len(s[i].Ruler)] = mark
			}
			s[(i+1)%len(s)].Marks = step
			check(enc(ruler.State{Counting: true, Steps: s[:min(len(s), max(marks, 0))]}))
		}
	})
}
