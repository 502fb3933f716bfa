package ruler

import (
	"bytes"
	"testing"

	"github.com/treelb/treelb/lb/lbtest"
)

// FuzzUnmarshal: decoding any bytes as a task of a 9-mark search either
// fails or gives a task whose encoding decodes again to the same encoding,
// and that works to exhaustion and splits without panicking. Tasks travel
// between ranks and into checkpoints, so the decoder must survive anything.
// The committed corpus is in testdata/fuzz/FuzzUnmarshal; the seeds below are
// real tasks.
func FuzzUnmarshal(f *testing.F) {
	g := []int{0, 0, 1, 3, 6, 11, 17, 25, 34}
	p, err := NewProblem(9, g, Count, 50)
	if err != nil {
		f.Fatal(err)
	}
	root := p.Root()
	root.Work(100)
	for range 4 {
		if piece := root.Split(); piece != nil {
			b, _ := piece.AppendBinary(nil)
			f.Add(b)
		}
	}
	b, _ := root.AppendBinary(nil)
	f.Add(b)
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, _ := NewProblem(9, g, Count, 50)
		task, err := p.Unmarshal(data)
		if err != nil {
			return
		}
		enc, err := task.AppendBinary(nil)
		if err != nil {
			t.Fatalf("AppendBinary of a decoded task: %v", err)
		}
		again, err := p.Unmarshal(enc)
		if err != nil {
			t.Fatalf("the encoding %x of a decoded task does not decode: %v", enc, err)
		}
		if enc2, _ := again.AppendBinary(nil); !bytes.Equal(enc, enc2) {
			t.Fatalf("round trip changed the task: %x, then %x", enc, enc2)
		}
		for i := 0; !task.Empty() && i < 1000; i++ {
			task.Work(1000)
			if i%3 == 0 {
				if piece := task.Split(); piece != nil {
					piece.Work(1 << 20)
				}
			}
		}
	})
}

// FuzzOutcome: decoding any bytes as an Outcome (the reduced result, which
// travels between ranks and into checkpoints) either fails with the
// package's prefix or gives an outcome that encodes back to the same bytes.
// The seeds are real outcomes; the committed corpus is in
// testdata/fuzz/FuzzOutcome.
func FuzzOutcome(f *testing.F) {
	for _, o := range []Outcome{{}, {Nodes: 86488070, Replayed: 3120, Ruler: []int{0, 2, 6, 24, 29, 40, 43, 55, 68, 75, 76, 85}},
		{Nodes: 1 << 40, Solutions: 1234, Digest: 0xfedcba9876543210, Replayed: 77}} {
		b, err := o.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lbtest.CanonicalEncoding[Outcome](t, "ruler: ", data)
	})
}
