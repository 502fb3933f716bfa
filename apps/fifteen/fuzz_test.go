package main

import (
	"strings"
	"testing"

	"github.com/treelb/treelb/apps/fifteen/puzzle"
)

// FuzzBoards: any text given with --file is read or rejected with an error
// that names the file and line, never with a panic, and every board read
// is valid and solvable.
func FuzzBoards(f *testing.F) {
	f.Add(korf12 + "\n# comment\n" + strings.ReplaceAll(goal, " ", ",") + "\n")
	f.Add(swapped + "\n")
	f.Add("1 2 3\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		ins, err := readBoards(strings.NewReader(text), "f.txt")
		if err != nil {
			if !strings.Contains(err.Error(), "f.txt") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		for _, in := range ins {
			if in.Start.Validate() != nil || !puzzle.Solvable(in.Start) {
				t.Fatalf("accepted an invalid board %v", in.Start)
			}
		}
	})
}
