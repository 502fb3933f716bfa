package tree

import "github.com/treelb/treelb/lb"

// NodeCosts returns the cost of a node of the tree on the machine models of
// lb's catalogue (lb.MachineInfo.For), in ns: on the cluster 26.5 ns, the
// geometric mean of uts --calibrate on the sample trees T1L, 29.5 ns, and
// T3L, 23.9 ns, with the AVX-512 SHA-1 kernel (the development machine,
// load average 1.8 on 2 cores). The seeds give no UTS figures for the GCel.
func NodeCosts() lb.NodeCosts { return lb.NodeCosts{"cluster": 26.5} }
