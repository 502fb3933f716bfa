package lbtest_test

import (
	"fmt"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/lbtest"
)

// CheckApp is TestApp's checks without a *testing.T: here the range of
// 1000 nodes, an exhaustive search that keeps every promise of lb.Task.
// An app's own test calls lbtest.TestApp(t, newApp, opt) instead, each
// check a subtest.
func ExampleCheckApp() {
	err := lbtest.CheckApp(func() lb.App { return lbtest.NewRange(1000) }, lbtest.AppOptions{Exhaustive: true})
	fmt.Println("faults found:", err)
	// Output:
	// faults found: <nil>
}
