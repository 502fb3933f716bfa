package lbtest_test

import (
	"fmt"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// CheckApp is TestApp's checks without a *testing.T: here the range of
// 1000 nodes, an exhaustive search that keeps every promise of lb.Task,
// whose parts' results (the nodes each rank worked) add up to the whole's.
// An app's own test calls lbtest.TestApp(t, newApp, opt) instead, each
// check a subtest.
func ExampleCheckApp() {
	err := lbtest.CheckApp(func() lb.App { return lbtest.NewRange(1000) }, lbtest.AppOptions{Exhaustive: true, Result: lbtest.SameResult[int64](nil)})
	fmt.Println("faults found:", err)
	// Output:
	// faults found: <nil>
}
