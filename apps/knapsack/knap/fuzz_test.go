package knap

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, its errors carry the package prefix, and
// what it accepts is valid, survives WriteTo and Parse unchanged, and, when
// small, is solved to the brute-force optimum by both searches. The seed
// corpus (below and in testdata/fuzz/FuzzParse) runs with every go test;
// fuzzing runs only when asked, e.g.
//
//	go test -run '^$' -fuzz FuzzParse -fuzztime 30s ./apps/knapsack/knap
func FuzzParse(f *testing.F) {
	f.Add([]byte("3\n10 5\n7 3\n0 0\n8\n"), uint32(0))
	f.Add([]byte("2\n0.5 1.25\n1.24 .05\n1.5\n"), uint32(10))
	f.Add([]byte("2\n1 2\n5\n"), uint32(0))
	f.Add([]byte("1\n9223372036854775806 9223372036854775807\n9223372036854775807\n"), uint32(0))
	f.Fuzz(func(t *testing.T, data []byte, scale uint32) {
		in, err := Parse(bytes.NewReader(data), int64(scale))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "knapsack: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("Parse accepted an invalid instance: %v", err)
		}
		var buf bytes.Buffer
		if _, err := in.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		out, err := Parse(&buf, 0)
		if err != nil {
			t.Fatalf("written instance does not parse: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(in, out) {
			t.Fatalf("round trip changed the instance: %+v, then %+v", in, out)
		}
		if in.Len() <= 10 {
			want := bruteOptimum(in)
			for _, s := range []Search{Core, HS} {
				r, err := Solve(in, s)
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, in, r, want, fmt.Sprint(s))
			}
		}
	})
}

// fuzzInstance is the instance of FuzzUnmarshal: 40 items of seed 002's
// class, a search of a few thousand nodes.
func fuzzInstance(tb testing.TB) (*Instance, int64) {
	in, err := Generate(GenConfig{Class: Sanders, M: 40, Seed: 3})
	if err != nil {
		tb.Fatal(err)
	}
	return in, dpOptimum(in)
}

// FuzzUnmarshal: decoding any bytes as a task of either search either
// fails with the package's prefix or gives a task whose encoding decodes
// again to the same encoding, and that works to exhaustion and splits
// without panicking; what it finds is a feasible solution no better than
// the optimum. Tasks travel between ranks, so the decoder must survive
// anything. The seeds below are real tasks of both searches (roots, pieces
// of fresh and of worked tasks, worked tasks); the committed corpus is in
// testdata/fuzz/FuzzUnmarshal.
func FuzzUnmarshal(f *testing.F) {
	in, opt := fuzzInstance(f) // read only: the fuzz function may share it
	for _, s := range []Search{Core, HS} {
		a, err := NewApp(in, s)
		if err != nil {
			f.Fatal(err)
		}
		root := a.root()
		for range 2 {
			if piece := root.split(); piece != nil {
				b, _ := piece.AppendBinary(nil)
				f.Add(b)
			}
		}
		for range 4 {
			root.Work(50)
			b, _ := root.AppendBinary(nil)
			f.Add(b)
			if piece := root.split(); piece != nil {
				b, _ := piece.AppendBinary(nil)
				f.Add(b)
			}
		}
	}
	f.Add([]byte{tagCore, 0, 0})
	f.Add([]byte{tagHS, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, s := range []Search{Core, HS} {
			a, err := NewApp(in, s)
			if err != nil {
				t.Fatal(err)
			}
			task, err := a.unmarshal(data)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "knapsack: ") {
					t.Fatalf("%v: error without the package prefix: %v", s, err)
				}
				continue
			}
			enc, err := task.AppendBinary(nil)
			if err != nil {
				t.Fatalf("%v: AppendBinary of a decoded task: %v", s, err)
			}
			again, err := a.unmarshal(enc)
			if err != nil {
				t.Fatalf("%v: the encoding %x of a decoded task does not decode: %v", s, enc, err)
			}
			if enc2, _ := again.AppendBinary(nil); !bytes.Equal(enc, enc2) {
				t.Fatalf("%v: round trip changed the task: %x, then %x", s, enc, enc2)
			}
			for i := 0; !task.Empty() && i < 1000; i++ {
				task.Work(100)
				if i%3 == 0 {
					if piece := task.split(); piece != nil {
						for !piece.Empty() {
							piece.Work(1 << 20)
						}
					}
				}
			}
			r := a.Result()
			if p, w, err := in.Check(r.Items); err != nil || p != r.Profit || w != r.Weight || p > opt {
				t.Fatalf("%v: after the task, result %+v (items sum to %d %d: %v), optimum %d", s, r, p, w, err, opt)
			}
		}
	})
}

// FuzzResult: decoding any bytes as a Result either fails with the
// package's prefix or gives strictly ascending items below MaxItems, at
// most 8 per input byte, that encode again, no longer than the input, to
// bytes that decode to the same Result. Results travel between ranks in
// the final reduction, so the decoder must survive anything. The seeds
// below are encodings of both forms; the committed corpus is in
// testdata/fuzz/FuzzResult.
func FuzzResult(f *testing.F) {
	for _, r := range []Result{
		{},
		{Profit: 670988564, Weight: 512712755, Items: []int{0, 3, 4, 9, 200}, Nodes: 84915822},
		{Profit: -1, Items: []int{1, 2, 3, 5, 8, 13}},
		{Items: []int{MaxItems - 1}},
	} {
		b, err := r.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{resultList, 0, 0, 0, 3, 1, 1})
	f.Add([]byte{resultBits, 0, 0, 0, 4, 0x18})
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Result
		if err := r.UnmarshalBinary(data); err != nil {
			if !strings.HasPrefix(err.Error(), "knapsack: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		if len(r.Items) > 8*len(data) {
			t.Fatalf("%d items from %d bytes", len(r.Items), len(data))
		}
		for i, k := range r.Items {
			if k < 0 || k >= MaxItems || i > 0 && k <= r.Items[i-1] {
				t.Fatalf("items %v are not strictly ascending indices below %d", r.Items, MaxItems)
			}
		}
		enc, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary of a decoded result %+v: %v", r, err)
		}
		if len(enc) > len(data) {
			t.Fatalf("%x encodes again longer, as %x", data, enc)
		}
		var again Result
		if err := again.UnmarshalBinary(enc); err != nil {
			t.Fatalf("the encoding %x of a decoded result does not decode: %v", enc, err)
		}
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("round trip changed the result: %+v, then %+v", r, again)
		}
	})
}
