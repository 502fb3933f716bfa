package runner

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// fuzzTree is the app of FuzzCheckpointFields' resumed searches: a small
// exhaustive lbtest tree.
func fuzzTree() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, 6, lbtest.Count) }

// suspendedTree returns a real suspended search of fuzzTree on two
// simulated ranks: its partial result and open tasks.
func suspendedTree(t testing.TB) *lb.Suspended {
	w, err := sim.New(2, sim.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	cfg := lb.Config{Budget: 3, CheckpointDue: func() bool { calls++; return calls > 20 }}
	_, _, err = lb.Run(w, cfg, fuzzTree)
	var s *lb.Suspended
	if !errors.As(err, &s) || len(s.Tasks) == 0 {
		t.Fatalf("no suspended search to start from: %v", err)
	}
	return s
}

// FuzzCheckpointFields is the structure-aware fuzz test of checkpoints: it
// mutates the decoded fields of a real checkpoint (the balancer, options,
// budget, counts, the solver's state, the partial result, the open tasks)
// and re-encodes them with a valid checksum, so that every input passes
// the envelope and reaches what a restart does with the fields. A restart
// must then accept the checkpoint or refuse it as malformed: decode it,
// check its parameters (checkRestart), and resume its search on two
// simulated ranks, which either counts or fails with an error matching
// lb.ErrBadTasks or lb.ErrBadState (exit status 2) — never a panic, never
// another error.
func FuzzCheckpointFields(f *testing.F) {
	s := suspendedTree(f)
	partial := s.Partial
	task := s.Tasks[0]
	f.Add("t", "rp", int64(3), s.Nodes, []byte(nil), partial, task, []byte(nil), uint8(0), uint8(0), int64(s.Incumbent), s.HasIncumbent)
	f.Add("t", "static", int64(0), int64(0), []byte("state"), partial, task, task, uint8(32), uint8(0), int64(0), false)
	f.Add("t", "hybrid", int64(1), int64(5), []byte(nil), []byte{0xff}, []byte{0xff, 0xff}, []byte(nil), uint8(3), uint8(9), int64(-1), true)
	f.Add("", "koso", int64(-1), int64(-1), []byte(nil), []byte(nil), []byte(nil), []byte(nil), uint8(0), uint8(0), int64(0), false)
	f.Add("t", "ps", int64(1<<62), int64(1<<62), []byte(nil), partial[:len(partial)/2], task[:len(task)/2], task, uint8(31), uint8(255), int64(0), false)
	f.Fuzz(func(t *testing.T, app, balancer string, budget, nodes int64, state, partial, task0, task1 []byte, levels, clusters uint8, inc int64, hasInc bool) {
		// The options the balancer declares (others are refused by name).
		opts := map[string]string{}
		if info, err := lb.Lookup(balancer); err == nil {
			for name, v := range map[string]int{"levels": int(levels), "clusters": int(clusters)} {
				if lb.HasOption(info.Options, name) {
					opts[name] = strconv.Itoa(v)
				}
			}
		}
		k := &Checkpoint{App: app, Build: "fuzz", Instance: []byte{1}, Balancer: balancer, Budget: budget, Seed: 1, Ranks: 2, World: "sim",
			Options:   opts,
			Suspended: lb.Suspended{State: state, Partial: partial, Nodes: nodes, Incumbent: inc, HasIncumbent: hasInc}}
		for _, x := range [][]byte{task0, task1} {
			if x != nil {
				k.Tasks = append(k.Tasks, x)
			}
		}
		b, err := k.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var d Checkpoint
		if err := d.UnmarshalBinary(b); err != nil {
			if !strings.Contains(err.Error(), "incomplete") {
				t.Fatalf("a well-formed file refused: %v", err)
			}
			return
		}
		if err := checkRestart(&d, Common{}, nil, 2); err != nil {
			return // refused: exit status 2
		}
		info, _ := lb.Lookup(d.Balancer)
		bopts, _ := d.BalancerOptions(info) // checkRestart checked them
		w, err := sim.New(2, sim.Config{Seed: 1, MaxEvents: 1e6})
		if err != nil {
			t.Fatal(err)
		}
		cfg := lb.Config{Balancer: info.New, Options: bopts, Budget: min(d.Budget, 100), Seed: 1, Resume: &d.Suspended}
		_, _, err = lb.Run(w, cfg, fuzzTree)
		if err != nil && !errors.Is(err, lb.ErrBadTasks) && !errors.Is(err, lb.ErrBadState) {
			t.Fatalf("resuming %s with %d tasks: an error that is not a malformed checkpoint's: %v", d.Balancer, len(d.Tasks), err)
		}
	})
}

// TestCraftedLength: the file of issue 23, twenty bytes whose length field
// reads 2⁶⁴ − 32, is refused from its header (it panicked with a slice
// bounds error before), as are its neighbours.
func TestCraftedLength(t *testing.T) {
	head := binary.LittleEndian.AppendUint32([]byte(checkpointMagic), checkpointVersion)
	for _, n := range []uint64{1<<64 - 32, 1<<64 - 33, 1<<64 - 1, 1 << 63, MaxCheckpointBytes + 1} {
		var c Checkpoint
		err := c.UnmarshalBinary(binary.LittleEndian.AppendUint64(head, n))
		if err == nil || !strings.Contains(err.Error(), "more than the") {
			t.Errorf("length %d: %v", n, err)
		}
	}
}
