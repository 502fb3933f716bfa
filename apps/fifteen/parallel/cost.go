package parallel

import "github.com/treelb/treelb/lb"

// NodeCosts returns the cost of a node of an IDA* iteration on the machine
// models of lb's catalogue (lb.MachineInfo.For), in ns:
//
//   - cluster, 2.6 ns: measured on the development machine, 380 M nodes/s,
//     the command's own figure.
//   - gcel, 1.04 µs: seed 002 gives no 15-puzzle node rate (its Fig. 3 is
//     not in the text); a node here costs 0.17 times golomb's on the
//     development machine (2.6 ns against 15.3 ns), and we assume the same
//     ratio on the T805 (golomb's 6.13 µs there, ruler.NodeCosts).
func NodeCosts() lb.NodeCosts { return lb.NodeCosts{"gcel": 1040, "cluster": 2.6} }
