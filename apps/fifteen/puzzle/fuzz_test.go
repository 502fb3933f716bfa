package puzzle

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzSearchUnmarshal: decoding any bytes as a search either fails, leaving
// nothing half done, or gives a search whose encoding decodes again to the
// same encoding and that works and splits without panicking. Searches
// travel between ranks and into checkpoints. The committed corpus is in
// testdata/fuzz/FuzzSearchUnmarshal; the seeds below are real searches.
func FuzzSearchUnmarshal(f *testing.F) {
	ins, err := Korf100()
	if err != nil {
		f.Fatal(err)
	}
	for _, in := range ins[:3] {
		s, err := NewIteration(in.State, in.State.Manhattan()+4)
		if err != nil {
			f.Fatal(err)
		}
		s.Work(500)
		if o, ok := s.Split(); ok {
			b, _ := o.MarshalBinary()
			f.Add(b)
		}
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := new(Search)
		if err := s.UnmarshalBinary(data); err != nil {
			return
		}
		enc, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		again := new(Search)
		if err := again.UnmarshalBinary(enc); err != nil {
			t.Fatalf("the encoding %x of a decoded search does not decode: %v", enc, err)
		}
		if enc2, _ := again.MarshalBinary(); !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed the search: %x, then %x", enc, enc2)
		}
		for i := 0; !s.Empty() && i < 100; i++ {
			s.Work(10000)
			if i%3 == 0 {
				if o, ok := s.Split(); ok {
					o.Work(1 << 16)
				}
			}
		}
	})
}

// FuzzReadKorf: any text given as a table (--data) is read or rejected with
// an error naming a line, never with a panic, and what is read is valid.
func FuzzReadKorf(f *testing.F) {
	f.Add(korf100[:2000])
	f.Add("id\tt0\n1\t2\t3\n")
	f.Add("7\t0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\t11\t12\t13\t14\t15\t0\t1\n")
	f.Fuzz(func(t *testing.T, text string) {
		ins, err := ReadKorf(strings.NewReader(text))
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		for _, in := range ins {
			if in.State.Validate() != nil || !Solvable(in.State) || in.Optimal < 0 || in.Nodes < 0 {
				t.Fatalf("accepted an invalid instance %+v", in)
			}
		}
	})
}
