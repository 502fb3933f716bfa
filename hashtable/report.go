package hashtable

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteText writes the summary as a human-readable table: per phase the
// essential work, its maximum over ranks, η of the work and of the measured
// times, the time and the throughput. With perRank, one line per rank
// follows (rank 0 only holds them).
func (s *Summary) WriteText(w io.Writer, perRank bool) error {
	fmt.Fprintf(w, "dht: %s world, p=%d q=%d m=%d alpha=%g beta=%g alloc=%v rounds=%d seed=%d",
		s.World, s.P, s.Q, s.M, s.Alpha, s.Beta, s.Alloc, s.Rounds, s.Seed)
	if s.Revisit > 0 {
		fmt.Fprintf(w, " revisit=%g", s.Revisit)
	}
	rounds := int64(max(s.Rounds, 1))
	fmt.Fprintf(w, "\nold elements %d per round, new %d per round, %d found in the old table per round (%d of %d in all)\n",
		s.Old/rounds, s.Overall.Ops/rounds, s.Found/rounds, s.Found, s.Overall.Ops)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\twork\tmax work/rank\tη work\ttime s\tη time\telements\telements/s\t/s per rank\t")
	row := func(ps PhaseSummary) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.4f\t%.3f\t%d\t%.3g\t%.3g\t\n", ps.Phase, ps.Work, ps.MaxWork, ps.Eta,
			ps.Time, ps.EtaTime, ps.Ops, ps.OpsPerSec, ps.OpsPerSecPerRank)
	}
	for _, ps := range s.Phases {
		row(ps)
	}
	row(s.Overall)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "work: generate G_i, dispatch Σ_j B_ij (not in W), search Σ_j (A_ij+1)B_ij, insert Σ_j B_ij(B_ij+1)/2; η = E(total)/(p·E(max))")
	if !perRank || len(s.Ranks) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tG\tΣB\tsearch work\tinsert work\tW\tgen s\tdispatch s\tsearch s\tinsert s\t")
	for i, r := range s.Ranks {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t\n", i, r.Work[Generate], r.Work[Dispatch],
			r.Work[Search], r.Work[Insert], r.Essential(), r.Time[Generate], r.Time[Dispatch], r.Time[Search], r.Time[Insert])
	}
	return tw.Flush()
}

// WriteFig1Text writes the points of Fig. 1 as one table per load: a row
// per p, a column per q (η, and for X the exact η of the Poisson model).
func WriteFig1Text(w io.Writer, pts []SimPoint) error {
	labels := []string{"1", "lg p", "lg^2 p", "lg^3 p"}
	for wl := range NumLoads {
		fmt.Fprintf(w, "Fig. 1 (%c) W = %v: load balance factor η\n", 'a'+rune(wl), wl)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "p\t")
		for _, l := range labels {
			fmt.Fprintf(tw, "q=%s\t", l)
		}
		if wl == LoadX {
			fmt.Fprint(tw, "exact (Poisson) q=1…lg^3 p\t")
		}
		fmt.Fprintln(tw)
		var ps []int
		for _, pt := range pts {
			if pt.W == wl.String() && pt.QLabel == "1" {
				ps = append(ps, pt.P)
			}
		}
		for _, p := range ps {
			fmt.Fprintf(tw, "%d\t", p)
			var exact []float64
			for _, l := range labels {
				cell := "-"
				for _, pt := range pts {
					if pt.P == p && pt.QLabel == l && pt.W == wl.String() {
						cell = fmt.Sprintf("%.3f (q=%d)", pt.Eta, pt.Q)
						exact = append(exact, pt.Theory)
					}
				}
				fmt.Fprintf(tw, "%s\t", cell)
			}
			if wl == LoadX {
				fmt.Fprintf(tw, "%.3f\t", exact)
			}
			fmt.Fprintln(tw)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	return nil
}

// WriteTable1Text writes our coefficients of variation next to the seed's.
func WriteTable1Text(w io.Writer, rows []Table1Row) error {
	fmt.Fprintln(w, "Table 1: coefficient of variation of the maximum load, percent (α = β = 4)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "W\tp\tq\tseed (50 runs)\tours, mean of 50-run blocks\tse of 50 runs\tz\tours, all runs\truns\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%+.1f\t%.1f\t%d\t\n", r.W, r.P, r.Q, r.Seed, r.Ours50, r.SE, r.Z, r.Ours, r.Runs)
	}
	return tw.Flush()
}
