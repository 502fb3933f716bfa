package lb_test

import (
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestBalancerInterfaces: the balancer every registered factory makes,
// under every option variant, implements the optional interfaces the
// documentation claims of every registered balancer, Suspender and
// Progresser (lb/interfaces.go checks the types at compile time).
func TestBalancerInterfaces(t *testing.T) {
	const p = 3
	for _, v := range lbtest.Variants() {
		for r := range p {
			env := lb.Env{Rank: r, Size: p, App: lbtest.NewTree(1, 8, lbtest.Count), Options: v.Options, Rand: lb.NewRand(1, r)}
			b, err := lb.NewBalancer(v.Info.New, env)
			if err != nil {
				t.Fatalf("%s, rank %d: %v", v.Name, r, err)
			}
			if _, ok := b.(lb.Suspender); !ok {
				t.Errorf("%s: %T is no lb.Suspender", v.Name, b)
			}
			if _, ok := b.(lb.Progresser); !ok {
				t.Errorf("%s: %T is no lb.Progresser", v.Name, b)
			}
		}
	}
}
