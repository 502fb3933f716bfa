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
