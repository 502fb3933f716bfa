package tree

import (
	"bytes"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// fuzzArgs is the tree of FuzzUnmarshal: a hybrid tree, geometric at
// heights 0 and 1 and binomial below, subcritical (m·q = 0.9), so that a
// task of any node's children is small on average.
const fuzzArgs = "-t 2 -a 0 -d 4 -b 20 -q 0.3 -m 3 -f 0.5 -r 5"

// fuzzLimit bounds the slices of work a fuzzed task gets (at 500 nodes
// each); a task still busy after them is not compared.
const fuzzLimit = 200

// exhaust works the tasks and the parts split off them to the end, at most
// fuzzLimit slices in all, splitting every third slice; it reports whether
// they were exhausted and the nodes Work returned.
func exhaust(tasks []lb.Task, split bool) (bool, int64) {
	var nodes int64
	for i := 0; len(tasks) > 0; i++ {
		if i == fuzzLimit {
			return false, nodes
		}
		x := tasks[len(tasks)-1]
		nodes += x.Work(500)
		if split && i%3 == 0 {
			if o := x.Split(); o != nil {
				tasks = append(tasks, o)
			}
		}
		if x.Empty() {
			for j := range tasks {
				if tasks[j] == x {
					tasks = append(tasks[:j], tasks[j+1:]...)
					break
				}
			}
		}
	}
	return true, nodes
}

// FuzzUnmarshal: decoding any bytes as a task either fails or gives a task
// whose encoding decodes to the same encoding, and whose nodes counted
// whole and counted in pieces split off along the way are the same (nodes,
// leaves, depth). Tasks travel between ranks, so the decoder must survive
// anything and accept only tasks of the tree. The committed corpus is in
// testdata/fuzz/FuzzUnmarshal; the seeds below are real tasks.
func FuzzUnmarshal(f *testing.F) {
	p, err := ParseArgs(strings.Fields(fuzzArgs))
	if err != nil {
		f.Fatal(err)
	}
	tr := MustNew(p)
	enc := func(x lb.Task) []byte {
		b, err := x.AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	a := NewApp(tr)
	root := a.Root()
	f.Add(enc(root))
	root.Work(40)
	f.Add(enc(root))
	for range 3 {
		if o := root.Split(); o != nil {
			f.Add(enc(o))
		}
	}
	f.Add([]byte{0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		whole, pieces := NewApp(tr), NewApp(tr)
		x, err := whole.Unmarshal(data)
		if err != nil {
			return
		}
		b, err := x.AppendBinary(nil)
		if err != nil {
			t.Fatalf("AppendBinary of a decoded task: %v", err)
		}
		y, err := pieces.Unmarshal(b)
		if err != nil {
			t.Fatalf("the encoding %x of a decoded task does not decode: %v", b, err)
		}
		if b2, _ := y.AppendBinary(nil); !bytes.Equal(b, b2) {
			t.Fatalf("round trip changed the task: %x, then %x", b, b2)
		}
		done1, n1 := exhaust([]lb.Task{x}, false)
		done2, n2 := exhaust([]lb.Task{y}, true)
		if done1 && done2 && (whole.Result() != pieces.Result() || n1 != n2 || n1 != whole.Result().Nodes) {
			t.Fatalf("task %x: whole %+v (Work %d), in pieces %+v (Work %d)", b, whole.Result(), n1, pieces.Result(), n2)
		}
	})
}

// FuzzCounts: Counts' binary encoding (lb's reductions and checkpoints use
// it) is canonical: bytes either fail to decode with "uts: " or decode to
// counts that encode back to them.
func FuzzCounts(f *testing.F) {
	lbtest.FuzzCanonicalEncoding(f, "uts: ", Counts{}, Counts{Nodes: 111345631, Leaves: 89076904, Depth: 17844, Digest: 0x03282364ba5afd7b})
}
