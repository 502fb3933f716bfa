package knap

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// A Result's binary encoding (Result.AppendBinary), what the final
// reduction of a parallel search carries between ranks: a tag byte saying
// how the items are stored, Profit, Weight and Nodes as signed varints, then
// the items, either
//
//   - resultList: their number k and k unsigned varints, the first item and
//     then each item's distance from the one before less one; or
//   - resultBits: the number of bits n (the last item plus one, 0 for none)
//     and ⌈n/8⌉ bytes, item i being bit i%8 of byte i/8; the last bit is set
//     and the bits past it in the last byte are clear.
//
// The encoder picks the shorter (the list on a tie): a bitset for a dense
// set (seed 002's optimal sets hold about 70% of the items: 250 bytes for
// 2000 items), the list for a sparse one.
const (
	resultList = 'L'
	resultBits = 'B'
)

var (
	_ interface {
		AppendBinary([]byte) ([]byte, error)
		MarshalBinary() ([]byte, error)
	} = Result{}
	_ interface{ UnmarshalBinary([]byte) error } = (*Result)(nil)
)

// AppendBinary appends r's binary encoding to b, in O(len(r.Items)) time.
// It implements encoding.BinaryAppender. r.Items must be strictly
// ascending indices below MaxItems, as every Result of a search has them.
func (r Result) AppendBinary(b []byte) ([]byte, error) {
	listLen, prev := uvarintLen(uint64(len(r.Items))), -1
	for _, k := range r.Items {
		if k <= prev || k >= MaxItems {
			return nil, fmt.Errorf("knapsack: result items %v are not strictly ascending indices below %d", r.Items, MaxItems)
		}
		listLen += uvarintLen(uint64(k - prev - 1))
		prev = k
	}
	n := prev + 1 // bits of the bitset
	bitsLen := uvarintLen(uint64(n)) + (n+7)/8
	if listLen <= bitsLen {
		b = append(b, resultList)
	} else {
		b = append(b, resultBits)
	}
	b = binary.AppendVarint(b, r.Profit)
	b = binary.AppendVarint(b, r.Weight)
	b = binary.AppendVarint(b, r.Nodes)
	if listLen <= bitsLen {
		b = binary.AppendUvarint(b, uint64(len(r.Items)))
		prev = -1
		for _, k := range r.Items {
			b = binary.AppendUvarint(b, uint64(k-prev-1))
			prev = k
		}
		return b, nil
	}
	b = binary.AppendUvarint(b, uint64(n))
	start := len(b)
	b = append(b, make([]byte, (n+7)/8)...)
	for _, k := range r.Items {
		b[start+k/8] |= 1 << (k % 8)
	}
	return b, nil
}

// MarshalBinary returns r's binary encoding (see AppendBinary). It
// implements encoding.BinaryMarshaler, which encoding/gob and package lb's
// reduction use.
func (r Result) MarshalBinary() ([]byte, error) {
	return r.AppendBinary(nil)
}

// UnmarshalBinary sets *r to the Result that b encodes, as AppendBinary
// writes it. It implements encoding.BinaryUnmarshaler. b may come from
// anywhere: malformed bytes give an error, never a panic, and the items
// it allocates are at most 8·len(b).
func (r *Result) UnmarshalBinary(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("knapsack: malformed result: empty")
	}
	d := &decoder{b: b[1:]}
	var out Result
	out.Profit = d.int("profit")
	out.Weight = d.int("weight")
	out.Nodes = d.int("nodes")
	switch b[0] {
	case resultList:
		k := d.count("items")
		if d.err == nil && k > 0 {
			out.Items = make([]int, k)
		}
		prev := -1
		for i := range out.Items {
			prev += 1 + int(d.uint(MaxItems-1, "item distance"))
			if prev >= MaxItems && d.err == nil {
				d.err = fmt.Errorf("item %d out of range 0..%d", prev, MaxItems-1)
			}
			out.Items[i] = prev
		}
	case resultBits:
		n := int(d.uint(MaxItems, "bits"))
		if d.err != nil || n == 0 {
			break
		}
		if (n+7)/8 > len(d.b) {
			d.err = fmt.Errorf("%d bits in %d bytes: %w", n, len(d.b), errTruncated)
			break
		}
		set := d.b[:(n+7)/8]
		d.b = d.b[len(set):]
		last := set[len(set)-1]
		if last>>((n-1)%8) != 1 {
			d.err = fmt.Errorf("bit %d, the last, clear or bits set past it", n-1)
			break
		}
		k := 0
		for _, c := range set {
			k += bits.OnesCount8(c)
		}
		out.Items = make([]int, 0, k)
		for i, c := range set {
			for ; c != 0; c &= c - 1 {
				out.Items = append(out.Items, 8*i+bits.TrailingZeros8(c))
			}
		}
	default:
		return fmt.Errorf("knapsack: malformed result: tag %q", b[0])
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes after the result", len(d.b))
	}
	if d.err != nil {
		return fmt.Errorf("knapsack: malformed result: %w", d.err)
	}
	*r = out
	return nil
}

// uvarintLen returns the length of v's unsigned varint.
func uvarintLen(v uint64) int {
	return (bits.Len64(v|1) + 6) / 7
}
