package sim_test

import (
	"fmt"
	"math/bits"
	"reflect"
	"strconv"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
	"github.com/treelb/treelb/lb/sim"
)

// TestSimLargeP runs every balancer variant on 1024 simulated ranks of the
// cluster machine, and every balancer with its default options on 4096
// (under -short, the defaults only, on 1024): the exhaustive
// count equals the sequential one, every rank terminates once (each rank
// but 0 gets one terminate and one exit message, and sends one drained
// message), and two runs with the same seeds give the same outcome. Static
// placement cuts ⌈log₂ P⌉+2 levels unless the variant says otherwise (the
// test tree cannot halve in place, and the default of up to ⌈log₂ P⌉+10
// levels would cut 2^22 leaves).
func TestSimLargeP(t *testing.T) {
	const depth = 19
	ps := []int{1024, 4096}
	if testing.Short() {
		ps = ps[:1]
	}
	mi, err := lb.LookupMachine("cluster")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range lbtest.ShortVariants() {
		for _, p := range ps {
			if p > 1024 && v.Name != v.Info.Name {
				continue // 4096 ranks for the balancers' defaults only
			}
			t.Run(fmt.Sprintf("%s/P=%d", v.Name, p), func(t *testing.T) {
				t.Parallel()
				run := func() (*lb.Outcome, error) {
					w, err := sim.New(p, sim.Config{Seed: 3, Machine: mi.Machine})
					if err != nil {
						return nil, err
					}
					cfg := v.Config(200, 3)
					if k, ok := lb.OptionValue(cfg.Options, "levels"); ok && k == "" {
						cfg.Options = lbtest.WithOption(v.Info, cfg.Options, "levels", strconv.Itoa(bits.Len(uint(p-1))+2))
					}
					got, out, err := lb.Run(w, cfg, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(3, depth, lbtest.Count) })
					if err != nil {
						return nil, err
					}
					return out, lbtest.Check(got, out, 3, depth, lbtest.Count)
				}
				a, err := run()
				if err != nil {
					t.Fatal(err)
				}
				if v.Info.Name != "ps" {
					m := a.Total.Messages
					if m[lb.KTerminate] != int64(p-1) || m[lb.KExit] != int64(p-1) || m[lb.KDrained] != int64(p-1) {
						t.Errorf("terminate %d, exit %d, drained %d messages; want %d each", m[lb.KTerminate], m[lb.KExit], m[lb.KDrained], p-1)
					}
				}
				b, err := run()
				if err != nil {
					t.Fatal(err)
				}
				a.Sim.RealSeconds, b.Sim.RealSeconds = 0, 0
				if !reflect.DeepEqual(a, b) {
					t.Errorf("two runs differ: %+v\n%+v", a, b)
				}
			})
		}
	}
}
