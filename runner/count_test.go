package runner

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCount: the JSON of Count always says whether the nodes vary and how
// many were replayed, and has the certificate when there is one; the text
// line says the same in words.
func TestCount(t *testing.T) {
	for _, c := range []struct {
		count      Count
		json, text string
	}{
		{Count{Certificate: "0123456789abcdef"}, `{"certificate":"0123456789abcdef","replayed_nodes":0,"nodes_vary":false}`,
			"certificate: 0123456789abcdef (exhaustive: the same nodes and certificate on any ranks, balancer and world)\n"},
		{Count{Certificate: "0123456789abcdef", ReplayedNodes: 7}, `{"certificate":"0123456789abcdef","replayed_nodes":7,"nodes_vary":false}`,
			"certificate: 0123456789abcdef (exhaustive: the same nodes and certificate on any ranks, balancer and world)  replayed nodes: 7 (split overhead, not in nodes)\n"},
		{Count{NodesVary: true}, `{"replayed_nodes":0,"nodes_vary":true}`,
			"nodes vary with the balancer, the ranks and the schedule (branch-and-bound)\n"},
		{Count{ReplayedNodes: 3}, `{"replayed_nodes":3,"nodes_vary":false}`, "replayed nodes: 3 (split overhead, not in nodes)\n"},
	} {
		b, err := json.Marshal(c.count)
		if err != nil || string(b) != c.json {
			t.Errorf("%+v: JSON %s (%v), want %s", c.count, b, err, c.json)
		}
		var w strings.Builder
		PrintCount(&w, c.count)
		if w.String() != c.text {
			t.Errorf("%+v: text %q, want %q", c.count, w.String(), c.text)
		}
	}
}
