package wire

import (
	"bytes"
	"math"
	"testing"
)

func TestTally(t *testing.T) {
	b, err := AppendTally([]byte{9}, 1<<63+5, 0, 1, math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 33 || b[0] != 9 {
		t.Fatalf("%x: want 9 then four words", b)
	}
	var x, y, z int64
	var d uint64
	if err := Tally(b[1:], &d, &x, &y, &z); err != nil || x != 0 || y != 1 || z != math.MaxInt64 || d != 1<<63+5 {
		t.Fatalf("got %d %d %d %d (%v)", x, y, z, d, err)
	}
	rest, err := TallyPrefix(append(b[1:], 7), &d, &x, &y, &z)
	if err != nil || !bytes.Equal(rest, []byte{7}) {
		t.Fatalf("the rest: %x (%v)", rest, err)
	}
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{append(b[1:], 7), "1 bytes after the tally"},
		{b[1:32], "31 bytes, want at least 32"},
		{append(bytes.Repeat([]byte{0xff}, 8), make([]byte, 24)...), "count 0 out of range: 18446744073709551615"},
	} {
		if err := Tally(c.b, &d, &x, &y, &z); err == nil || err.Error() != c.want {
			t.Errorf("%x: %v, want %q", c.b, err, c.want)
		}
	}
	if _, err := AppendTally(nil, 0, 3, -1); err == nil || err.Error() != "count 1 is negative (-1)" {
		t.Errorf("a negative count: %v", err)
	}
}
