package knap

import (
	"bytes"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestGenerateGolden pins the generator's output: the same seed must give
// the same instance on every machine and with every Go release.
func TestGenerateGolden(t *testing.T) {
	golden := map[Class]string{
		Sanders:                   "4\n635108 533034\n985203 878631\n910954 801643\n444504 339987\n1276647\n",
		Uncorrelated:              "4\n83 524\n263 869\n373 792\n181 330\n1257\n",
		WeaklyCorrelated:          "4\n440 524\n821 869\n766 792\n266 330\n1257\n",
		StronglyCorrelated:        "4\n624 524\n183 83\n969 869\n363 263\n869\n",
		InverseStronglyCorrelated: "4\n524 624\n83 183\n869 969\n263 363\n1069\n",
		AlmostStronglyCorrelated:  "4\n622 524\n968 869\n891 792\n428 330\n1257\n",
		SubsetSum:                 "4\n524 524\n83 83\n869 869\n263 263\n869\n",
	}
	for _, c := range Classes() {
		in, err := Generate(GenConfig{Class: c, M: 4, Seed: 2026})
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := in.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if buf.String() != golden[c] {
			t.Errorf("%v, seed 2026:\n%s\nwant\n%s", c, buf.String(), golden[c])
		}
	}
	// Large coefficients and a fraction that is not a binary fraction:
	// 0.3 is 0.29999999999999998889… as a float64, and ⌊0.3·Σw⌋ is taken
	// with 3/10.
	in, err := Generate(GenConfig{Class: StronglyCorrelated, M: 3, Seed: 7, R: 1_000_000_000_000, Fraction: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	want := Instance{
		Profit:   []int64{817803213302, 686649882055, 503622156024},
		Weight:   []int64{717803213302, 586649882055, 403622156024},
		Capacity: 512422575414,
	}
	if !reflect.DeepEqual(*in, want) {
		t.Errorf("strongly, R = 10^12, seed 7: %+v, want %+v", *in, want)
	}
	// Where F·Σw is whole: ⌊0.3·10⌋ = 3, ⌊0.7·10⌋ = 7 (the binary values
	// gave 2 and 6), subset-sum with R = 1 (every weight 1).
	for f, want := range map[float64]int64{0.3: 3, 0.7: 7, 0.29: 2, 0.5: 5, 1: 10} {
		in, err := Generate(GenConfig{Class: SubsetSum, M: 10, Seed: 1, R: 1, Fraction: f})
		if err != nil || in.Capacity != want {
			t.Errorf("subset-sum, 10 weights of 1, fraction %g: capacity %v, %v; want %d", f, in, err, want)
		}
	}
}

// TestGenerateClasses checks each class's definition on 2000 items.
func TestGenerateClasses(t *testing.T) {
	const m, r = 2000, 1000
	for _, c := range Classes() {
		for seed := range uint64(3) {
			frac := []float64{0.5, 0.25, 0.9}[seed]
			in, err := Generate(GenConfig{Class: c, M: m, Seed: seed, R: r, Fraction: frac})
			if err != nil {
				t.Fatal(err)
			}
			if in.Len() != m {
				t.Fatalf("%v: %d items", c, in.Len())
			}
			var sw int64
			for i, p := range in.Profit {
				w := in.Weight[i]
				sw += w
				var ok bool
				switch c {
				case Sanders:
					ok = w >= 10_000 && w <= 1_010_000 && p-w >= 100_000 && p-w <= 125_000
				case Uncorrelated:
					ok = w >= 1 && w <= r && p >= 1 && p <= r
				case WeaklyCorrelated:
					ok = w >= 1 && w <= r && p >= max(1, w-r/10) && p <= w+r/10
				case StronglyCorrelated:
					ok = w >= 1 && w <= r && p == w+r/10
				case InverseStronglyCorrelated:
					ok = p >= 1 && p <= r && w == p+r/10
				case AlmostStronglyCorrelated:
					ok = w >= 1 && w <= r && p >= w+r/10-r/500 && p <= w+r/10+r/500
				case SubsetSum:
					ok = w >= 1 && w <= r && p == w
				}
				if !ok {
					t.Fatalf("%v seed %d: item %d has p %d w %d", c, seed, i, p, w)
				}
			}
			want := sw / 2
			if c != Sanders {
				f := new(big.Rat).SetFloat64(frac)
				f.Mul(f, new(big.Rat).SetInt64(sw))
				want = new(big.Int).Quo(f.Num(), f.Denom()).Int64()
			}
			if in.Capacity != want {
				t.Fatalf("%v seed %d: capacity %d, want %d", c, seed, in.Capacity, want)
			}
			again, _ := Generate(GenConfig{Class: c, M: m, Seed: seed, R: r, Fraction: frac})
			other, _ := Generate(GenConfig{Class: c, M: m, Seed: seed + 10, R: r, Fraction: frac})
			if !reflect.DeepEqual(in, again) || reflect.DeepEqual(in.Weight, other.Weight) {
				t.Fatalf("%v: same seed differs or another seed repeats", c)
			}
		}
	}
}

// TestUniform: Lemire's method covers [0, k) evenly, small k exactly.
func TestUniform(t *testing.T) {
	in, _ := Generate(GenConfig{Class: Uncorrelated, M: 60000, Seed: 1, R: 3})
	var count [4]int
	for _, w := range in.Weight {
		count[w]++
	}
	for v := 1; v <= 3; v++ {
		if count[v] < 19000 || count[v] > 21000 {
			t.Fatalf("R = 3: value %d drawn %d times of 60000", v, count[v])
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	bad := []struct {
		cfg  GenConfig
		want string
	}{
		{GenConfig{M: -1}, "-1 items"},
		{GenConfig{Class: Class(99), M: 3}, "unknown class"},
		{GenConfig{Class: Uncorrelated, M: 3, R: -5}, "coefficient range R = -5"},
		{GenConfig{Class: Uncorrelated, M: 3, Fraction: 1.5}, "capacity fraction 1.5"},
		{GenConfig{Class: Uncorrelated, M: 3, Fraction: -0.5}, "capacity fraction -0.5"},
		{GenConfig{Class: SubsetSum, M: 100, R: 1 << 60}, "overflows"},
	}
	for _, b := range bad {
		if _, err := Generate(b.cfg); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Generate(%+v): %v, want an error with %q", b.cfg, err, b.want)
		}
	}
}

func TestParseClass(t *testing.T) {
	for _, c := range Classes() {
		if got, err := ParseClass(c.String()); got != c || err != nil {
			t.Errorf("ParseClass(%q) = %v, %v", c.String(), got, err)
		}
	}
	if _, err := ParseClass("nope"); err == nil || !strings.Contains(err.Error(), "sanders") {
		t.Errorf("ParseClass(nope): %v", err)
	}
}

// randomInstance returns a small random instance of class c.
func randomInstance(t testing.TB, rng *rand.Rand, c Class, maxM int) *Instance {
	t.Helper()
	cfg := GenConfig{
		Class:    c,
		M:        rng.IntN(maxM + 1),
		Seed:     rng.Uint64(),
		R:        []int64{1, 10, 100, 1000}[rng.IntN(4)],
		Fraction: []float64{0.05, 0.25, 0.5, 0.75, 0.95, 1}[rng.IntN(6)],
	}
	in, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
