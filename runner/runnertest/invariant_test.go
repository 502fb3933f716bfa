package runnertest

import (
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
)

// TestOptionFlags: every option of every registered balancer, set alone,
// gives its flag (and a value unless it is a switch), so that Invariant
// runs every variant with its own options; and the flags are the command
// line's names; the defaults give none.
func TestOptionFlags(t *testing.T) {
	for _, info := range lb.Balancers() {
		for _, name := range lb.OptionNames(info.Options) {
			value := map[string]string{"fast-init": "true", "pair-sync": "true", "ask-lower": "true", "drain": "true", "ordered-init": "true",
				"shuffle-below": "0.5", "perm": "lcg"}[name]
			if value == "" {
				value = "3"
			}
			o, err := lb.SetOption(info.Options, name, value)
			if err != nil {
				t.Fatalf("%s --%s %s: %v", info.Name, name, value, err)
			}
			flags := OptionFlags(o)
			want := []string{"--" + name, value}
			if value == "true" {
				want = want[:1]
			}
			if strings.Join(flags, " ") != strings.Join(want, " ") {
				t.Errorf("%s with --%s %s: flags %q", info.Name, name, value, flags)
			}
		}
		if got := OptionFlags(info.Options); len(got) != 0 {
			t.Errorf("%s's defaults: %q", info.Name, got)
		}
	}
}
