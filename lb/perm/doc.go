// Package perm provides the pseudo-random permutations π of {1, …, 2^k} used
// by randomized static load balancing, and the choice of k; GF, LCG and
// Sobol are immutable after construction and safe for concurrent use (their
// iterators are not), and the package holds no mutable state.
//
// # The algorithm
//
// Randomized static load balancing (seed 000, Sanders, "On the Competitive
// Analysis of Randomized Static Load Balancing", §4, Fig. 1; seed 001,
// Sanders, "Randomized Static Load Balancing for Tree-Shaped Computations"
// (RaTSLoB), §3, Fig. 1) splits the root problem k times into m = 2^k leaves.
// PE i of n processes the leaves π(j) for the j of its block, generating each
// by following the bits (b_0, …, b_{k−1}) of π(j) − 1 from the root. The
// only communication is the broadcast of the root and one final reduction,
// so every PE must be able to compute π(j) for the first j of its block
// without communication, and the following ones cheaply.
//
// In this package the index j is 0-based: a Perm maps j ∈ [0, 2^k) to
// π(j) ∈ [1, 2^k], so the seeds' π(j) is At(j−1) here, and π(j) − 1 ∈
// [0, 2^k) is the leaf's path. Block gives PE i's range of j, also for n
// not a power of two.
//
// # The permutations
//
//   - "gf" (GF, seed 001 §3, seed 000 §4): the powers (x^l)^1, …,
//     (x^l)^(2^k−1) of x^l modulo a primitive polynomial of degree k over
//     GF(2), with gcd(l, 2^k−1) = 1, read as k-bit integers (coefficient of
//     x^i = bit i), enumerate 1, …, 2^k−1; the value 2^k (the zero
//     polynomial) is inserted at a random place. The first element costs
//     O(k²) word operations by square-and-multiply, each next one O(k).
//     Primitive polynomials are tabulated for k = 1, …, 32.
//   - "lcg" (LCG, seed 000 §4): x_{j+1} = a·x_j + c mod 2^k with c odd and
//     a ≡ 1 (mod 4), full period by the Hull–Dobell theorem; π(j) = x_j + 1.
//     At(j) jumps ahead in O(k) by square-and-multiply on the affine map.
//   - "sobol" (Sobol, seed 001 §3): a one-dimensional Sobol sequence with
//     direction numbers from a primitive polynomial, visited in Gray-code
//     order, with a random digital shift (XOR); a bijection of the k-bit
//     integers, each next element in O(1).
//
// New builds any of them from a kind name and a *rand.Rand; every rank must
// pass an identically seeded source to get the same permutation.
//
// # Which one
//
// GF is the default: its blocks behave like those of a uniformly random
// permutation whichever end of π(j) − 1 the path is read from (the PE load
// variances of TestSplittingTheorem3 match). LCG and Sobol are regular
// rather than random: an LCG block of 2^b consecutive j holds exactly one
// leaf of every subtree of depth b when the path is read from the low bit
// (random-like from the high bit); a Sobol block does so from both ends.
// That lowers the load variance under the splitting model of seed 001 §2 by
// about half, but the Sobol partition of values into blocks is the same for
// every draw (cosets of one fixed subspace; the draw only permutes blocks
// and their contents), so it gives no protection against imbalance aligned
// with that subspace, which a random permutation would.
//
// # The number of levels k
//
// DefaultLevels gives k from seed 001 §5.2 (Theorem 4), which matches seed
// 000 Theorem 3 up to its log log n and constant terms; LevelsLower,
// LevelsUpper and LevelsWHP evaluate the three bounds themselves. See
// DefaultLevels for the formula and its reading.
package perm
