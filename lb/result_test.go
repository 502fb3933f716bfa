package lb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// gobResult has no binary encoding: it travels with encoding/gob.
type gobResult struct {
	Best  int64
	Items []int
}

// binResult has a binary encoding of its own, a varint and the items as
// varints, with MarshalBinary on the value: encodeResult must use it
// instead of gob.
type binResult struct {
	best  int64 // unexported: gob could not carry it
	items []int
}

func (r binResult) MarshalBinary() ([]byte, error) {
	if r.best < 0 {
		return nil, errors.New("negative best")
	}
	b := binary.AppendVarint(nil, r.best)
	for _, k := range r.items {
		b = binary.AppendVarint(b, int64(k))
	}
	return b, nil
}

func (r *binResult) UnmarshalBinary(b []byte) error {
	var out binResult
	for i := 0; len(b) > 0; i++ {
		v, k := binary.Varint(b)
		if k <= 0 {
			return errors.New("truncated")
		}
		b = b[k:]
		if i == 0 {
			out.best = v
		} else {
			out.items = append(out.items, int(v))
		}
	}
	*r = out
	return nil
}

// ptrResult has its MarshalBinary on the pointer.
type ptrResult struct{ n uint64 }

func (r *ptrResult) MarshalBinary() ([]byte, error) { return binary.AppendUvarint(nil, r.n), nil }

func (r *ptrResult) UnmarshalBinary(b []byte) error {
	v, k := binary.Uvarint(b)
	if k != len(b) {
		return errors.New("malformed")
	}
	r.n = v
	return nil
}

// TestResultEncoding: results with a binary encoding (on the value or on
// the pointer) travel in exactly that encoding, others with gob, and both
// decode to what was encoded; the errors of both ends carry lb's prefix.
func TestResultEncoding(t *testing.T) {
	b := binResult{best: 42, items: []int{3, 1, 4}}
	enc, err := encodeResult(b)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := b.MarshalBinary(); !bytes.Equal(enc, want) {
		t.Errorf("binResult encodes as %x, want its MarshalBinary %x", enc, want)
	}
	if got, err := decodeResult[binResult](enc); err != nil || !reflect.DeepEqual(got, b) {
		t.Errorf("binResult decodes to %+v, %v; want %+v", got, err, b)
	}

	p := ptrResult{n: 300}
	enc, err = encodeResult(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := binary.AppendUvarint(nil, 300); !bytes.Equal(enc, want) {
		t.Errorf("ptrResult encodes as %x, want its MarshalBinary %x", enc, want)
	}
	if got, err := decodeResult[ptrResult](enc); err != nil || got != p {
		t.Errorf("ptrResult decodes to %+v, %v; want %+v", got, err, p)
	}

	g := gobResult{Best: 7, Items: []int{2, 9}}
	enc, err = encodeResult(g)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(enc, []byte("gobResult")) {
		t.Errorf("gobResult's encoding %x does not look like gob's (no type name)", enc)
	}
	if got, err := decodeResult[gobResult](enc); err != nil || !reflect.DeepEqual(got, g) {
		t.Errorf("gobResult decodes to %+v, %v; want %+v", got, err, g)
	}

	if _, err := encodeResult(binResult{best: -1}); err == nil || !strings.HasPrefix(err.Error(), "lb: encoding a result: ") {
		t.Errorf("a failing MarshalBinary gives %v", err)
	}
	if _, err := decodeResult[binResult]([]byte{0x80}); err == nil || !strings.HasPrefix(err.Error(), "lb: decoding a result: ") {
		t.Errorf("a failing UnmarshalBinary gives %v", err)
	}
	if _, err := decodeResult[gobResult]([]byte{1, 2, 3}); err == nil || !strings.HasPrefix(err.Error(), "lb: decoding a result: ") {
		t.Errorf("malformed gob gives %v", err)
	}
}
