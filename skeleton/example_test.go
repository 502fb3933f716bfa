package skeleton_test

import (
	"errors"
	"fmt"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/skeleton"
)

// word is a node of the tree of the binary words without two 1s in a row:
// its length and its last bit.
type word struct{ len, last uint8 }

// words is that tree, words of up to n bits: a word's children append 0
// (cursor 0) and, after a 0, 1 (cursor 1). Its methods have pointer
// receivers, as a Space's should (a value receiver copies the Space at
// every call).
type words struct{ n uint8 }

func (s *words) Root() word { return word{} }

func (s *words) Child(w word, c int) (word, int, bool) {
	switch {
	case w.len == s.n || c > 1 || (c == 1 && w.last == 1):
		return word{}, 0, false
	}
	return word{w.len + 1, uint8(c)}, c + 1, true
}

func (s *words) AppendNode(b []byte, w word) []byte { return append(b, w.len, w.last) }

func (s *words) DecodeNode(b []byte) (word, []byte, error) {
	if len(b) < 2 || b[0] > s.n || b[1] > 1 {
		return word{}, nil, errors.New("words: a bad node")
	}
	return word{b[0], b[1]}, b[2:], nil
}

// fibonacci counts the words of n bits: Fibonacci(n+2).
func fibonacci(n uint8) *skeleton.Enumeration[word, int64] {
	return &skeleton.Enumeration[word, int64]{
		Space: &words{n},
		Value: func(w word) int64 {
			if w.len == n {
				return 1
			}
			return 0
		},
		Combine: func(a, b int64) int64 { return a + b },
	}
}

// An enumeration on one rank, without a balancer.
func ExampleEnumeration() {
	c := fibonacci(20).Sequential()
	fmt.Println(c.Value, "words,", c.Nodes, "nodes")
	// Output: 17711 words, 46366 nodes
}

// fastWords is words with Children (skeleton.Brancher): the skeleton
// expands a word with one call instead of one Child call a child and one
// more.
type fastWords struct{ words }

func (s *fastWords) Children(w word, buf []word) []word {
	if w.len == s.n {
		return buf
	}
	buf = append(buf, word{w.len + 1, 0})
	if w.last == 0 {
		buf = append(buf, word{w.len + 1, 1})
	}
	return buf
}

// A Space with Children, checked against its Child by CheckChildren (call
// it from your tests), and an enumeration that folds each node's value in
// one call (Fold) rather than two (Value and Combine).
func ExampleCheckChildren() {
	space := &fastWords{words{20}}
	fmt.Println("CheckChildren:", skeleton.CheckChildren[word](space, 1<<20))
	e := &skeleton.Enumeration[word, int64]{
		Space: space,
		Fold: func(acc int64, w word) int64 {
			if w.len == 20 {
				acc++
			}
			return acc
		},
		Combine: func(a, b int64) int64 { return a + b },
	}
	c := e.Sequential()
	fmt.Println(c.Value, "words,", c.Nodes, "nodes")
	// Output:
	// CheckChildren: <nil>
	// 17711 words, 46366 nodes
}

// The embedded world: mpi.Run starts 4 goroutine ranks (n ≥ 1 is the
// number of ranks), driver.New makes each rank's communicator an lb.World,
// and every rank calls lb.Run collectively and gets the same result (a
// Config without a Balancer balances by random polling; lb.Lookup names
// the others). The
// MPI build (-tags mpi, started by mpirun) runs the same code, with
// mpi.Run(0, ...) taking the launcher's number of ranks.
func ExampleEnumeration_embedded() {
	err := mpi.Run(4, func(c *mpi.Comm) error {
		got, _, err := lb.Run(driver.New(c), lb.Config{Seed: 1}, fibonacci(20).NewApp)
		if err == nil && c.Rank() == 0 {
			fmt.Println(got.Value, "words,", got.Nodes, "nodes on", c.Size(), "ranks")
		}
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: 17711 words, 46366 nodes on 4 ranks
}

// The simulator: one lb.World of 256 simulated ranks, on a machine model
// (here the cluster model with a node cost of 50 ns, the app's own: see
// runner's --calibrate), in one goroutine; lb.Run is called once.
func ExampleEnumeration_simulator() {
	info, err := lb.LookupMachine("cluster")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := info.Machine
	m.NodeNS = 50
	w, err := sim.New(256, sim.Config{Seed: 1, Machine: m})
	if err != nil {
		fmt.Println(err)
		return
	}
	got, out, err := lb.Run(w, lb.Config{Seed: 1}, fibonacci(20).NewApp)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Value, "words,", got.Nodes, "nodes on", w.Size(), "simulated ranks;", out.Total.Nodes == got.Nodes)
	// Output: 17711 words, 46366 nodes on 256 simulated ranks; true
}
