package lbtest_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/treelb/treelb/lb/lbtest"
)

// TestEachVariant: the table runs every variant on every rank count, and
// its -short diagonal still runs every variant and every rank count, each
// variant once.
func TestEachVariant(t *testing.T) {
	var mu sync.Mutex
	seen := map[string][]int{}
	t.Run("table", func(t *testing.T) {
		lbtest.EachVariant(t, "sim", func(t *testing.T, v lbtest.Variant, p int) {
			if !strings.HasPrefix(t.Name(), "TestEachVariant/table/"+v.Name+"/P=") {
				t.Errorf("subtest %s runs %s", t.Name(), v.Name)
			}
			mu.Lock()
			seen[v.Name] = append(seen[v.Name], p)
			mu.Unlock()
		})
	})
	vs, ranks := lbtest.Variants(), lbtest.Ranks("sim")
	if len(seen) != len(vs) {
		t.Fatalf("%d variants run, %d registered", len(seen), len(vs))
	}
	ranksRun := map[int]bool{}
	for _, v := range vs {
		ps := seen[v.Name]
		switch {
		case testing.Short() && len(ps) != 1:
			t.Errorf("-short: %s ran on %v, want one rank count", v.Name, ps)
		case !testing.Short() && len(ps) != len(ranks):
			t.Errorf("%s ran on %v, want %v", v.Name, ps, ranks)
		}
		for _, p := range ps {
			ranksRun[p] = true
		}
	}
	for _, p := range ranks {
		if !ranksRun[p] {
			t.Errorf("no variant ran on %d ranks", p)
		}
	}
	short := lbtest.ShortVariants()
	if !testing.Short() && len(short) != len(vs) {
		t.Errorf("ShortVariants without -short: %d of %d variants", len(short), len(vs))
	}
	names := map[string]bool{}
	for _, v := range short {
		names[v.Info.Name] = true
	}
	if len(names) != countBalancers(vs) {
		t.Errorf("ShortVariants covers %d balancers of %d", len(names), countBalancers(vs))
	}
}

func countBalancers(vs []lbtest.Variant) int {
	b := map[string]bool{}
	for _, v := range vs {
		b[v.Info.Name] = true
	}
	return len(b)
}
