package lb

import (
	"fmt"
	"testing"

	"github.com/treelb/treelb/mpi"
)

// sequential solves a tree app on one rank with no balancer.
func sequential(seed uint64, depth, mode int) (nodes, best, found int64) {
	a := newTreeApp(seed, depth, mode)
	t := a.Root()
	for !t.Empty() {
		t.Work(1 << 40)
	}
	return decodeTree(a.Result())
}

func treeApps(p int, seed uint64, depth, mode int) []App {
	apps := make([]App, p)
	for r := range apps {
		apps[r] = newTreeApp(seed, depth, mode)
	}
	return apps
}

var conformanceRanks = []int{1, 2, 3, 7, 16, 64}

// variant is a balancer with options: the name's part after '+' says which.
type variant struct {
	name, base string
	opt        Options
}

func variants() []variant {
	var vs []variant
	for _, n := range Names() {
		vs = append(vs, variant{n, n, Options{}})
		switch n {
		case "rp":
			vs = append(vs, variant{"rp+fastinit", n, Options{FastInit: true}}, variant{"rp+queue1", n, Options{QueueLimit: 1}})
		case "ps":
			vs = append(vs, variant{"ps+pairsync", n, Options{PairSync: true}}, variant{"ps+asklower", n, Options{AskLower: true, PairSync: true}},
				variant{"ps+shufflebelow", n, Options{ShuffleBelow: 0.5, FastInit: true}})
		case "static":
			vs = append(vs, variant{"static+lcg", n, Options{Permutation: "lcg", SplitLevels: 9}})
		case "hybrid":
			vs = append(vs, variant{"hybrid+clusters3", n, Options{Clusters: 3}})
		case "koso-star":
			vs = append(vs, variant{"koso-star+fastinit", n, Options{FastInit: true}})
		}
	}
	return vs
}

// TestConformance runs every balancer on the seeded fake network for every
// rank count and three seeds. Exhaustive counts must equal the sequential
// count exactly (no lost or duplicated work); Simulate itself fails on a
// message after termination or a rank that never terminates.
func TestConformance(t *testing.T) {
	const depth = 20
	for _, v := range variants() {
		for _, p := range conformanceRanks {
			for seed := uint64(1); seed <= 3; seed++ {
				t.Run(fmt.Sprintf("%s/P=%d/seed=%d", v.name, p, seed), func(t *testing.T) {
					want, _, _ := sequential(seed, depth, modeCount)
					out, err := Simulate(treeApps(p, seed, depth, modeCount), v.base, v.opt,
						SimConfig{Seed: seed * 77, Budget: 50})
					if err != nil {
						t.Fatal(err)
					}
					got, _, _ := decodeTree(out.Result)
					if got != want || out.Total.Nodes != want {
						t.Fatalf("nodes %d (stats %d), sequential %d", got, out.Total.Nodes, want)
					}
					if want < 1000 {
						t.Fatalf("tree too small: %d nodes", want)
					}
				})
			}
		}
	}
}

// TestBoundAndStop: branch-and-bound finds the sequential minimum on every
// balancer, and a first-solution search stops early with a valid solution.
func TestBoundAndStop(t *testing.T) {
	for _, v := range variants() {
		for _, p := range []int{1, 3, 16} {
			base := v.base
			_, wantBest, _ := sequential(5, 24, modeBound)
			out, err := Simulate(treeApps(p, 5, 24, modeBound), base, v.opt, SimConfig{Seed: 9, Budget: 40})
			if err != nil {
				t.Fatalf("%s P=%d: %v", v.name, p, err)
			}
			if _, best, _ := decodeTree(out.Result); best != wantBest {
				t.Errorf("%s P=%d: best %d, sequential %d", v.name, p, best, wantBest)
			}
			out, err = Simulate(treeApps(p, 5, 24, modeFirst), base, v.opt, SimConfig{Seed: 9, Budget: 40})
			if err != nil {
				t.Fatalf("%s P=%d: %v", v.name, p, err)
			}
			if _, _, found := decodeTree(out.Result); found < 0 || found%1000 != 0 {
				t.Errorf("%s P=%d: first-solution search found %d", v.name, p, found)
			}
		}
	}
}

// TestDriverEmbedded runs the real driver over the embedded MPI world.
func TestDriverEmbedded(t *testing.T) {
	const depth = 22
	want, _, _ := sequential(4, depth, modeCount)
	for _, v := range variants() {
		base := v.base
		for _, p := range []int{1, 2, 3, 7, 16} {
			err := mpi.Run(p, func(c *mpi.Comm) error {
				out, err := Run(c, newTreeApp(4, depth, modeCount), base, v.opt, Config{Budget: 64, Seed: 1})
				if err != nil {
					return err
				}
				if got, _, _ := decodeTree(out.Result); got != want || out.Total.Nodes != want {
					return fmt.Errorf("nodes %d (stats %d), sequential %d", got, out.Total.Nodes, want)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s P=%d: %v", v.name, p, err)
			}
		}
	}
}

// TestFastInitPieces: the pieces of every rank are disjoint and cover the
// tree, for every P up to 70.
func TestFastInitPieces(t *testing.T) {
	const depth = 18
	want, _, _ := sequential(11, depth, modeCount)
	for p := 1; p <= 70; p++ {
		var total int64
		for r := range p {
			a := newTreeApp(11, depth, modeCount)
			if piece := fastInitPiece(a.Root(), r, p); piece != nil {
				for !piece.Empty() {
					piece.Work(1 << 30)
				}
			}
			total += a.nodes
		}
		if total != want {
			t.Fatalf("P=%d: pieces hold %d nodes, tree %d", p, total, want)
		}
	}
}
