// Package bagsched is a small random scheduler for the tests of the
// integrate apps: it expands a tree-shaped computation as a bag of tasks
// spread over several App values standing for ranks, with random work
// slices, random splits and every piece travelling as bytes to a random
// rank, and reduces per-rank results along a random tree. It exercises
// what a balancer does to tasks without a balancer, so that node counts
// and results can be compared with the sequential solver. Embedded runs the
// apps' parallel tests in the embedded world (the variant table itself is
// lbtest.EachVariant).
package bagsched

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/mpi"
)

// App is the part of an lb App the scheduler uses.
type App interface {
	Root() lb.Task
	Unmarshal(b []byte) (lb.Task, error)
}

// Embedded runs f on every rank of an embedded world of ranks goroutines
// (mpi.Run, driver.New) and fails t with the first error. It skips t under
// -tags mpi, where a test's world is mpirun's.
func Embedded(t *testing.T, ranks int, f func(w lb.World) error) {
	t.Helper()
	if mpi.WorldName != "embedded" {
		t.Skipf("starts worlds of its own size; this is the %s world", mpi.WorldName)
	}
	if err := mpi.Run(ranks, func(c *mpi.Comm) error { return f(driver.New(c)) }); err != nil {
		t.Fatal(err)
	}
}

type item struct {
	t    lb.Task
	rank int
}

// Run expands the whole computation of the apps (one per rank, all for the
// same problem) from the root built by a random rank, and returns the
// nodes that Work reported. Each step picks a random task and works it for
// 1..maxSlice nodes; then with probability ½ splits it and sends the piece
// to a random rank, and with probability ⅕ moves the whole task to a random
// rank; both travel through AppendBinary and Unmarshal. It fails if Work
// exceeds its budget, a split gives an empty piece or a task does not
// decode. It is deterministic for a seed.
func Run(seed uint64, apps []App, maxSlice int) (int64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x1a6c))
	r0 := rng.IntN(len(apps))
	bag := []item{{apps[r0].Root(), r0}}
	send := func(t lb.Task) (item, error) {
		b, err := t.AppendBinary(nil)
		if err != nil {
			return item{}, fmt.Errorf("bagsched: encoding: %w", err)
		}
		to := rng.IntN(len(apps))
		u, err := apps[to].Unmarshal(b)
		if err != nil {
			return item{}, fmt.Errorf("bagsched: decoding on rank %d: %w", to, err)
		}
		return item{u, to}, nil
	}
	var nodes int64
	for len(bag) > 0 {
		i := rng.IntN(len(bag))
		budget := int64(1 + rng.IntN(maxSlice))
		n := bag[i].t.Work(budget)
		if n < 0 || n > budget {
			return nodes, fmt.Errorf("bagsched: Work(%d) returned %d", budget, n)
		}
		nodes += n
		if rng.IntN(2) == 0 {
			if piece := bag[i].t.Split(); piece != nil {
				if piece.Empty() {
					return nodes, fmt.Errorf("bagsched: Split gave an empty piece")
				}
				it, err := send(piece)
				if err != nil {
					return nodes, err
				}
				bag = append(bag, it)
			}
		}
		if rng.IntN(5) == 0 {
			it, err := send(bag[i].t)
			if err != nil {
				return nodes, err
			}
			bag[i] = it
		}
		if bag[i].t.Empty() {
			bag[i] = bag[len(bag)-1]
			bag = bag[:len(bag)-1]
		}
	}
	return nodes, nil
}

// Reduce combines parts along a random reduction tree: it repeatedly
// combines two random parts, in a random order, until one is left. parts
// must not be empty; it is reordered.
func Reduce[R any](seed uint64, parts []R, combine func(a, b R) R) R {
	rng := rand.New(rand.NewPCG(seed, 0x4edc))
	for len(parts) > 1 {
		i := rng.IntN(len(parts))
		j := rng.IntN(len(parts) - 1)
		if j >= i {
			j++
		}
		a, b := parts[i], parts[j]
		if rng.IntN(2) == 0 {
			a, b = b, a
		}
		parts[i] = combine(a, b)
		parts[j] = parts[len(parts)-1]
		parts = parts[:len(parts)-1]
	}
	return parts[0]
}

// Seeds returns encodings of real tasks of app for a fuzz test's seed
// corpus: the root, the root after a few nodes, a piece split off it and
// an empty task.
func Seeds(app App) [][]byte {
	var out [][]byte
	add := func(t lb.Task) {
		if b, err := t.AppendBinary(nil); err == nil {
			out = append(out, b)
		}
	}
	root := app.Root()
	add(root)
	root.Work(7)
	add(root)
	if piece := root.Split(); piece != nil {
		add(piece)
	}
	root.Work(1 << 40)
	add(root)
	return out
}

// CheckDecoded is the property of the fuzz tests of the decoders: decoding
// b on app either fails or gives a task whose encoding decodes to the same
// task, whose level lies in −1..maxLevel, and which works within its budget
// and splits into a piece that round-trips too.
func CheckDecoded(app App, b []byte, maxLevel int) error {
	task, err := app.Unmarshal(b)
	if err != nil {
		return nil
	}
	if err := RoundTrip(app, task); err != nil {
		return err
	}
	if l, ok := task.(interface{ Level() int }); ok && (l.Level() < -1 || l.Level() > maxLevel) {
		return fmt.Errorf("bagsched: decoded task at level %d", l.Level())
	}
	if n := task.Work(500); n < 0 || n > 500 {
		return fmt.Errorf("bagsched: Work(500) = %d", n)
	}
	if piece := task.Split(); piece != nil {
		return RoundTrip(app, piece)
	}
	return nil
}

// RoundTrip checks that task's encoding decodes on app to a task with the
// same encoding, for the fuzz tests of the decoders.
func RoundTrip(app App, task lb.Task) error {
	e1, err := task.AppendBinary(nil)
	if err != nil {
		return fmt.Errorf("bagsched: encoding: %w", err)
	}
	u, err := app.Unmarshal(e1)
	if err != nil {
		return fmt.Errorf("bagsched: re-encoded task %x does not decode: %w", e1, err)
	}
	e2, err := u.AppendBinary(nil)
	if err != nil {
		return fmt.Errorf("bagsched: encoding: %w", err)
	}
	if !bytes.Equal(e1, e2) {
		return fmt.Errorf("bagsched: encoding %x decodes and encodes to %x", e1, e2)
	}
	return nil
}
