package tree

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// parallelCase is a tree that the parallel tests count and its counts.
type parallelCase struct {
	name string
	tr   *Tree
	want Counts
}

// parallelCases are the trees every balancer counts: the sample trees T1,
// wide and shallow (geometric, depth 10), and T3, deep and narrow
// (binomial, depth 1572), 4.1 million nodes each, against their published
// counts; unless big (and always with -short), smaller trees of the same
// kinds (T1 to depth 7, T3 with 100 children of the root, each about 1/20
// of the nodes) against their sequential counts.
func parallelCases(t *testing.T, big bool) []parallelCase {
	var cs []parallelCase
	for _, name := range []string{"T1", "T3"} {
		s, _ := SampleNamed(name)
		p := s.Params()
		want := Counts{Nodes: s.Nodes, Depth: s.Depth, Leaves: s.Leaves}
		small := testing.Short() || !big
		if small {
			if p.Type == Binomial {
				p.B = 100
			} else {
				p.Depth = 7
			}
			name += "-small"
		}
		tr, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		// The sequential count gives the digest of the leaves, which the
		// reference does not publish.
		seq := tr.Count()
		if !small && seq.Shape() != want {
			t.Fatalf("%s: sequential %+v, published %+v", name, seq, want)
		}
		cs = append(cs, parallelCase{name, tr, seq})
	}
	return cs
}

// bigRanks are the rank counts on which the parallel tests count the
// published trees (the hashing of 8·10⁶ nodes a variant and rank count is
// this package's cost); the other rank counts of the variant table
// (lbtest.Ranks) count the smaller trees.
func bigRanks(p int) bool { return p == 1 || p == 2 || p == 7 }

// countParallel counts the case's tree on w with cfg and checks the
// combined counts, and the balancer's node total, against the case's.
func countParallel(w lb.World, pc parallelCase, cfg lb.Config) error {
	c, out, err := lb.Run(w, cfg, func() lb.Reducer[Counts] { return NewApp(pc.tr) })
	if err != nil {
		return err
	}
	if c != pc.want || out.Total.Nodes != pc.want.Nodes {
		return fmt.Errorf("%s: %+v, the balancer counted %d nodes; want %+v", pc.name, c, out.Total.Nodes, pc.want)
	}
	return nil
}

// TestFakeNetwork counts T1 and T3 (see parallelCases) exactly under every
// balancer variant and rank count of lbtest.EachVariant in the simulator,
// whose seeded network delays and reorders messages between different
// pairs: the published trees at 1, 2 and 7 ranks, the smaller ones at 3, 16
// and 64. The budget of 2000 nodes makes about 2000 slices of T1 or T3 in
// all, enough for many steals. The subtests run in parallel: their cost is
// the hashing of the trees, 8·10⁸ nodes in all.
func TestFakeNetwork(t *testing.T) {
	cases := map[bool][]parallelCase{true: parallelCases(t, true), false: parallelCases(t, false)}
	lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, ranks int) {
		for _, pc := range cases[bigRanks(ranks)] {
			seed := uint64(ranks)
			w, err := sim.New(ranks, sim.Config{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if err := countParallel(w, pc, v.Config(2000, seed)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestEmbedded counts T1 and T3 (see parallelCases) exactly under every
// balancer variant and rank count of lbtest.EachVariant on goroutine ranks
// of the embedded world, with their real concurrency and message passing
// (the published trees at 1, 2 and 7 ranks, the smaller ones at 3, 16 and
// 64); scripts/mpi-test.sh counts T1 under mpirun -np 2.
func TestEmbedded(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("starts its own embedded worlds")
	}
	cases := map[bool][]parallelCase{true: parallelCases(t, true), false: parallelCases(t, false)}
	lbtest.EachVariant(t, "embedded", func(t *testing.T, v lbtest.Variant, ranks int) {
		for _, pc := range cases[bigRanks(ranks)] {
			err := mpi.Run(ranks, func(c *mpi.Comm) error {
				return countParallel(driver.New(c), pc, v.Config(0, 3))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestSimLargeP counts two small trees, one geometric (T1 to depth 6) and
// one binomial (T3 with 50 children of the root), on 1024 and 4096
// simulated ranks of the cluster model under every balancer
// (lbtest.LargeP): exactly the sequential counts, and a second run with
// the same seed is the same.
func TestSimLargeP(t *testing.T) {
	var cs []parallelCase
	for name, set := range map[string]func(*Params){"T1": func(p *Params) { p.Depth = 6 }, "T3": func(p *Params) { p.B = 50 }} {
		s, _ := SampleNamed(name)
		p := s.Params()
		set(&p)
		tr := MustNew(p)
		cs = append(cs, parallelCase{name + "-small", tr, tr.Count()})
	}
	mi, err := lb.LookupMachine("cluster")
	if err != nil {
		t.Fatal(err)
	}
	lbtest.LargeP(t, 200, 11, func(t *testing.T, cfg lb.Config, p int) {
		for _, pc := range cs {
			var outs [2]*lb.Outcome
			for i := range outs {
				w, err := sim.New(p, sim.Config{Seed: 11, Machine: mi.For(NodeCosts())})
				if err != nil {
					t.Fatal(err)
				}
				c, out, err := lb.Run(w, cfg, func() lb.Reducer[Counts] { return NewApp(pc.tr) })
				if err != nil {
					t.Fatal(err)
				}
				if c != pc.want || out.Total.Nodes != pc.want.Nodes {
					t.Fatalf("%s: %+v, the balancer counted %d nodes; want %+v", pc.name, c, out.Total.Nodes, pc.want)
				}
				out.Sim.RealSeconds = 0
				outs[i] = out
			}
			if !reflect.DeepEqual(outs[0], outs[1]) {
				t.Errorf("%s: two runs differ:\n%+v\n%+v", pc.name, outs[0], outs[1])
			}
		}
	})
}
