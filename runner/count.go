package runner

import (
	"fmt"
	"io"
)

// Count is the part of an app's JSON output that says what its node count
// is worth (docs/counts.md): apps embed it next to their "nodes".
//
// An exhaustive search (a golomb count, a UTS tree, an integration, a
// failing IDA* iteration) expands every node of its tree once, wherever it
// is expanded, so its nodes are the same on any P, world, balancer and
// chain of restarts, and it has a Certificate (package cert) that says so
// beyond the count. A branch-and-bound or first-solution search prunes
// with what it found so far, so its nodes vary with the schedule: NodesVary.
type Count struct {
	// Certificate certifies an exhaustive search: 16 hexadecimal digits
	// from the instance, the nodes and a sum over the tree's leaves, the
	// same for every run of the instance; empty for branch-and-bound (a
	// fifteen run's covers its failing iterations, though its nodes vary).
	Certificate string `json:"certificate,omitempty"`
	// ReplayedNodes counts the node states that ranks rebuilt because a
	// task was split or moved (a split's or a decoded task's path, a static
	// leaf's halvings): overhead of the balancing, never in nodes.
	ReplayedNodes int64 `json:"replayed_nodes"`
	// NodesVary says that nodes depends on the balancer, the ranks and
	// the schedule (branch-and-bound, first solution).
	NodesVary bool `json:"nodes_vary"`
}

// PrintCount writes the line of the human output that says what the node
// count is worth: the certificate of an exhaustive search, or that the
// nodes vary, and the replayed nodes when there are any.
func PrintCount(w io.Writer, c Count) {
	replayed := ""
	if c.ReplayedNodes > 0 {
		replayed = fmt.Sprintf("  replayed nodes: %d (split overhead, not in nodes)", c.ReplayedNodes)
	}
	switch {
	case c.NodesVary:
		fmt.Fprintf(w, "nodes vary with the balancer, the ranks and the schedule (branch-and-bound)%s\n", replayed)
	case c.Certificate != "":
		fmt.Fprintf(w, "certificate: %s (exhaustive: the same nodes and certificate on any ranks, balancer and world)%s\n", c.Certificate, replayed)
	case replayed != "":
		fmt.Fprintln(w, replayed[2:])
	}
}
