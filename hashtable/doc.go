// Package hashtable is the distributed chained hash table of seed 004
// (Ichiyoshi and Kimura, "Asymptotic load balance of distributed hash
// tables") and the study of its load balance.
//
// # The table
//
// A table of m = p·q buckets is split into p subtables, one per rank of an
// mpi.Comm, by a Layout: Block (rank r owns buckets [r·q, (r+1)·q)), Modular
// (bucket b belongs to rank b mod p) or Balanced (contiguous ranges whose
// sizes differ by at most one when p does not divide m, footnote 1 of the
// seed). Collisions are resolved by separate (indirect) chaining inside the
// owner's subtable, a Local. Keys are uint64 or byte strings (Go strings),
// values uint64.
//
// Table[K] is the distributed table. Insert, Search and Delete take a batch
// of keys per rank and are collective; each batch is dispatched with one
// all-to-all exchange (counts by Alltoall, then the elements by one
// Alltoallv, those for one destination packed together), and results come
// back in one more Alltoallv. Route is the dispatch alone. Local[K] is the
// chained table of one rank, usable on its own as an ordinary hash table
// (NewLocal).
//
// # The hash function
//
// Every rank and every process must map a key to the same bucket, so the
// hash is a fixed function of the key, never Go's per-process seeded map
// hash or hash/maphash. uint64 keys are hashed by the SplitMix64 finalizer
// (Mix64): a bijection with full avalanche in five cheap instructions, the
// standard integer mixer of SplitMix64 and of many hash tables. Byte strings
// are hashed by XXH64 (github.com/cespare/xxhash/v2), a widely used,
// maintained, specified non-cryptographic hash that runs at several GB/s and
// gives the same value on every platform; hash/fnv's FNV-1a would also be
// deterministic but processes one byte at a time. A hash h picks bucket
// ⌊h·m/2^64⌋, which uses the high, best-mixed bits and needs no division.
//
// # The four phases and the load balance
//
// Runner runs rounds of the four phases of seed 004 §2.2 — generate new
// elements from seeds, dispatch them to their owners, search the old table,
// insert the elements not found into the new table — and records per phase
// and rank the essential work of §4.2 (G_i; Σ_j (A_ij+1)·B_ij;
// Σ_j B_ij(B_ij+1)/2) and the measured time. RunRounds aggregates them into
// the load balance factor η = E(total)/(p·E(max)) per phase and overall.
//
// Simulate is the counting model of §4.5, which needs no ranks: it
// reproduces Fig. 1 (η against p for q ∈ {1, lg p, lg² p, lg³ p} and
// W ∈ {X, XY, X^(2)}) and Table 1 (coefficients of variation of the maximum
// load) for p up to 4096 and beyond; Reproduce runs both and compares them
// with the seed's values.
//
// MeshDispatch is the model of §5: it replays the dispatch phase of rounds
// on a √p × √p mesh, every element a message routed in dimension order,
// and reports the traffic, the link loads against the links' capacity, the
// zero-load latency and the simulated dispatch time (see mesh.go).
//
// No package-level state is mutable: ranks of the embedded world share one
// process.
package hashtable
