package lb_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// errBroken is the error of brokenRange's encoding.
var errBroken = errors.New("broken on purpose")

// brokenTree is lbtest.Tree whose tasks do not encode (encode) or do
// not decode (otherwise): an app's bug that must end the run with an
// error, never a panic. The tree is irregular, so that every balancer but
// static placement moves tasks.
type brokenTree struct {
	*lbtest.Tree
	encode bool
}

type brokenTask struct {
	lb.Task
	encode bool
}

func (a *brokenTree) Root() lb.Task { return &brokenTask{a.Tree.Root(), a.encode} }

func (a *brokenTree) Unmarshal(b []byte) (lb.Task, error) {
	if !a.encode {
		return nil, errBroken
	}
	t, err := a.Tree.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return &brokenTask{t, a.encode}, nil
}

func (t *brokenTask) Split() lb.Task {
	if s := t.Task.Split(); s != nil {
		return &brokenTask{s, t.encode}
	}
	return nil
}

func (t *brokenTask) AppendBinary(b []byte) ([]byte, error) {
	if t.encode {
		return nil, errBroken
	}
	return t.Task.AppendBinary(b)
}

// TestBrokenTaskIsAnError: a Task whose AppendBinary fails, or an App
// whose Unmarshal fails, ends lb.Run with an error wrapping the app's, in
// every world and for every balancer, and nothing panics (issue 24, item
// 6). A balancer that moves no task (static placement splits in place)
// may finish; it must then count every node and have sent no task. In the
// simulator, whose runs are reproducible, a balancer that sends a task
// with a working encoding must fail with the broken one.
func TestBrokenTaskIsAnError(t *testing.T) {
	const seed, depth, p, budget = 3, 14, 4, 50
	n := lbtest.Sequential(seed, depth, lbtest.Count).Nodes
	for _, world := range lbtest.Worlds() {
		for _, v := range lbtest.Variants() {
			for _, encode := range []bool{true, false} {
				what := map[bool]string{true: "encode", false: "decode"}[encode]
				t.Run(fmt.Sprintf("%s/%s/%s", world.Name, v.Name, what), func(t *testing.T) {
					var sent int64 = -1
					if world.Name == "sim" {
						err := world.Run(p, 7, func(w lb.World) error {
							_, out, err := lb.Run(w, v.Config(budget, 1), func() lb.Reducer[lbtest.TreeResult] {
								return lbtest.NewTree(seed, depth, lbtest.Count)
							})
							if err == nil {
								sent = out.Total.TasksSent
							}
							return err
						})
						if err != nil {
							t.Fatalf("the working range: %v", err)
						}
					}
					var got lbtest.TreeResult
					var out *lb.Outcome
					err := func() (err error) {
						defer func() {
							if r := recover(); r != nil {
								err = fmt.Errorf("panic: %v", r)
							}
						}()
						return world.Run(p, 7, func(w lb.World) error {
							g, o, err := lb.Run(w, v.Config(budget, 1), func() lb.Reducer[lbtest.TreeResult] {
								return &brokenTree{lbtest.NewTree(seed, depth, lbtest.Count), encode}
							})
							if w.Rank() == 0 { // rank 0's alone: the ranks run at once
								got, out = g, o
							}
							return err
						})
					}()
					switch {
					case err == nil:
						if got.Nodes != n || out.Total.TasksSent != 0 {
							t.Fatalf("finished with %d of %d nodes and %d tasks sent", got.Nodes, n, out.Total.TasksSent)
						}
						if sent > 0 {
							t.Fatalf("finished, though %d tasks travel with a working encoding", sent)
						}
					case strings.HasPrefix(err.Error(), "panic: "):
						t.Fatal(err)
					case !errors.Is(err, errBroken) && !strings.Contains(err.Error(), errBroken.Error()):
						t.Fatalf("the error does not carry the app's: %v", err)
					}
					t.Logf("err=%v sent=%d", err, sent)
				})
			}
		}
	}
}

// badWorkTree is lbtest.Tree whose root (and the pieces it keeps) breaks
// Task.Work's contract: a stall (Work expands nothing of a task that is
// not Empty), a negative count, or no root at all (Root returns nil).
type badWorkTree struct {
	*lbtest.Tree
	bug string
}

type badWorkTask struct {
	lb.Task
	bug string
}

func (a *badWorkTree) Root() lb.Task {
	if a.bug == "nil root" {
		return nil
	}
	return &badWorkTask{a.Tree.Root(), a.bug}
}

func (t *badWorkTask) Work(budget int64) int64 {
	if t.bug == "stall" {
		return 0
	}
	return -t.Task.Work(budget)
}

// TestBadWorkIsAnError: an app whose Task.Work expands nothing of a task
// that is not Empty (the run spun for ever, at P = 1 too, the stall
// watchdog blind to it: the rank kept "working"), returns a negative
// count (accepted by the embedded world, refused by the simulator), or
// whose App.Root returns nil (a nil pointer, or a silent result of 0),
// ends lb.Run with an error naming the mistake, in every world and for
// every balancer, within a minute. On more than one rank a run may also
// end right: the broken task is the root's, and one that travels arrives
// as the tree's own (Unmarshal), so the mistake may never run; the count
// must then be the whole tree's.
func TestBadWorkIsAnError(t *testing.T) {
	const seed, depth, budget = 3, 14, 50
	n := lbtest.Sequential(seed, depth, lbtest.Count).Nodes
	want := map[string]string{"stall": "a task must expand at least one node", "negative": "a slice counts the nodes it expanded", "nil root": "Root returned nil"}
	for _, world := range lbtest.Worlds() {
		for _, v := range lbtest.Variants() {
			for _, p := range []int{1, 4} {
				for _, bug := range []string{"stall", "negative", "nil root"} {
					t.Run(fmt.Sprintf("%s/%s/P=%d/%s", world.Name, v.Name, p, bug), func(t *testing.T) {
						done := make(chan error, 1)
						go func() {
							done <- func() (err error) {
								defer func() {
									if r := recover(); r != nil {
										err = fmt.Errorf("panic: %v", r)
									}
								}()
								return world.Run(p, 7, func(w lb.World) error {
									got, _, err := lb.Run(w, v.Config(budget, 1), func() lb.Reducer[lbtest.TreeResult] {
										return &badWorkTree{lbtest.NewTree(seed, depth, lbtest.Count), bug}
									})
									if err == nil && (p == 1 || bug == "nil root" || got.Nodes != n) {
										return fmt.Errorf("no error, %d nodes of %d", got.Nodes, n)
									}
									return err
								})
							}()
						}()
						select {
						case err := <-done:
							if err != nil && !strings.Contains(err.Error(), want[bug]) {
								t.Fatalf("%v, want an error saying %q", err, want[bug])
							}
						case <-time.After(time.Minute):
							t.Fatal("the run did not end")
						}
					})
				}
			}
		}
	}
}
