// Package wire encodes the fixed part of the apps' results for lb's
// reductions and checkpoints: a result type with its own binary encoding
// travels in it instead of encoding/gob, whose decoder every rank compiles
// for every message. A tally is counts that must not be negative, then a
// digest, each a word of 8 bytes, little endian.
package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// AppendTally appends the counts, then the digest; a negative count is an
// error.
func AppendTally(b []byte, digest uint64, counts ...int64) ([]byte, error) {
	for i, c := range counts {
		if c < 0 {
			return nil, fmt.Errorf("count %d is negative (%d)", i, c)
		}
	}
	for _, c := range counts {
		b = binary.LittleEndian.AppendUint64(b, uint64(c))
	}
	return binary.LittleEndian.AppendUint64(b, digest), nil
}

// TallyPrefix decodes a tally of len(counts) counts from the start of b,
// each at most math.MaxInt64, and returns the rest of b.
func TallyPrefix(b []byte, digest *uint64, counts ...*int64) ([]byte, error) {
	n := 8 * (len(counts) + 1)
	if len(b) < n {
		return nil, fmt.Errorf("%d bytes, want at least %d", len(b), n)
	}
	for i, c := range counts {
		w := binary.LittleEndian.Uint64(b[8*i:])
		if w > math.MaxInt64 {
			return nil, fmt.Errorf("count %d out of range: %d", i, w)
		}
		*c = int64(w)
	}
	*digest = binary.LittleEndian.Uint64(b[n-8:])
	return b[n:], nil
}

// Tally decodes a tally that is the whole of b.
func Tally(b []byte, digest *uint64, counts ...*int64) error {
	rest, err := TallyPrefix(b, digest, counts...)
	if err == nil && len(rest) > 0 {
		err = fmt.Errorf("%d bytes after the tally", len(rest))
	}
	return err
}
