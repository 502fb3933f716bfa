package knap

import "github.com/treelb/treelb/lb"

// NodeCosts returns the cost of a node of the Horowitz–Sahni search
// (--search hs, the seed's algorithm) on the machine models of lb's
// catalogue (lb.MachineInfo.For), in ns:
//
//   - cluster, 6.0 ns: measured on the development machine, the median CPU
//     time per node of the 26 sequential runs above 0.05 s of the Fig. 4
//     campaign of 4af72bc (5.8 to 6.5 ns; git history). Its rerun at
//     4cdfe4e (results/knapsack-fig4/knapsack-fig4.csv: 81 sequential runs
//     above 0.05 s) reads a median of 6.6 ns of search time a node (6.2 to
//     7.7): the VM's speed drifts by that much (results/validate).
//   - gcel, 2.45 µs: seed 002 §6.3 gives no node count or rate, only
//     speedups against sequential time (Fig. 4, whose points are not in
//     the text). Against golomb's 15.3 ns (15.8 ns in a run beside it: 12
//     marks, 1.046·10⁸ nodes in 1.65 s of CPU time) a node costs 0.39 to
//     0.41 of golomb's; with the same ratio on the T805 (golomb's 6.13 µs
//     there, ruler.NodeCosts), 2.45 µs.
func NodeCosts() lb.NodeCosts { return lb.NodeCosts{"gcel": 2450, "cluster": 6.0} }
