package ruler

import "github.com/treelb/treelb/lb"

// NodeCosts returns the cost of a node of the search on the machine models
// of lb's catalogue (lb.MachineInfo.For), in ns:
//
//   - gcel, 6.13 µs: seed 002 §6.1 reports speedup 958 at 12.4 s of
//     parallel time and 578 at 0.88 s on 1024 PEs, so T_seq ≈ 11 879 s and
//     509 s on one T805. Our shortest-ruler searches (Solve, every step)
//     expand 1.046·10⁸ nodes for 12 marks and 1.536·10⁹ for 13; reading the
//     two instances as 12 and 13 marks (their sizes differ by 23×, ours by
//     15×), 509 s / 1.046·10⁸ = 4.9 µs and 11 879 s / 1.536·10⁹ = 7.7 µs
//     per node, whose geometric mean is 6.13 µs (about 180 T805
//     instructions: the shifts and ors of four 256-bit sets on 32-bit
//     words).
//   - cluster, 15.3 ns: measured on the development machine with the
//     sequential solver, 1.62·10⁹ nodes of the 13-mark count in 24.8 s of
//     CPU time.
func NodeCosts() lb.NodeCosts { return lb.NodeCosts{"gcel": 6130, "cluster": 15.3} }
