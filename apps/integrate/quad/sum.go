package quad

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
)

// The accumulator is a fixed-point number wide enough for every float64: a
// finite float64 is ±m·2^e with an integer m < 2^53 and −1074 ≤ e ≤ 971, so
// its bits lie at positions e+1074 ∈ [0, 2098) above 2^−1074. They are kept
// in 32-bit limbs, each in an int64 so that carries can wait: a limb gains
// less than 2^32 in magnitude per Add, and carries are propagated every
// 2^30 Adds, long before an int64 could overflow. The top limb holds the
// sign and the headroom for sums beyond the float64 range.
const (
	sumLimbs   = 67 // 66 limbs for positions 0..2111, one for carries and sign
	limbBits   = 32 // bits per limb once normalised
	limbMask   = 1<<32 - 1
	carryEvery = 1 << 30 // Adds between carry propagations
	maxTop     = 1 << 40 // bound on the normalised top limb (sums of < 2^40·2^1024)
)

// Sum is an exact accumulator of float64 values: it holds the sum of
// everything added with no rounding at all, and rounds once, to the nearest
// float64, when Value is called. The sum therefore does not depend on the
// order of the additions or on how partial sums were merged: any split of
// the same terms among ranks and any reduction tree give the bit-identical
// Value. Infinities and NaNs are remembered and make Value non-finite as
// IEEE 754 addition would.
//
// The zero value is an empty sum. A Sum is not safe for concurrent use. Add
// is O(1) and allocates nothing; Merge and the encodings are O(67); Value is
// O(67) with a few allocations (math/big).
type Sum struct {
	limb                [sumLimbs]int64
	pending             int32 // Adds since the last carry propagation
	nan, posInf, negInf bool
}

// Add adds x exactly.
func (s *Sum) Add(x float64) {
	bits := math.Float64bits(x)
	exp := int(bits>>52) & 0x7ff
	m := bits & (1<<52 - 1)
	switch {
	case exp == 0x7ff:
		switch {
		case m != 0:
			s.nan = true
		case bits>>63 != 0:
			s.negInf = true
		default:
			s.posInf = true
		}
		return
	case exp == 0:
		if m == 0 {
			return // ±0
		}
		exp = 1 // subnormal: m·2^−1074
	default:
		m |= 1 << 52
	}
	// x = ±m·2^(exp−1075): its lowest bit sits at position exp−1 above 2^−1074.
	p := uint(exp - 1)
	k, sh := p/limbBits, p%limbBits
	lo := int64((m << sh) & limbMask)
	mid := int64((m >> (limbBits - sh)) & limbMask)
	hi := int64(m >> (64 - sh)) // 0 when sh = 0
	if bits>>63 != 0 {
		lo, mid, hi = -lo, -mid, -hi
	}
	s.limb[k] += lo
	s.limb[k+1] += mid
	s.limb[k+2] += hi
	s.pending++
	if s.pending == carryEvery {
		s.normalize()
	}
}

// normalize propagates the carries: afterwards every limb but the top lies
// in [0, 2^32) and the top limb carries the sign.
func (s *Sum) normalize() {
	for i := 0; i < sumLimbs-1; i++ {
		c := s.limb[i] >> limbBits // floor division: the remainder is ≥ 0
		s.limb[i] -= c << limbBits
		s.limb[i+1] += c
	}
	s.pending = 0
}

// Merge adds the terms of o to s; o is not changed.
func (s *Sum) Merge(o *Sum) {
	oc := *o
	oc.normalize()
	s.normalize()
	for i := range s.limb {
		s.limb[i] += oc.limb[i]
	}
	s.normalize()
	s.nan = s.nan || oc.nan
	s.posInf = s.posInf || oc.posInf
	s.negInf = s.negInf || oc.negInf
}

// Finite reports whether every term added was finite.
func (s *Sum) Finite() bool { return !s.nan && !s.posInf && !s.negInf }

// Value returns the exact sum rounded to the nearest float64 (ties to
// even): ±Inf beyond the float64 range, NaN if a NaN or infinities of both
// signs were added, the infinity if one was.
func (s *Sum) Value() float64 {
	switch {
	case s.nan || (s.posInf && s.negInf):
		return math.NaN()
	case s.posInf:
		return math.Inf(1)
	case s.negInf:
		return math.Inf(-1)
	}
	c := *s
	c.normalize()
	v := big.NewInt(c.limb[sumLimbs-1])
	var l big.Int
	for i := sumLimbs - 2; i >= 0; i-- {
		v.Lsh(v, limbBits)
		v.Add(v, l.SetInt64(c.limb[i]))
	}
	var f big.Float // precision 0: SetInt keeps every bit
	f.SetInt(v)
	f.SetMantExp(&f, -1074)
	x, _ := f.Float64()
	return x
}

// AppendBinary appends the encoding of s: a flags byte and the 67
// normalised limbs as zig-zag varints (a byte for each zero limb).
func (s *Sum) AppendBinary(b []byte) ([]byte, error) {
	c := *s
	c.normalize()
	var flags byte
	if c.nan {
		flags |= 1
	}
	if c.posInf {
		flags |= 2
	}
	if c.negInf {
		flags |= 4
	}
	b = append(b, flags)
	for _, l := range c.limb {
		b = binary.AppendVarint(b, l)
	}
	return b, nil
}

// MarshalBinary encodes s (also how encoding/gob sends it). Its receiver
// is a value so that gob can encode a Sum inside a Result passed by value.
func (s Sum) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// UnmarshalBinary decodes an encoding made by AppendBinary or MarshalBinary.
func (s *Sum) UnmarshalBinary(b []byte) error {
	var d Sum
	if len(b) < 1 || b[0] > 7 {
		return errors.New("quad: malformed sum")
	}
	d.nan, d.posInf, d.negInf = b[0]&1 != 0, b[0]&2 != 0, b[0]&4 != 0
	b = b[1:]
	for i := range d.limb {
		l, n := binary.Varint(b)
		if n <= 0 {
			return errors.New("quad: malformed sum: short limbs")
		}
		b = b[n:]
		if (i < sumLimbs-1 && (l < 0 || l > limbMask)) || (i == sumLimbs-1 && (l > maxTop || l < -maxTop)) {
			return errors.New("quad: malformed sum: limb out of range")
		}
		d.limb[i] = l
	}
	if len(b) != 0 {
		return errors.New("quad: malformed sum: trailing bytes")
	}
	*s = d
	return nil
}
