package knap

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Class is a family of random instances.
type Class int

// The instance classes. Sanders is seed 002's class; the others are
// Pisinger's standard classes with coefficients up to R.
const (
	// Sanders: w_i uniform in [0.01, 1.01], p_i uniform in
	// [w_i + 0.1, w_i + 0.125], capacity Σw_i / 2, all in units of 10^-6.
	Sanders Class = iota
	// Uncorrelated: w_i and p_i uniform in [1, R].
	Uncorrelated
	// WeaklyCorrelated: w_i uniform in [1, R], p_i uniform in
	// [w_i − R/10, w_i + R/10], raised to 1 when below.
	WeaklyCorrelated
	// StronglyCorrelated: w_i uniform in [1, R], p_i = w_i + R/10.
	StronglyCorrelated
	// InverseStronglyCorrelated: p_i uniform in [1, R], w_i = p_i + R/10
	// (Pisinger's definition: here it is p_i, not w_i, that is uniform in
	// [1, R]).
	InverseStronglyCorrelated
	// AlmostStronglyCorrelated: w_i uniform in [1, R], p_i uniform in
	// [w_i + R/10 − R/500, w_i + R/10 + R/500].
	AlmostStronglyCorrelated
	// SubsetSum: w_i uniform in [1, R], p_i = w_i.
	SubsetSum
	nClasses
)

var classNames = [nClasses]string{"sanders", "uncorrelated", "weakly", "strongly", "inverse-strongly", "almost-strongly", "subset-sum"}

// String returns the class's name as ParseClass reads it.
func (c Class) String() string {
	if c >= 0 && c < nClasses {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Classes returns every class, seed 002's first.
func Classes() []Class {
	cs := make([]Class, nClasses)
	for i := range cs {
		cs[i] = Class(i)
	}
	return cs
}

// ParseClass returns the class called name (see Class.String).
func ParseClass(name string) (Class, error) {
	for c, n := range classNames {
		if n == name {
			return Class(c), nil
		}
	}
	return 0, fmt.Errorf("knapsack: unknown class %q (want one of %s)", name, strings.Join(classNames[:], ", "))
}

// GenConfig describes a random instance. The zero value asks for an empty
// sanders instance.
type GenConfig struct {
	Class Class
	M     int    // items, 0..MaxItems
	Seed  uint64 // the same seed gives the same instance on every machine
	// R is the coefficient range of Pisinger's classes, 1..MaxRange; 0
	// means 1000. The sanders class ignores it.
	R int64
	// Fraction is the capacity of Pisinger's classes as a fraction of Σw_i,
	// in (0, 1]; 0 means 1/2. The capacity is ⌊Fraction·Σw_i⌋, computed
	// exactly with Fraction as the shortest decimal that reads back as the
	// float64 (0.3 is 3/10, not its binary value). The sanders class
	// ignores it.
	Fraction float64
}

// MaxRange is the largest coefficient range R of Pisinger's classes, a
// quarter of the int64 range, with room for the profits the classes derive
// from weights up to R.
const MaxRange int64 = math.MaxInt64 / 4

// genStream is the PCG stream (increment selector) of the generator.
const genStream = 0x6b6e617073616b21 // "knapsak!"

// Generate returns the random instance cfg describes. It draws from a
// PCG-DXSM generator (math/rand/v2.NewPCG(cfg.Seed, 0x6b6e617073616b21)),
// only through its Uint64 method: a uniform integer in [0, k) is Lemire's
// multiply-and-reject on those 64-bit words (see uniform). Per item it draws
// the weight first, then the profit (inverse strongly correlated: the profit
// first), and all arithmetic is on integers, so the instance depends on
// nothing but cfg. It takes O(M) time.
func Generate(cfg GenConfig) (*Instance, error) {
	if cfg.M < 0 || cfg.M > MaxItems {
		return nil, fmt.Errorf("knapsack: %d items: want 0..%d", cfg.M, MaxItems)
	}
	if cfg.Class < 0 || cfg.Class >= nClasses {
		return nil, fmt.Errorf("knapsack: unknown class %d", int(cfg.Class))
	}
	r := cfg.R
	if r == 0 {
		r = 1000
	}
	f := cfg.Fraction
	if f == 0 {
		f = 0.5
	}
	if cfg.Class != Sanders {
		if r < 1 || r > MaxRange {
			return nil, fmt.Errorf("knapsack: coefficient range R = %d: want 1..%d", r, MaxRange)
		}
		if !(f > 0 && f <= 1) {
			return nil, fmt.Errorf("knapsack: capacity fraction %v: want a number in (0, 1]", f)
		}
	}
	src := rand.NewPCG(cfg.Seed, genStream)
	in := &Instance{Profit: make([]int64, cfg.M), Weight: make([]int64, cfg.M)}
	var sw int64
	for i := range cfg.M {
		var p, w int64
		switch cfg.Class {
		case Sanders:
			w = 10_000 + uniform(src, 1_000_001)
			p = w + 100_000 + uniform(src, 25_001)
		case Uncorrelated:
			w = 1 + uniform(src, r)
			p = 1 + uniform(src, r)
		case WeaklyCorrelated:
			w = 1 + uniform(src, r)
			p = max(1, w-r/10+uniform(src, 2*(r/10)+1))
		case StronglyCorrelated:
			w = 1 + uniform(src, r)
			p = w + r/10
		case InverseStronglyCorrelated:
			p = 1 + uniform(src, r)
			w = p + r/10
		case AlmostStronglyCorrelated:
			w = 1 + uniform(src, r)
			p = w + r/10 - r/500 + uniform(src, 2*(r/500)+1)
		case SubsetSum:
			w = 1 + uniform(src, r)
			p = w
		}
		if sw > math.MaxInt64-w {
			return nil, fmt.Errorf("knapsack: %d items with R = %d: %w", cfg.M, r, errSumWeight)
		}
		sw += w
		in.Profit[i], in.Weight[i] = p, w
	}
	if cfg.Class == Sanders {
		in.Capacity = sw / 2
	} else {
		// F as the decimal it was written as (the shortest that reads back
		// as the float64: 0.3, not 0.29999999999999998889…), exactly:
		// ⌊0.3·10⌋ is 3, where the binary value gave 2.
		c, ok := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
		if !ok {
			return nil, fmt.Errorf("knapsack: capacity fraction %v: not a decimal", f)
		}
		c.Mul(c, new(big.Rat).SetInt64(sw))
		in.Capacity = new(big.Int).Quo(c.Num(), c.Denom()).Int64() // c ≥ 0: truncation is the floor
	}
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("knapsack: %d items with R = %d: %w", cfg.M, r, err)
	}
	return in, nil
}

// uniform returns an integer uniform in [0, k), k ≥ 1, from src by Lemire's
// method: the high word of x·k for a 64-bit x, rejecting x when the low word
// falls below 2^64 mod k.
func uniform(src *rand.PCG, k int64) int64 {
	n := uint64(k)
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return int64(hi)
}
