package alphatree

import (
	"testing"

	"github.com/treelb/treelb/apps/integrate/internal/bagsched"
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
