// Package cert makes the certificates of exhaustive tree searches, in the
// spirit of distributed.net's OGR, which accepts a stub's result only when
// two runs report the same node count: besides the count, a run prints a
// digest that does not depend on how the tree was searched.
//
// A search adds the hash of each of its leaves (or solutions: rulers found,
// UTS leaves, integration intervals, the nodes an IDA* iteration expands)
// into a Sum, a 64-bit sum modulo 2^64. Addition is associative and
// commutative, so the ranks' sums combine in any order into the same total
// whichever rank searched which subtree, on any number of ranks, and across
// a checkpoint and a restart (the partial result carries the sum). New then
// mixes the total with the instance and the node count into a Certificate:
// runs of the same instance print the same certificate on any P, world,
// balancer or chain of restarts; a lost or duplicated subtree changes the
// count and the sum, and another instance changes the instance string.
//
// The package keeps no mutable package-level state.
package cert

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Mix returns a 64-bit hash of x: the finalizer of SplitMix64 (Steele, Lea
// and Flood, OOPSLA 2014), a bijection in which every output bit depends on
// every input bit. Searches add Mix of a leaf's identity into their Sum.
func Mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// Certificate is the certificate of an exhaustive search: 64 bits of a
// SHA-256 of the instance, the node count and the leaves' Sum (New). The
// zero value is no certificate.
type Certificate uint64

// String returns the certificate as 16 hexadecimal digits.
func (c Certificate) String() string { return fmt.Sprintf("%016x", uint64(c)) }

// domain separates the certificates of this scheme from other SHA-256
// hashes; a new scheme gets a new domain.
const domain = "treelb certificate v1\x00"

// New returns the certificate of a search of instance, a canonical
// description of what was searched (the app and every parameter that
// shapes the tree, say "golomb --count 72 11"), that expanded nodes nodes,
// whose leaves sum to sum, and whose other invariant results are more
// (solutions, leaves, a value's bits), in order. It is the first 8 bytes
// of the SHA-256 of all of them. O(len(instance) + len(more)).
func New(instance string, nodes int64, sum uint64, more ...uint64) Certificate {
	h := sha256.New()
	b := make([]byte, 0, len(domain)+len(instance)+1+8*(3+len(more)))
	b = append(append(append(b, domain...), instance...), 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(nodes))
	b = binary.LittleEndian.AppendUint64(b, sum)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(more)))
	for _, v := range more {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	h.Write(b)
	return Certificate(binary.BigEndian.Uint64(h.Sum(nil)))
}
