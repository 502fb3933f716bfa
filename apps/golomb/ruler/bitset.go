package ruler

import "math/bits"

// bitset is a set of distances 0..255, bit i standing for distance i. The
// zero value is the empty set.
type bitset [4]uint64

// shl returns the set with every distance increased by d (0 < d < 256);
// distances past 255 fall off.
func (b *bitset) shl(d uint) bitset {
	q, r := d>>6, d&63
	var o bitset
	switch q {
	case 0:
		o[0] = b[0] << r
		o[1] = b[1]<<r | b[0]>>(64-r)
		o[2] = b[2]<<r | b[1]>>(64-r)
		o[3] = b[3]<<r | b[2]>>(64-r)
	case 1:
		o[1] = b[0] << r
		o[2] = b[1]<<r | b[0]>>(64-r)
		o[3] = b[2]<<r | b[1]>>(64-r)
	case 2:
		o[2] = b[0] << r
		o[3] = b[1]<<r | b[0]>>(64-r)
	case 3:
		o[3] = b[0] << r
	}
	return o
}

// shr returns the set with every distance decreased by d (0 < d < 256);
// distances below 0 fall off.
func (b *bitset) shr(d uint) bitset {
	q, r := d>>6, d&63
	var o bitset
	switch q {
	case 0:
		o[0] = b[0]>>r | b[1]<<(64-r)
		o[1] = b[1]>>r | b[2]<<(64-r)
		o[2] = b[2]>>r | b[3]<<(64-r)
		o[3] = b[3] >> r
	case 1:
		o[0] = b[1]>>r | b[2]<<(64-r)
		o[1] = b[2]>>r | b[3]<<(64-r)
		o[2] = b[3] >> r
	case 2:
		o[0] = b[2]>>r | b[3]<<(64-r)
		o[1] = b[3] >> r
	case 3:
		o[0] = b[3] >> r
	}
	return o
}

// lowest returns the smallest distance in b, or 256 when b is empty.
func (b *bitset) lowest() uint {
	switch {
	case b[0] != 0:
		return uint(bits.TrailingZeros64(b[0]))
	case b[1] != 0:
		return 64 + uint(bits.TrailingZeros64(b[1]))
	case b[2] != 0:
		return 128 + uint(bits.TrailingZeros64(b[2]))
	case b[3] != 0:
		return 192 + uint(bits.TrailingZeros64(b[3]))
	}
	return 256
}

func (b *bitset) empty() bool { return b[0]|b[1]|b[2]|b[3] == 0 }

func (b *bitset) has(d uint) bool { return b[d>>6]&(1<<(d&63)) != 0 }

func (b *bitset) clear(d uint) { b[d>>6] &^= 1 << (d & 63) }

func (b *bitset) set(d uint) { b[d>>6] |= 1 << (d & 63) }

// below returns the set of the distances 0..m-1 (m ≤ 256).
func below(m int) bitset {
	var o bitset
	for w := range o {
		switch lo := 64 * w; {
		case m >= lo+64:
			o[w] = ^uint64(0)
		case m > lo:
			o[w] = 1<<uint(m-lo) - 1
		}
	}
	return o
}

// and returns the intersection of b and c.
func (b *bitset) and(c bitset) bitset {
	return bitset{b[0] & c[0], b[1] & c[1], b[2] & c[2], b[3] & c[3]}
}

// count returns the number of distances in b.
func (b *bitset) count() int {
	return bits.OnesCount64(b[0]) + bits.OnesCount64(b[1]) + bits.OnesCount64(b[2]) + bits.OnesCount64(b[3])
}

// alternate returns every other distance of b, starting with the smallest:
// the distances with an even number of smaller ones in b. O(1): a prefix
// parity per word.
func (b *bitset) alternate() bitset {
	var o bitset
	odd := uint64(0) // parity of the distances in the words before
	for w, x := range b {
		// p has bit i set when x has an odd number of bits below i.
		p := x << 1
		p ^= p << 1
		p ^= p << 2
		p ^= p << 4
		p ^= p << 8
		p ^= p << 16
		p ^= p << 32
		o[w] = x &^ (p ^ -odd)
		odd ^= uint64(bits.OnesCount64(x) & 1)
	}
	return o
}
