package knap

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// roundTrip encodes r, checks the encoding's tag and that it decodes to r,
// and returns its length.
func roundTrip(t *testing.T, r Result, tag byte) int {
	t.Helper()
	b, err := r.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != tag {
		t.Errorf("%d items up to %v: tag %q, want %q", len(r.Items), r.Items[max(len(r.Items)-1, 0):], b[0], tag)
	}
	var got Result
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatalf("%x: %v", b, err)
	}
	if len(r.Items) == 0 {
		r.Items = nil // decoded as nil, as gob decoded it
	}
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("round trip of %+v gives %+v", r, got)
	}
	if app, _ := r.AppendBinary([]byte("xy")); !bytes.Equal(app, append([]byte("xy"), b...)) {
		t.Errorf("AppendBinary does not append MarshalBinary's bytes")
	}
	return len(b)
}

// TestResultBinary: results with no items, all items, dense and sparse
// sets and seed 002's instance size survive the binary encoding, each in
// the shorter form (a bitset of ⌈m/8⌉ bytes for dense sets, a list of
// about a byte an item for sparse ones), as do extreme and negative
// numbers.
func TestResultBinary(t *testing.T) {
	roundTrip(t, Result{}, resultList)
	if n := roundTrip(t, Result{Profit: 5, Weight: 3, Items: []int{}, Nodes: 1}, resultList); n != 5 {
		t.Errorf("an empty set takes %d bytes, want 5", n)
	}
	roundTrip(t, Result{Profit: math.MaxInt64, Weight: math.MinInt64, Items: []int{0}, Nodes: -1}, resultList)
	roundTrip(t, Result{Items: []int{MaxItems - 1}}, resultList)

	const m = 2000
	all := make([]int, m)
	for i := range all {
		all[i] = i
	}
	if n := roundTrip(t, Result{Profit: 1 << 40, Weight: 1 << 39, Items: all, Nodes: 1 << 33}, resultBits); n > 1+3*6+2+m/8 {
		t.Errorf("all %d items take %d bytes", m, n)
	}
	var dense, sparse, spread []int
	for i := range m {
		if i%10 != 3 {
			dense = append(dense, i)
		}
		if i%97 == 5 {
			sparse = append(sparse, i)
		}
		if i%7 == 0 {
			spread = append(spread, i) // 286 items: 288 list bytes, 252 bitset bytes
		}
	}
	if n := roundTrip(t, Result{Items: dense}, resultBits); n != 1+3+2+m/8 {
		t.Errorf("dense: %d bytes", n)
	}
	if n := roundTrip(t, Result{Items: sparse}, resultList); n != 1+3+1+len(sparse) {
		t.Errorf("sparse: %d bytes, want %d", n, 1+3+1+len(sparse))
	}
	roundTrip(t, Result{Items: spread}, resultBits)
	roundTrip(t, Result{Items: []int{7, 8, 9, 15}}, resultBits) // items in 5 list bytes or 3 bitset bytes
	roundTrip(t, Result{Items: []int{7}}, resultList)           // 2 bytes either way: the list

	// A solved instance of seed 002's class and size.
	in, err := Generate(GenConfig{Class: Sanders, M: m, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Solve(in, HS)
	if err != nil {
		t.Fatal(err)
	}
	n := roundTrip(t, r, resultBits)
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(struct {
		Profit, Weight int64
		Items          []int
		Nodes          int64
	}(r)); err != nil {
		t.Fatal(err)
	}
	t.Logf("m = %d, %d items chosen: %d bytes, gob of the fields %d bytes", m, len(r.Items), n, g.Len())
}

// TestResultBinaryErrors: AppendBinary refuses items that are not strictly
// ascending indices, and UnmarshalBinary malformed bytes, with the
// package's prefix.
func TestResultBinaryErrors(t *testing.T) {
	for _, items := range [][]int{{3, 3}, {4, 2}, {-1}, {MaxItems}} {
		if _, err := (Result{Items: items}).MarshalBinary(); err == nil || !strings.HasPrefix(err.Error(), "knapsack: ") {
			t.Errorf("items %v: %v", items, err)
		}
	}
	bad := map[string][]byte{
		"empty":            {},
		"tag":              {'X', 0, 0, 0},
		"truncated":        {resultList, 2, 4},
		"no items":         {resultList, 2, 4, 6},
		"missing items":    {resultList, 0, 0, 0, 3, 1, 1},
		"forged count":     {resultList, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1},
		"trailing":         {resultList, 0, 0, 0, 1, 1, 0},
		"item range":       {resultList, 0, 0, 0, 2, 0x80, 0x80, 0x80, 0x80, 0x04, 0},
		"forged bits":      {resultBits, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1},
		"short bitset":     {resultBits, 0, 0, 0, 9, 0xff},
		"last bit clear":   {resultBits, 0, 0, 0, 4, 0x03},
		"bits past last":   {resultBits, 0, 0, 0, 4, 0x18},
		"trailing bitset":  {resultBits, 0, 0, 0, 1, 1, 0},
		"varint overflow":  {resultList, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0, 0, 0},
		"bits above range": {resultBits, 0, 0, 0, 0x81, 0x80, 0x80, 0x80, 0x04},
	}
	for name, b := range bad {
		r := Result{Profit: 9}
		err := r.UnmarshalBinary(b)
		if err == nil || !strings.HasPrefix(err.Error(), "knapsack: malformed result") {
			t.Errorf("%s (%x): %v, %+v", name, b, err, r)
		}
		if r.Profit != 9 {
			t.Errorf("%s: a failed UnmarshalBinary changed the result to %+v", name, r)
		}
	}
}

// TestResultGobJSON: gob carries a Result in its binary encoding, and its
// JSON form is still its fields (the command's --json output).
func TestResultGobJSON(t *testing.T) {
	r := Result{Profit: 10, Weight: 7, Items: []int{1, 4}, Nodes: 3}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(r); err != nil {
		t.Fatal(err)
	}
	var got Result
	if err := gob.NewDecoder(&b).Decode(&got); err != nil || !reflect.DeepEqual(got, r) {
		t.Errorf("gob round trip gives %+v, %v", got, err)
	}
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"profit":10,"weight":7,"items":[1,4],"nodes":3}`; string(j) != want {
		t.Errorf("JSON %s, want %s", j, want)
	}
}
