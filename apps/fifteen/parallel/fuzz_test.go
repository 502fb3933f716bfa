package parallel

import (
	"testing"

	"github.com/treelb/treelb/apps/fifteen/puzzle"
	"github.com/treelb/treelb/lb/lbtest"
)

// FuzzOutcome: decoding any bytes as an Outcome (an iteration's reduced
// result, which travels between ranks and into checkpoints) either fails
// with the package's prefix or gives an outcome that encodes back to the
// same bytes. The seeds are outcomes of a failing and of a final
// iteration; the committed corpus is in testdata/fuzz/FuzzOutcome.
func FuzzOutcome(f *testing.F) {
	for _, o := range []Outcome{
		{MinExceeded: puzzle.NoExceeded},
		{Nodes: 123456789, MinExceeded: 44, Digest: 0x0123456789abcdef, Replayed: 4242},
		{Nodes: 99, MinExceeded: puzzle.NoExceeded, Found: true, Moves: []puzzle.Move{puzzle.Up, puzzle.Left, puzzle.Down, puzzle.Right}},
		{Found: true, Moves: []puzzle.Move{}},
	} {
		b, err := o.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lbtest.CanonicalEncoding[Outcome](t, "fifteen: ", data)
	})
}
