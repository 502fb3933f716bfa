package knap

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cases := []struct {
		text  string
		scale int64
		want  Instance
	}{
		{"3\n10 5\n7 3\n0 0\n8\n", 0, Instance{Profit: []int64{10, 7, 0}, Weight: []int64{5, 3, 0}, Capacity: 8}},
		{"\n 2 \r\n\t4\t2 \r\n\n1 1\n\n3\n\n", 0, Instance{Profit: []int64{4, 1}, Weight: []int64{2, 1}, Capacity: 3}},
		{"0\n5\n", 0, Instance{Profit: []int64{}, Weight: []int64{}, Capacity: 5}},
		{"1\n+7 0\n0", 0, Instance{Profit: []int64{7}, Weight: []int64{0}, Capacity: 0}},
		{"1\n9223372036854775806 9223372036854775807\n9223372036854775807\n", 0,
			Instance{Profit: []int64{1<<63 - 2}, Weight: []int64{1<<63 - 1}, Capacity: 1<<63 - 1}},
		// Decimals: x·scale rounded to the nearest integer, halves up.
		{"4\n0.5 1.25\n1.24 .05\n3. 0.04999\n2 0\n12.5\n", 10,
			Instance{Profit: []int64{5, 12, 30, 20}, Weight: []int64{13, 1, 0, 0}, Capacity: 125}},
		{"1\n0.1234565 1.0100005\n2.5\n", 1_000_000,
			Instance{Profit: []int64{123457}, Weight: []int64{1010001}, Capacity: 2_500_000}},
		{"1\n0.000000000000000000000000001 7\n1\n", 1, Instance{Profit: []int64{0}, Weight: []int64{7}, Capacity: 1}},
		{"1\n3 4\n5\n", 1, Instance{Profit: []int64{3}, Weight: []int64{4}, Capacity: 5}},
		// A byte-order mark before the first line (Windows editors).
		{"\ufeff1\r\n3 4\r\n5\r\n", 0, Instance{Profit: []int64{3}, Weight: []int64{4}, Capacity: 5}},
	}
	for _, c := range cases {
		in, err := Parse(strings.NewReader(c.text), c.scale)
		if err != nil {
			t.Fatalf("Parse(%q, %d): %v", c.text, c.scale, err)
		}
		if !reflect.DeepEqual(*in, c.want) {
			t.Errorf("Parse(%q, %d) = %+v, want %+v", c.text, c.scale, *in, c.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		text  string
		scale int64
		want  string
	}{
		{"", 0, "empty input"},
		{"\n  \n", 0, "empty input"},
		{"x\n", 0, `line 1: item count "x" is not a number`},
		{"-3\n", 0, "line 1: negative item count -3"},
		{"2 3\n", 0, "line 1: want the number of items alone, got 2 fields"},
		{"1073741825\n", 0, "line 1: 1073741825 items, at most 1073741824"},
		{"2\n1 2\n5\n", 0, "line 3: count mismatch: line 1 declares 2 items, but only 1 item line precedes the capacity"},
		{"\n3\n1 2\n\n3 4\n5\n", 0, "line 6: count mismatch: line 2 declares 3 items, but only 2 item lines"},
		{"2\n1 2\n3 4\n", 0, "line 4: the capacity line is missing after 2 items"},
		{"2\n1 2\n", 0, "line 3: input ends after 1 of the 2 items declared on line 1"},
		{"0\n", 0, "line 2: the capacity line is missing after 0 items"},
		{"1\n1 2\n3 4\n5\n", 0, "line 3: count mismatch: line 1 declares 1 item, but more item lines follow"},
		{"1\n5 5\n\n\n   \n7 8\n", 0, "line 6: count mismatch"},
		{"1\n1 2\n5\n6\n", 0, "line 4: extra line after the capacity"},
		{"1\n1 2\n5 6 7\n", 0, "line 3: want the capacity alone, got 3 fields"},
		{"1\n1 2 3\n5\n", 0, `line 2: want "profit weight" for item 1, got 3 fields`},
		{"2\n1 2\n7\n5\n", 0, `line 3: want "profit weight" for item 2, got 1 field`},
		{"1\n1 -2\n5\n", 0, "line 2: negative weight -2"},
		{"1\n-1 2\n5\n", 0, "line 2: negative profit -1"},
		{"1\n1 2\n-5\n", 0, "line 3: negative capacity -5"},
		{"1\n1 2\n-0.5\n", 10, "line 3: negative capacity -0.5"},
		{"1\na 2\n5\n", 0, `line 2: profit "a" is not a number`},
		{"1\n1 0x10\n5\n", 0, `line 2: weight "0x10" is not a number`},
		{"1\n1 2\nfive\n", 0, `line 3: capacity "five" is not a number`},
		{"1\n99999999999999999999 2\n5\n", 0, "line 2: profit 99999999999999999999 overflows int64"},
		{"1\n1 2\n9223372036854775808\n", 0, "line 3: capacity 9223372036854775808 overflows int64"},
		{"2\n9223372036854775000 1\n1000 1\n5\n", 0, "line 3: the sum of the profits exceeds 2^63 − 2"},
		{"1\n9223372036854775807 1\n5\n", 0, "line 2: the sum of the profits exceeds"},
		{"2\n1 9223372036854775000\n1 1000\n5\n", 0, "line 3: the sum of the weights overflows int64"},
		{"1\n1.5 2\n5\n", 0, "line 2: profit 1.5 is not an integer (decimal numbers need a scale)"},
		{"1\n1e3 2\n5\n", 1000, `line 2: profit "1e3" is not a number`},
		{"1\n1..5 2\n5\n", 1000, `line 2: profit "1..5" is not a number`},
		{"1\n. 2\n5\n", 1000, `line 2: profit "." is not a number`},
		{"1\n100 2\n5\n", 1_000_000_000_000_000_000, "line 2: profit 100 × 1000000000000000000 overflows int64"},
		{"1\n1 2\n" + strings.Repeat("1", 2<<20) + "\n", 0, "knapsack: line 3: longer than 1048576 bytes"},
		{"1\n1 2\n5\n", -1, "negative scale -1"},
		{"2.0\n1 1\n2 2\n5\n", 10, "line 1: item count 2.0 is not an integer"}, // no scale applies to the count
		{"1\n" + strings.Repeat("1", 100) + " 2\n5\n", 0, "line 2: profit " + strings.Repeat("1", 40) + "… (100 bytes) overflows int64"},
		{"1\n" + strings.Repeat("x", 100) + " 2\n5\n", 0, `line 2: profit "` + strings.Repeat("x", 40) + `"… (100 bytes) is not a number`},
	}
	for _, c := range cases {
		in, err := Parse(strings.NewReader(c.text), c.scale)
		if err == nil {
			t.Errorf("Parse(%.40q, %d) = %+v, want an error with %q", c.text, c.scale, in, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "knapsack: ") {
			t.Errorf("Parse(%.40q, %d): error %q, want one with %q", c.text, c.scale, err, c.want)
		}
	}
}

func TestWriteParseRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range Classes() {
		for range 20 {
			in := randomInstance(t, rng, c, 100)
			var buf bytes.Buffer
			n, err := in.WriteTo(&buf)
			if err != nil || n != int64(buf.Len()) {
				t.Fatalf("WriteTo: %d bytes, %v; buffer has %d", n, err, buf.Len())
			}
			out, err := Parse(&buf, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(in, out) {
				t.Fatalf("round trip changed the instance:\n%+v\n%+v", in, out)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, in := range invalidInstances() {
		if err := in.Validate(); err == nil {
			t.Errorf("Validate(%+v) accepted it", in)
		}
	}
	in := &Instance{Profit: []int64{1, 2, 3}, Weight: []int64{4, 5, 6}, Capacity: 10}
	for _, items := range [][]int{{0, 2, 0}, {3}, {-1}, {1, 2}} {
		if _, _, err := in.Check(items); err == nil {
			t.Errorf("Check(%v) accepted it", items)
		}
	}
	if p, w, err := in.Check([]int{2, 0}); p != 4 || w != 10 || err != nil {
		t.Errorf("Check([2 0]) = %d %d %v", p, w, err)
	}
}

// invalidInstances are instances Validate must reject.
func invalidInstances() []*Instance {
	return []*Instance{
		{Profit: []int64{1}, Weight: []int64{}},
		{Profit: []int64{1}, Weight: []int64{-1}},
		{Profit: []int64{-1}, Weight: []int64{1}},
		{Capacity: -1},
		{Profit: []int64{1 << 62, 1 << 62}, Weight: []int64{1, 1}},
		{Profit: []int64{1, 1}, Weight: []int64{1 << 62, 1 << 62}},
	}
}

// TestParseScaledZeroed: the nonzero numbers a scale rounds to 0 are
// counted, with the first one's line; exact zeros and integers are not.
func TestParseScaledZeroed(t *testing.T) {
	text := "3\n0 0.25\n0.4 2\n0.00 0.5\n0.3\n"
	for _, c := range []struct {
		scale int64
		want  Zeroed
	}{{1, Zeroed{Count: 3, First: 2}}, {10, Zeroed{}}, {2, Zeroed{}}} {
		_, z, err := ParseScaled(strings.NewReader(text), c.scale)
		if err != nil || z != c.want {
			t.Errorf("scale %d: %+v, %v; want %+v", c.scale, z, err, c.want)
		}
	}
}
