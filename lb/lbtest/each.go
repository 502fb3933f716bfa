package lbtest

import (
	"fmt"
	"strings"
	"testing"
)

// Ranks returns the rank counts of the variant tables (EachVariant) in the
// world called world ("sim", "lockstep", "embedded" or
// "embedded-goroutines", as Worlds names them): 1 (no balancing at all), 2
// (one partner), 3 and 7 (not powers of two: the hypercube phases and the
// static leaves do not divide evenly), 16 (the largest ring of the KOSO
// schedulers) and, in the simulated worlds, 64 (many more ranks than work
// at the start, and than cores). The embedded world stops at 16: its
// goroutine ranks share the test's cores, and 64 of them cost seconds of
// throttled polling a run; a test with an instance small enough runs them
// there too (EachVariantOn). "embedded-goroutines" runs only the counts
// that outnumber a 2-core machine's cores, where it differs from
// "embedded".
func Ranks(world string) []int {
	switch world {
	case "embedded":
		return []int{1, 2, 3, 7, 16}
	case "embedded-goroutines":
		return []int{3, 7, 16}
	}
	return []int{1, 2, 3, 7, 16, 64}
}

// EachVariant runs f as the subtest "VARIANT/P=RANKS" for every balancer
// variant (Variants) on every rank count of Ranks(world): the conformance
// table of lb and of every app. The subtests run in parallel (t.Parallel)
// in the simulated worlds, one at a time in the embedded world, whose
// goroutine ranks need the test's cores.
//
// Under -short (the edit loop: make test-short) it runs the table's
// diagonal instead: variant i on rank count i mod len(ranks) only, so that
// every variant and every rank count still run, at a fraction of the
// cost. go test without -short runs the whole table.
func EachVariant(t *testing.T, world string, f func(t *testing.T, v Variant, p int)) {
	t.Helper()
	EachVariantOn(t, world, Ranks(world), f)
}

// EachVariantOn is EachVariant on the rank counts ranks, for a test whose
// instance or world calls for others than Ranks (say so where you call
// it).
func EachVariantOn(t *testing.T, world string, ranks []int, f func(t *testing.T, v Variant, p int)) {
	t.Helper()
	for i, v := range Variants() {
		for j, p := range ranks {
			if testing.Short() && j != i%len(ranks) {
				continue
			}
			t.Run(fmt.Sprintf("%s/P=%d", v.Name, p), func(t *testing.T) {
				if !strings.HasPrefix(world, "embedded") {
					t.Parallel()
				}
				f(t, v, p)
			})
		}
	}
}

// ShortVariants returns the variants a test that runs every variant once
// (a checkpoint chain, say) runs: all of Variants, and under -short only
// the balancers with their default options, one variant each.
func ShortVariants() []Variant {
	vs := Variants()
	if !testing.Short() {
		return vs
	}
	var out []Variant
	for _, v := range vs {
		if v.Name == v.Info.Name {
			out = append(out, v)
		}
	}
	return out
}
