package hashtable

import (
	"math"

	"github.com/cespare/xxhash/v2"
)

// Key is the set of key types a table holds: 64-bit integers and byte
// strings (a Go string is an immutable byte string; convert a []byte with
// string(b)).
type Key interface {
	uint64 | string
}

// Mix64 is the finalizer of SplitMix64 (Steele, Lea and Flood, OOPSLA 2014,
// with the multipliers of Stafford's "variant 13"): a bijection of the 64-bit
// integers in which every input bit affects every output bit. It is the hash
// of uint64 keys. It is safe for concurrent use and costs O(1): two
// multiplications and three shifts.
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Hash returns the 64-bit hash of k: Mix64 for uint64 keys, XXH64 with seed
// 0 (github.com/cespare/xxhash/v2) for byte strings. Both are fixed
// functions of the key alone, identical in every process, rank and
// architecture; neither is Go's per-process seeded map hash. It is safe for
// concurrent use; O(len(k)) for strings, O(1) for integers.
func Hash[K Key](k K) uint64 {
	switch v := any(k).(type) {
	case uint64:
		return Mix64(v)
	case string:
		return xxhash.Sum64String(v)
	}
	panic("hashtable: unreachable key type")
}

const golden = 0x9e3779b97f4a7c15 // 2^64 / φ, SplitMix64's increment

// Rand is a SplitMix64 pseudo-random generator: fast, 64 bits of state,
// statistically sound for simulation (it passes BigCrush), and cheap to split
// into independent streams with StreamSeed. The zero value is a generator
// seeded with 0. It is not safe for concurrent use; every method is O(1)
// except Poisson (O(1) expected).
type Rand struct{ s uint64 }

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *Rand { return &Rand{s: seed} }

// StreamSeed derives the seed of an independent stream from a base seed and
// a path of identifiers (round, rank, purpose, …), so that every rank can
// seed its own generator without communication and without shared state.
func StreamSeed(seed uint64, ids ...uint64) uint64 {
	h := Mix64(seed + golden)
	for _, id := range ids {
		h = Mix64(h ^ Mix64(id+golden))
	}
	return h
}

// Uint64 returns 64 uniformly random bits.
func (r *Rand) Uint64() uint64 {
	r.s += golden
	return Mix64(r.s)
}

// Float64 returns a uniform number in [0, 1).
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// Below returns a uniform integer in [0, n) by Lemire's multiply-shift; its
// bias, at most n/2^64, is negligible. n must be positive.
func (r *Rand) Below(n uint64) uint64 {
	hi, _ := mulhi(r.Uint64(), n)
	return hi
}

// Poisson returns a Poisson-distributed count with mean lambda ≥ 0: by
// inversion for lambda < 10 and by Hörmann's transformed rejection with
// squeeze (PTRS, 1993) above, whose expected cost does not grow with lambda.
func (r *Rand) Poisson(lambda float64) int64 {
	switch {
	case lambda <= 0:
		return 0
	case lambda < 10:
		// Inversion: walk the distribution function until it passes u.
		u := r.Float64()
		p := math.Exp(-lambda)
		f := p
		var k int64
		for u > f && k < 1000 {
			k++
			p *= lambda / float64(k)
			f += p
		}
		return k
	}
	sl := math.Sqrt(lambda)
	ll := math.Log(lambda)
	b := 0.931 + 2.53*sl
	a := -0.059 + 0.02483*b
	inva := 1.1239 + 1.1328/(b-3.4)
	vr := 0.9277 - 3.6224/(b-2)
	for {
		u := r.Float64() - 0.5
		v := r.Float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lambda + 0.43)
		if us >= 0.07 && v <= vr {
			return int64(k)
		}
		if k < 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v)+math.Log(inva)-math.Log(a/(us*us)+b) <= -lambda+k*ll-lg {
			return int64(k)
		}
	}
}
