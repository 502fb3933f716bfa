package hashtable

import (
	"fmt"
	"math"
	"testing"

	"github.com/treelb/treelb/mpi"
)

// TestRoundWorkFormulas: after a round, every rank's essential-work counters
// equal the formulas of seed 004 §4.2 computed directly from the bucket
// occupancies of its subtables: A_ij from the old table, B_ij from the
// elements it received (and, for the insert, from the new table).
func TestRoundWorkFormulas(t *testing.T) {
	for _, a := range []Alloc{Block, Modular} {
		for _, revisit := range []float64{0, 0.3} {
			t.Run(fmt.Sprintf("%v/revisit%g", a, revisit), func(t *testing.T) {
				forSizes(t, func(c *mpi.Comm) error {
					rp := RoundParams{Q: 8, Alpha: 4, Beta: 4, Alloc: a, Seed: 11, Revisit: revisit}
					r, err := NewRunner(c, rp)
					if err != nil {
						return err
					}
					for round := range 3 {
						rr, err := r.Round(round)
						if err != nil {
							return err
						}
						if err := checkRoundWork(r, rr, revisit); err != nil {
							return fmt.Errorf("round %d: %w", round, err)
						}
					}
					return nil
				})
			})
		}
	}
}

func checkRoundWork(r *Runner, rr RankRound, revisit float64) error {
	old, nw := r.Old().Local(), r.New().Local()
	q := old.Buckets()
	b := make([]int64, q)
	for _, k := range r.Received() {
		b[old.Slot(k)]++
	}
	var recv, search, insert, insertB int64
	for j := range q {
		a, bn := int64(old.Occupancy(j)), int64(nw.Occupancy(j))
		recv += b[j]
		search += (a + 1) * b[j]
		insert += bn * (bn + 1) / 2
		insertB += b[j] * (b[j] + 1) / 2
	}
	switch {
	case rr.Work[Generate] != int64(len(r.Generated())):
		return fmt.Errorf("generate work %d, G_i = %d", rr.Work[Generate], len(r.Generated()))
	case rr.Work[Dispatch] != recv:
		return fmt.Errorf("dispatch work %d, Σ B_ij = %d", rr.Work[Dispatch], recv)
	case rr.Work[Search] != search:
		return fmt.Errorf("search work %d, Σ (A_ij+1)B_ij = %d", rr.Work[Search], search)
	case rr.Work[Insert] != insert:
		return fmt.Errorf("insert work %d, Σ B'_ij(B'_ij+1)/2 = %d", rr.Work[Insert], insert)
	case revisit == 0 && (insert != insertB || rr.Found != 0):
		// Random 64-bit elements are never found: every received element is
		// inserted, as the seed assumes.
		return fmt.Errorf("insert work %d, Σ B_ij(B_ij+1)/2 = %d, %d found", insert, insertB, rr.Found)
	case revisit > 0 && rr.Found+rr.Ops[Insert] != recv:
		return fmt.Errorf("%d found + %d inserted ≠ %d received", rr.Found, rr.Ops[Insert], recv)
	}
	return nil
}

// TestRunRounds checks the summary's consistency: totals, η in (0, 1], the
// same report on every rank.
func TestRunRounds(t *testing.T) {
	forSizes(t, func(c *mpi.Comm) error {
		s, err := RunRounds(c, RoundParams{Q: 6, Alpha: 4, Beta: 4, Seed: 3}, 4)
		if err != nil {
			return err
		}
		p := c.Size()
		if s.P != p || s.M != 6*p || len(s.Phases) != NumPhases || s.Rounds != 4 {
			return fmt.Errorf("summary %+v", s)
		}
		// About β·m new elements per round.
		gen := float64(s.Phases[Generate].Work) / 4
		if want := 4.0 * 6 * float64(p); math.Abs(gen-want) > 6*math.Sqrt(want) {
			return fmt.Errorf("%.0f new elements per round, expected about %.0f", gen, want)
		}
		if s.Phases[Dispatch].Work != s.Phases[Generate].Work || s.Phases[Insert].Ops != s.Phases[Generate].Work {
			return fmt.Errorf("elements lost: %+v", s.Phases)
		}
		for _, ph := range append(s.Phases, s.Overall) {
			if !(ph.Eta > 0 && ph.Eta <= 1) || (p == 1 && ph.Eta != 1) {
				return fmt.Errorf("phase %s: η = %g", ph.Phase, ph.Eta)
			}
		}
		want := s.Phases[Generate].Work + s.Phases[Search].Work + s.Phases[Insert].Work
		if s.Overall.Work != want {
			return fmt.Errorf("overall work %d, phases sum to %d", s.Overall.Work, want)
		}
		// Rank 0 holds every rank's record; they add up to the totals.
		if c.Rank() == 0 {
			if len(s.Ranks) != p {
				return fmt.Errorf("%d rank records for %d ranks", len(s.Ranks), p)
			}
			var w, mx int64
			for _, r := range s.Ranks {
				w += r.Work[Search]
				mx = max(mx, r.Essential())
			}
			if w != s.Phases[Search].Work || mx > s.Overall.MaxWork {
				return fmt.Errorf("rank records: search work %d (total %d), largest W %d (Σ max %d)", w, s.Phases[Search].Work, mx, s.Overall.MaxWork)
			}
		} else if s.Ranks != nil {
			return fmt.Errorf("rank %d holds rank records", c.Rank())
		}
		// Every rank holds the same summary: compare a checksum.
		x := []int64{s.Overall.MaxWork, s.Phases[Search].MaxWork}
		lo, hi := make([]int64, 2), make([]int64, 2)
		if err := mpi.Allreduce(c, x, lo, mpi.Min); err != nil {
			return err
		}
		if err := mpi.Allreduce(c, x, hi, mpi.Max); err != nil {
			return err
		}
		if lo[0] != hi[0] || lo[1] != hi[1] {
			return fmt.Errorf("ranks disagree on the summary")
		}
		return nil
	})
}

func TestRoundBadInput(t *testing.T) {
	bad := []RoundParams{
		{Q: 0, Alpha: 1, Beta: 1},
		{Q: -3, Alpha: 1, Beta: 1},
		{Q: 1, Alpha: -1, Beta: 1},
		{Q: 1, Alpha: 1, Beta: -0.5},
		{Q: 1, Alpha: math.NaN(), Beta: 1},
		{Q: 1, Alpha: 1, Beta: math.Inf(1)},
		{Q: 1, Alpha: 1, Beta: 1, Alloc: Alloc(5)},
		{Q: 1, Alpha: 1, Beta: 1, Revisit: 2},
		// Chains of thousands: a setup of minutes, with nothing to show.
		{Q: 1, Alpha: 3000, Beta: 1},
		{Q: 1, Alpha: 1, Beta: 1001},
	}
	for _, rp := range bad {
		if rp.Validate() == nil {
			t.Errorf("%+v accepted", rp)
		}
	}
	forSizes(t, func(c *mpi.Comm) error {
		if _, err := RunRounds(c, bad[0], 1); err == nil {
			return fmt.Errorf("RunRounds with q = 0 succeeded")
		}
		if _, err := RunRounds(c, RoundParams{Q: 1}, 0); err == nil {
			return fmt.Errorf("RunRounds with 0 rounds succeeded")
		}
		return nil
	})
}
