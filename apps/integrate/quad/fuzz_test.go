package quad

import (
	"bytes"
	"strings"
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

// FuzzResult: Result's binary encoding (lb's reductions and checkpoints
// use it): bytes either fail to decode with "quad: " or decode to a result
// whose encoding decodes to a result of the same encoding (a sum's limbs
// are varints and a Sum normalises when it encodes, so neither the bytes
// nor the struct need come back as they were).
func FuzzResult(f *testing.F) {
	var s Sum
	s.Add(0.1)
	s.Add(-3e300)
	for _, r := range []Result{{}, {Nodes: 2e6 - 1, Leaves: 1e6, Height: 45, Sum: s, Digest: 1<<64 - 1, Replayed: 7}} {
		b, err := r.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		var back Result
		if err := back.UnmarshalBinary(b); err != nil || back.Nodes != r.Nodes || back.Replayed != r.Replayed || back.Digest != r.Digest || back.Value() != r.Value() {
			f.Fatalf("%+v came back as %+v (%v)", r, back, err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Result
		if err := r.UnmarshalBinary(data); err != nil {
			if !strings.HasPrefix(err.Error(), "quad: ") {
				t.Fatalf("an error without the prefix: %v", err)
			}
			return
		}
		b, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("%+v does not encode: %v", r, err)
		}
		var back Result
		if err := back.UnmarshalBinary(b); err != nil {
			t.Fatalf("%x, the encoding of %+v, does not decode: %v", b, r, err)
		}
		if b2, err := back.MarshalBinary(); err != nil || !bytes.Equal(b2, b) {
			t.Fatalf("%x decodes to %+v, which encodes to %x (%v)", b, back, b2, err)
		}
	})
}
