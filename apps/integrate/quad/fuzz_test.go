package quad

import (
	"testing"

	"github.com/treelb/treelb/apps/integrate/internal/bagsched"
)

// fuzzApp is the integration the fuzzed tasks belong to: a random
// polynomial of degree 57 over [0, 1] (relative rule).
func fuzzApp(t testing.TB) *App {
	p, err := New(RandomPoly(1).Eval, 0, 1, Options{ThetaA: 1e-8, ThetaR: SeedThetaR, Rule: Relative})
	if err != nil {
		t.Fatal(err)
	}
	return NewApp(p)
}

// FuzzUnmarshal: decoding any bytes either fails or gives a task whose
// encoding decodes to the same task, which works, splits and stays within
// its levels without panicking (bagsched.CheckDecoded). The committed
// corpus is in testdata/fuzz/FuzzUnmarshal; more seeds are real tasks.
func FuzzUnmarshal(f *testing.F) {
	for _, b := range bagsched.Seeds(fuzzApp(f)) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if err := bagsched.CheckDecoded(fuzzApp(t), b, MaxLevel); err != nil {
			t.Fatal(err)
		}
	})
}
