package quad

import (
	"bytes"
	"encoding/gob"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactSum is the reference: the sum in math/big with enough precision to
// be exact, rounded once.
func exactSum(xs []float64) float64 {
	acc := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		acc.Add(acc, new(big.Float).SetPrec(4096).SetFloat64(x))
	}
	v, _ := acc.Float64()
	return v
}

// wideValues returns n values of random sign spread over the whole float64
// range, subnormals included.
func wideValues(rng *rand.Rand, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		x := math.Ldexp(1+rng.Float64(), rng.IntN(2046)-1074)
		if rng.IntN(2) == 0 {
			x = -x
		}
		xs[i] = x
	}
	return xs
}

func TestSumExact(t *testing.T) {
	cases := map[string][]float64{
		"empty":        nil,
		"cancellation": {1e300, 1, -1e300},
		// A negative zero: -0.0 is a positive zero in Go.
		"tiny":     {math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1)},
		"ulps":     {1, 0x1p-53, 0x1p-53}, // exact 1+2^-52: each alone would round away
		"tie":      {1, 0x1p-53},          // halfway: ties to even, 1
		"max":      {math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64},
		"overflow": {math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64 / 2},
		"beyond":   {math.MaxFloat64, math.MaxFloat64},
		"negative": {-0.1, -0.2, -0.3},
		"decimals": {0.1, 0.2, 0.3, -0.6},
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 20 {
		cases["wide"+string(rune('a'+i))] = wideValues(rng, 1+rng.IntN(300))
	}
	for name, xs := range cases {
		var s Sum
		for _, x := range xs {
			s.Add(x)
		}
		got, want := s.Value(), exactSum(xs)
		if math.Float64bits(got) != math.Float64bits(want) && !(got == 0 && want == 0) {
			t.Errorf("%s: sum %v (%#x), exact %v (%#x)", name, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
	var s Sum
	s.Add(math.MaxFloat64)
	s.Add(math.MaxFloat64)
	if v := s.Value(); !math.IsInf(v, 1) {
		t.Errorf("2·MaxFloat64 = %v, want +Inf", v)
	}
}

// TestSumOrderAndMerge: any order of the additions and any grouping into
// merged parts gives the same bits.
func TestSumOrderAndMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	xs := wideValues(rng, 2000)
	for i := range 500 { // values of one scale too, where rounding would show
		xs[i] = rng.Float64() - 0.5
	}
	want := exactSum(xs)
	for trial := range 10 {
		rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		parts := make([]Sum, 1+rng.IntN(17))
		for _, x := range xs {
			parts[rng.IntN(len(parts))].Add(x)
		}
		for len(parts) > 1 {
			i := rng.IntN(len(parts) - 1)
			parts[i].Merge(&parts[len(parts)-1])
			parts = parts[:len(parts)-1]
		}
		if got := parts[0].Value(); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: %v, exact %v", trial, got, want)
		}
	}
}

// TestSumCarries: the state after carryEvery−1 additions of one value (the
// limbs grow linearly until the carries are propagated) survives the
// propagation that the next addition triggers, for values at every limb
// offset and of both signs; more additions follow.
func TestSumCarries(t *testing.T) {
	for _, x := range []float64{0.75, -0.75, math.MaxFloat64 / 3, -0x1p-1074, 0x1.fffffffffffffp-1000, -0x1.fffffffffffffp+1000, 12345.678} {
		for extra := range 3 {
			var one Sum
			one.Add(x)
			var s Sum
			for i := range s.limb {
				s.limb[i] = one.limb[i] * (carryEvery - 1)
			}
			s.pending = carryEvery - 1
			for range 1 + extra {
				s.Add(x)
			}
			if s.pending != int32(extra) {
				t.Fatalf("%v: %d pending after the propagation, want %d", x, s.pending, extra)
			}
			want := new(big.Float).SetPrec(200).SetFloat64(x)
			want.Mul(want, new(big.Float).SetInt64(carryEvery+int64(extra)))
			w, _ := want.Float64()
			if got := s.Value(); got != w {
				t.Errorf("%v·%d = %v, want %v", x, carryEvery+extra, got, w)
			}
		}
	}
}

func TestSumNonFinite(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, math.Inf(1)}, math.Inf(1)},
		{[]float64{math.Inf(-1), 5}, math.Inf(-1)},
		{[]float64{math.Inf(1), math.Inf(-1)}, math.NaN()},
		{[]float64{2, math.NaN()}, math.NaN()},
	} {
		var s Sum
		for _, x := range c.xs {
			s.Add(x)
		}
		got := s.Value()
		if s.Finite() || !(got == c.want || (math.IsNaN(got) && math.IsNaN(c.want))) {
			t.Errorf("%v: %v finite=%v, want %v", c.xs, got, s.Finite(), c.want)
		}
		var m Sum
		m.Merge(&s)
		if m.Finite() {
			t.Errorf("%v: merged sum is finite", c.xs)
		}
	}
}

// TestSumEncoding: binary and gob round trips keep the value and the flags;
// malformed encodings are refused.
func TestSumEncoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, xs := range [][]float64{nil, {-3.5}, wideValues(rng, 100), {1, math.Inf(-1)}} {
		var s Sum
		for _, x := range xs {
			s.Add(x)
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Sum
		if err := d.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(d.Value()) != math.Float64bits(s.Value()) || d.Finite() != s.Finite() {
			t.Errorf("binary round trip: %v, want %v", d.Value(), s.Value())
		}
		var buf bytes.Buffer
		r := Result{Nodes: 3, Leaves: 2, Height: 1, Sum: s}
		if err := gob.NewEncoder(&buf).Encode(r); err != nil {
			t.Fatal(err)
		}
		var g Result
		if err := gob.NewDecoder(&buf).Decode(&g); err != nil {
			t.Fatal(err)
		}
		if g.Nodes != 3 || g.Leaves != 2 || g.Height != 1 || math.Float64bits(g.Value()) != math.Float64bits(s.Value()) {
			t.Errorf("gob round trip: %+v value %v, want value %v", g, g.Value(), s.Value())
		}
	}
	var s Sum
	good, _ := s.MarshalBinary()
	for _, b := range [][]byte{nil, {8}, good[:len(good)-1], append(good, 0), append([]byte{0}, bytes.Repeat([]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x40}, 67)...)} {
		if err := s.UnmarshalBinary(b); err == nil {
			t.Errorf("UnmarshalBinary(%x) accepted", b)
		}
	}
}

// BenchmarkSumAdd compares Add with a plain float64 sum and Neumaier's
// compensated sum over the same values.
func BenchmarkSumAdd(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	xs := make([]float64, 4096)
	for i := range xs {
		xs[i] = rng.Float64() * math.Ldexp(1, rng.IntN(40)-20)
	}
	b.Run("exact", func(b *testing.B) {
		var s Sum
		for i := 0; b.Loop(); i++ {
			s.Add(xs[i&4095])
		}
	})
	b.Run("plain", func(b *testing.B) {
		var s float64
		for i := 0; b.Loop(); i++ {
			s += xs[i&4095]
		}
		_ = s
	})
	b.Run("neumaier", func(b *testing.B) {
		var s, c float64
		for i := 0; b.Loop(); i++ {
			x := xs[i&4095]
			t := s + x
			if math.Abs(s) >= math.Abs(x) {
				c += (s - t) + x
			} else {
				c += (x - t) + s
			}
			s = t
		}
		_ = s + c
	})
}
