package hashtable

import (
	"strings"
	"testing"
)

// TestWriteTextPerRound: the summary's counts line gives every count per
// round, and the totals apart (the searches found were a total beside
// per-round counts: "126 per round, 615 found", more hits than elements).
func TestWriteTextPerRound(t *testing.T) {
	s := &Summary{World: "embedded", P: 2, Q: 16, M: 32, Alpha: 4, Beta: 4, Rounds: 10, Old: 1260, Found: 615,
		Overall: PhaseSummary{Phase: "overall", Ops: 1267}}
	var b strings.Builder
	if err := s.WriteText(&b, false); err != nil {
		t.Fatal(err)
	}
	want := "old elements 126 per round, new 126 per round, 61 found in the old table per round (615 of 1267 in all)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("got\n%s\nwant a line %q", b.String(), want)
	}
}
