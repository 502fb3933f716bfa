package lbtest

import (
	"bytes"
	"encoding"
	"strings"
	"testing"
)

// CanonicalEncoding is the body of a fuzz test of a result's binary
// encoding (lb's reductions use it instead of gob): data either fails to
// decode as a T with an error that starts with prefix, or decodes to a T
// that encodes back to data exactly, so that every value has one encoding.
// O(len(data)) plus the codec's cost.
func CanonicalEncoding[T encoding.BinaryMarshaler, PT interface {
	*T
	encoding.BinaryUnmarshaler
}](t testing.TB, prefix string, data []byte) {
	t.Helper()
	var v T
	if err := PT(&v).UnmarshalBinary(data); err != nil {
		if !strings.HasPrefix(err.Error(), prefix) {
			t.Fatalf("an error without the prefix %q: %v", prefix, err)
		}
		return
	}
	b, err := v.MarshalBinary()
	if err != nil || !bytes.Equal(b, data) {
		t.Fatalf("%x decodes to %+v, which encodes to %x (%v)", data, v, b, err)
	}
}

// FuzzCanonicalEncoding runs CanonicalEncoding as f's fuzz target, with the
// encodings of seeds and a few bytes of junk in the corpus.
func FuzzCanonicalEncoding[T encoding.BinaryMarshaler, PT interface {
	*T
	encoding.BinaryUnmarshaler
}](f *testing.F, prefix string, seeds ...T) {
	for _, v := range seeds {
		b, err := v.MarshalBinary()
		if err != nil {
			f.Fatalf("seed %+v: %v", v, err)
		}
		f.Add(b)
	}
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) { CanonicalEncoding[T, PT](t, prefix, data) })
}
