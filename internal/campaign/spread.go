package campaign

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Spread is the spread of a sample of measurements (the repeats of a run,
// the runs of a configuration): its size, median, least and greatest
// value. Every median in treelb's measurements is this one: gonum's
// empirical quantile at 0.5 (stat.Quantile with stat.Empirical), which for
// an even number of values is the lower of the two middle ones, a value
// that was measured rather than a mean of two.
type Spread struct {
	N                int
	Median, Min, Max float64
}

// SpreadOf returns the spread of xs, leaving out NaNs; the zero-size
// spread of no value has NaN median, min and max. xs is not changed.
func SpreadOf(xs []float64) Spread {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	if len(s) == 0 {
		nan := math.NaN()
		return Spread{Median: nan, Min: nan, Max: nan}
	}
	slices.Sort(s)
	return Spread{N: len(s), Median: stat.Quantile(0.5, stat.Empirical, s, nil), Min: floats.Min(s), Max: floats.Max(s)}
}

// Median returns the median of xs as SpreadOf does (NaN for none).
func Median(xs []float64) float64 { return SpreadOf(xs).Median }

// Format formats the spread for a table: the median alone when all values
// are equal, else "median (min–max)", each with format; "" for no value.
func (s Spread) Format(format string) string {
	switch {
	case s.N == 0:
		return ""
	case s.Min == s.Max:
		return fmt.Sprintf(format, s.Median)
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", s.Median, s.Min, s.Max)
}
