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
// is an int the Space chooses (a column, an item's index, a move number).
// Children must depend on the node alone: every rank generates the same
// children of the same node. A Space may also have Children (Brancher),
// all the children of a node appended to a slice in one call, Child's
// children in Child's order (CheckChildren tests it): the skeleton then
// expands every node with one call, where Child takes one call a child
// and one more, failing. On N-queens, whose nodes cost a few ns, a Space
// with Children takes 1.00 times the CPU time a node of a hand-written
// Task with an Enumeration's Fold, 1.15 times with Value and Combine (one
// more call a node), and a Space without Children 1.6 times
// (docs/skeleton.md). On UTS, whose hand-written Task hashes the children
// of several nodes in one vector call and whose leaves cost it almost
// nothing, a Space of single nodes takes 2.5 times its CPU time a node
// (1.2 times with scalar hashing in both), and a Space whose nodes are
// groups of up to 64 UTS nodes 1.14 times on T1 and 1.6 on T3
// (docs/skeleton.md, "A shipped app: UTS"). On integrate, a Space of
// intervals takes 0.97-1.06 times the hand-written Task's CPU time a node
// with its 584-byte Result folded through a pointer, and 1.6-2.1 times
// folded by value (docs/skeleton.md, "A shipped app: integrate").
//
// # What the package derives
//
// A task is a stack of frames, a frame being the children of one node
// still to expand, in one slice shared by the frames (no allocation per
// node), plus the nodes that a split expanded and whose visit is owed
// (counted by the next Work). The children of a node are visited (counted,
// folded, bounded, tested) together when they are generated, and then
// expanded depth first, the deepest frame first; an Optimisation checks a
// node's Bound again before expanding it, as its incumbent may have
// improved. Split gives away the later half of the remaining nodes of the
// shallowest frame that has at least two (the largest piece of work, as
// YewPar's stack stealing does), or the shallowest frame's single node
// when deeper work is left; a task that holds one path only expands it in
// place, its visits owed, so a fresh root halves about log2 P times, as
// static placement, hybrid and --fast-init need. Every node is visited,
// counted and folded once, on the rank that holds it, whatever the
// balancer splits: the node counts of an enumeration are the same under
// every balancer, world and rank count, and across a checkpoint and
// restart. A task travels as its owed nodes and its frames' remaining
// nodes (Space.AppendNode).
//
// A node is counted when it is visited; a node that Bound prunes when it
// is visited is not a node of the search (as in the shipped
// branch-and-bound apps), and one pruned when its turn to be expanded
// comes has been counted. A node that a split expanded is always visited
// and counted, pruned or not. A Decision tests the children of a node
// against Goal when they are generated, before the subtrees of the
// earlier ones are searched: its solution may not be the first in depth
// first order.
//
// All the children of a node are generated when it is expanded, with
// Children or with Child until it fails, and held in its frame until they
// are expanded: a task holds the children of every node on its path (a
// node with a million children, a million nodes), and a split finds its
// piece without calling the Space (it calls it only to expand a task of
// one path).
//
// Work may count more nodes than its budget: the children of one node,
// and after a split the owed nodes and those of the frames a split
// generated, are visited together (lbtest.AppOptions.Overshoot).
//
// The package keeps no mutable package-level state.
package skeleton
