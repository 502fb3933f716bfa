package lb_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/mpi"
)

// binTree is the App of the example, one per rank: it counts the nodes of
// the complete binary tree of height h that this rank expands. Result and
// Combine make it an lb.Reducer: the ranks' counts add up after the search.
type binTree struct {
	h     int
	nodes int64
}

// binTask is a part of the tree: the depths of its open nodes, a stack
// worked depth first from its end.
type binTask struct {
	app  *binTree
	open []int
}

var _ lb.Reducer[int64] = (*binTree)(nil)

func (a *binTree) Root() lb.Task            { return &binTask{app: a, open: []int{0}} }
func (a *binTree) Result() int64            { return a.nodes }
func (a *binTree) Combine(x, y int64) int64 { return x + y }

// Unmarshal decodes what AppendBinary wrote on another rank: the depths as
// uvarints, each checked, since the bytes come from outside.
func (a *binTree) Unmarshal(b []byte) (lb.Task, error) {
	t := &binTask{app: a}
	for len(b) > 0 {
		d, n := binary.Uvarint(b)
		if n <= 0 || d > uint64(a.h) {
			return nil, errors.New("binTree: malformed task")
		}
		t.open, b = append(t.open, int(d)), b[n:]
	}
	return t, nil
}

// Work expands up to budget nodes, pushing the two children of each node
// above the leaves, and counts them on its rank's App.
func (t *binTask) Work(budget int64) int64 {
	var n int64
	for n < budget && len(t.open) > 0 {
		d := t.open[len(t.open)-1]
		t.open = t.open[:len(t.open)-1]
		if d < t.app.h {
			t.open = append(t.open, d+1, d+1)
		}
		n++
	}
	t.app.nodes += n
	return n
}

func (t *binTask) Empty() bool { return len(t.open) == 0 }

// Split gives away the bottom half of the stack: the shallowest open
// nodes, which hold the most work; a lone node does not split.
func (t *binTask) Split() lb.Task {
	if len(t.open) < 2 {
		return nil
	}
	half := len(t.open) / 2
	give := &binTask{app: t.app, open: append([]int(nil), t.open[:half]...)}
	t.open = append(t.open[:0], t.open[half:]...)
	return give
}

func (t *binTask) AppendBinary(b []byte) ([]byte, error) {
	for _, d := range t.open {
		b = binary.AppendUvarint(b, uint64(d))
	}
	return b, nil
}

// A whole App (Task and Reducer) in the embedded world: mpi.Run starts 4
// goroutine ranks, driver.New makes each rank's communicator an lb.World,
// and every rank calls lb.Run collectively with a new App of its own; the
// ranks' counts combine into the tree's 2^16 − 1 nodes, on every rank and
// under every balancer. lbtest.TestApp checks such an App's promises
// (docs/writing-an-app.md); package skeleton builds one from a search
// written as nodes and children.
func Example() {
	err := mpi.Run(4, func(c *mpi.Comm) error {
		nodes, out, err := lb.Run(driver.New(c), lb.Config{Budget: 100, Seed: 1},
			func() lb.Reducer[int64] { return &binTree{h: 15} })
		if err == nil && c.Rank() == 0 {
			fmt.Println(nodes, "nodes on", c.Size(), "ranks; the statistics count", out.Total.Nodes)
		}
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: 65535 nodes on 4 ranks; the statistics count 65535
}

// TestExampleApp: the example's App keeps lb.Task's promises, as
// lbtest.TestApp checks them (a lone node does not split: NoHalving), and
// its parts' counts add up to the whole's (SameResult).
func TestExampleApp(t *testing.T) {
	lbtest.TestApp(t, func() lb.App { return &binTree{h: 10} }, lbtest.AppOptions{Exhaustive: true, NoHalving: true, Result: lbtest.SameResult[int64](nil)})
}
