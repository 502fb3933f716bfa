// Package skeleton derives a load-balanced tree search from a node
// generator, in the manner of YewPar's skeletons (Archibald et al., 2020)
// and X10 GLB: the user describes the tree by its nodes (a Space: the root,
// a lazy generator of a node's children, a codec of nodes), and the
// package provides the lb.Task and lb.App that every balancer of package
// lb runs, in every world (embedded, MPI, simulator), with checkpoints and
// restarts: Split, Halve and Reroot, the encoding of tasks, and the
// counting of nodes. Three searches are built on it:
//
//   - Enumeration visits every node and folds each node's Value with a
//     commutative monoid (Combine, associative and commutative, with the
//     zero value of V as identity): counting solutions, summing, a
//     histogram of depths.
//   - Optimisation is branch-and-bound: Bound prunes a node whose subtree
//     cannot beat the incumbent, Objective scores the nodes that are
//     solutions, and the incumbent travels between ranks by lb's incumbent
//     messages (lb.Bounded), as the shipped branch-and-bound apps' do.
//   - Decision stops the whole search at the first node Goal accepts
//     (lb.Stopper: a global stop).
//
// # The node generator
//
// Space.Child(n, c) returns the first child of n at or after cursor c and
// the cursor just after it; cursors start at 0 and must increase. A cursor
// is an int the Space chooses (a column, an item's index, a move number),
// so a node's generator costs no allocation and is resumed, split and
// encoded as a node and two cursors. Children must depend on the node
// alone: every rank generates the same children of the same node.
//
// # What the package derives
//
// A task is a stack of frames, a frame being a node whose children from a
// cursor on (and below a stop cursor) are still to visit, plus the nodes
// that a split expanded and whose visit is owed (counted by the next Work).
// Work visits nodes depth first, the deepest frame first. Split gives away
// the later half of the remaining children of the shallowest frame that
// has at least two (the largest piece of work, as YewPar's stack stealing
// does), or the shallowest frame's single child when deeper work is left;
// a task that holds one path only expands it in place, so a fresh root
// halves about log2 P times, as static placement, hybrid and --fast-init
// need. Every node is visited, counted and folded once, on the rank that
// holds it, whatever the balancer splits: the node counts of an
// enumeration are the same under every balancer, world and rank count,
// and across a checkpoint and restart.
//
// A node is counted when it is visited; a node that Bound prunes is not a
// node of the search (as in the shipped branch-and-bound apps). A node that
// a split expanded is always visited and counted, pruned or not.
//
// A split probes the remaining children of the frames it examines (one
// Child call each): a node with a million children costs a million calls
// per split of its frame.
//
// The package keeps no mutable package-level state.
package skeleton
