package driver_test

import (
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/lbtest"
)

// TestNilWorld: a World made without a communicator, or a nil *World, is
// an error from lb.Run, not a nil-pointer panic.
func TestNilWorld(t *testing.T) {
	for name, w := range map[string]*driver.World{"New(nil)": driver.New(nil), "nil *World": nil} {
		_, _, err := lb.Run(w, lb.Config{}, func() lb.Reducer[lbtest.TreeResult] { return lbtest.NewTree(2, 8, lbtest.Count) })
		if err == nil || !strings.Contains(err.Error(), "without a communicator") {
			t.Errorf("%s: %v, want an error", name, err)
		}
	}
}
