package alphatree

import (
	"testing"

	"github.com/treelb/treelb/apps/integrate/internal/bagsched"
	"github.com/treelb/treelb/lb/lbtest"
)

// fuzzApp is the tree the fuzzed tasks belong to.
func fuzzApp(t testing.TB) *App {
	p, err := New(0.96, 1)
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

// FuzzResult: Result's binary encoding (lb's reductions and checkpoints
// use it) is canonical: bytes either fail to decode with "alphatree: " or
// decode to a result that encodes back to them.
func FuzzResult(f *testing.F) {
	lbtest.FuzzCanonicalEncoding(f, "alphatree: ", Result{}, Result{Nodes: 2e6 - 1, Leaves: 1e6, Height: 45, Digest: 1<<64 - 1})
}
