package hashtable

import (
	"fmt"
	"iter"
	"math"
	"math/bits"
	"unsafe"

	"github.com/cespare/xxhash/v2"
)

// bucket is one slot of the bucket array: the head of its collision chain
// (entry index + 1, 0 for an empty chain) and the chain's length.
type bucket struct {
	head int32
	n    int32
}

// entry is one element of a chain. For uint64 keys it is 24 bytes, for
// strings 32: key, value, successor and 32 bits of the hash, which rejects
// most mismatches without touching the bytes of a string key.
type entry[K Key] struct {
	key  K
	val  uint64
	next int32 // entry index + 1 of the successor, 0 at the end of the chain
	tag  uint32
}

// MaxEntries is the most elements one subtable holds (chains link entries by
// 32-bit indices).
const MaxEntries = math.MaxInt32 - 1

// Local is a hash table with separate (indirect) chaining on one rank: an
// array of buckets, each the head of a chain of entries, as in seed 004
// §2.1. It maps keys to uint64 values. The number of buckets is fixed when
// it is made (the load factor n/m is the caller's choice, as in the seed).
// Entries live in one slice and are linked by index, freed entries are
// reused, and string keys are copied into an arena of large chunks, so
// operations allocate only when a slice or the arena grows.
//
// Standing alone (NewLocal) it is an ordinary hash table; inside a Table it
// is the subtable of one rank. The zero value is not usable. It is not safe
// for concurrent use. Insert, Search and Delete cost O(1 + chain length),
// expected O(1 + n/m).
type Local[K Key] struct {
	lay     Layout
	buckets []bucket
	entries []entry[K]
	free    int32 // head of the list of freed entries (index + 1)
	n       int
	isStr   bool
	arena   []byte   // current chunk of the string-key arena
	spare   [][]byte // emptied chunks Reset keeps for reuse
	used    [][]byte // chunks filled since the last Reset
	exposed bool     // All has handed out keys, so chunks must not be reused
	live    int      // bytes of the arena held by live keys
	garbage int      // bytes of the arena held by deleted keys
	sink    uint32   // keeps the loads of prefetch alive
}

// NewLocal returns an empty single-rank table of m ≥ 1 buckets with room
// for about capHint elements before its entry slice grows.
func NewLocal[K Key](m, capHint int) (*Local[K], error) {
	lay, err := NewLayout(1, m, Block)
	if err != nil {
		return nil, err
	}
	return newLocal[K](lay, 0, capHint)
}

// newLocal returns the subtable of rank r under layout lay.
func newLocal[K Key](lay Layout, r, capHint int) (*Local[K], error) {
	if capHint < 0 || capHint > MaxEntries {
		return nil, fmt.Errorf("hashtable: capacity hint %d out of range", capHint)
	}
	var zero K
	_, isStr := any(zero).(string)
	return &Local[K]{
		lay:     lay,
		buckets: make([]bucket, lay.Size(r)),
		entries: make([]entry[K], 0, capHint),
		isStr:   isStr,
	}, nil
}

// Len returns the number of elements.
func (t *Local[K]) Len() int { return t.n }

// Buckets returns the number of buckets of this (sub)table.
func (t *Local[K]) Buckets() int { return len(t.buckets) }

// Occupancy returns the length of the chain of local bucket j.
func (t *Local[K]) Occupancy(j int) int { return int(t.buckets[j].n) }

// Layout returns the layout the table's buckets belong to.
func (t *Local[K]) Layout() Layout { return t.lay }

// Slot returns the local bucket that key k hashes to. For a subtable of a
// Table it is meaningful only for keys this rank owns.
func (t *Local[K]) Slot(k K) int {
	j, _ := t.find(k)
	return int(j)
}

// hash is Hash without the type switch on the key's dynamic type.
func (t *Local[K]) hash(k K) uint64 {
	// K is uint64 or string (the Key constraint); isStr tells which.
	if !t.isStr {
		return Mix64(*(*uint64)(unsafe.Pointer(&k)))
	}
	return xxhash.Sum64String(*(*string)(unsafe.Pointer(&k)))
}

// find returns the local bucket of k and the tag of its hash, in one call.
func (t *Local[K]) find(k K) (j int32, tag uint32) {
	var h uint64
	if !t.isStr {
		h = Mix64(*(*uint64)(unsafe.Pointer(&k)))
	} else {
		h = xxhash.Sum64String(*(*string)(unsafe.Pointer(&k)))
	}
	if t.lay.fast {
		_, lo := bits.Mul64(h, t.lay.p)
		b, _ := bits.Mul64(lo, t.lay.q)
		return int32(b), uint32(h)
	}
	_, b := t.lay.locateSlow(h)
	return int32(b), uint32(h)
}

// Search returns the value of k and whether k is present.
func (t *Local[K]) Search(k K) (uint64, bool) {
	v, ok, _ := t.SearchWork(k)
	return v, ok
}

// SearchWork is Search that also returns the essential work of seed 004
// §4.2 for this search: the chain length plus one (the bucket slot), the
// cost of an unsuccessful search, charged whether or not k is found (the
// seed's pessimistic estimate).
func (t *Local[K]) SearchWork(k K) (val uint64, found bool, work int) {
	j, tag := t.find(k)
	b := &t.buckets[j]
	for i := b.head; i != 0; {
		e := &t.entries[i-1]
		if e.tag == tag && e.key == k {
			return e.val, true, int(b.n) + 1
		}
		i = e.next
	}
	return 0, false, int(b.n) + 1
}

// Insert sets the value of k to v and reports whether k was new. A new key
// goes to the head of its chain after an unsuccessful search of the chain.
func (t *Local[K]) Insert(k K, v uint64) bool {
	ok, _ := t.InsertWork(k, v)
	return ok
}

// InsertWork is Insert that also returns the essential work of seed 004
// §4.2: the chain length before the insert plus one, the cost of the search
// that precedes it. Inserting B keys into one empty chain costs
// B(B+1)/2 in all.
func (t *Local[K]) InsertWork(k K, v uint64) (inserted bool, work int) {
	j, tag := t.find(k)
	return t.insertAt(k, v, j, tag)
}

// insertAt is InsertWork for a key whose local bucket and tag are known.
func (t *Local[K]) insertAt(k K, v uint64, j int32, tag uint32) (inserted bool, work int) {
	b := &t.buckets[j]
	for i := b.head; i != 0; {
		e := &t.entries[i-1]
		if e.tag == tag && e.key == k {
			e.val = v
			return false, int(b.n) + 1
		}
		i = e.next
	}
	work = int(b.n) + 1
	var idx int32
	if t.free != 0 {
		idx = t.free - 1
		t.free = t.entries[idx].next
	} else {
		if len(t.entries) >= MaxEntries {
			panic("hashtable: subtable full")
		}
		t.entries = append(t.entries, entry[K]{})
		idx = int32(len(t.entries) - 1)
	}
	e := &t.entries[idx]
	e.key, e.val, e.tag, e.next = t.own(k), v, tag, b.head
	b.head = idx + 1
	b.n++
	t.n++
	return true, work
}

// Delete removes k and reports whether it was present.
func (t *Local[K]) Delete(k K) bool {
	j, tag := t.find(k)
	b := &t.buckets[j]
	for prev, i := int32(0), b.head; i != 0; prev, i = i, t.entries[i-1].next {
		e := &t.entries[i-1]
		if e.tag != tag || e.key != k {
			continue
		}
		if prev == 0 {
			b.head = e.next
		} else {
			t.entries[prev-1].next = e.next
		}
		b.n--
		t.n--
		t.disown(e.key)
		*e = entry[K]{next: t.free}
		t.free = i
		return true
	}
	return false
}

// All iterates over the elements bucket by bucket. The table must not be
// changed during the iteration.
func (t *Local[K]) All() iter.Seq2[K, uint64] {
	t.exposed = true
	return func(yield func(K, uint64) bool) {
		for _, b := range t.buckets {
			for i := b.head; i != 0; i = t.entries[i-1].next {
				e := &t.entries[i-1]
				if !yield(e.key, e.val) {
					return
				}
			}
		}
	}
}

// Reset empties the table and keeps its memory for reuse. Strings obtained
// from the table (by All) stay valid: once All has been called, Reset
// leaves the string arena to the garbage collector instead of reusing it.
func (t *Local[K]) Reset() {
	clear(t.buckets)
	clear(t.entries) // drop string references
	t.entries = t.entries[:0]
	t.free, t.n = 0, 0
	t.live, t.garbage = 0, 0
	if t.exposed || !t.isStr {
		t.arena, t.spare, t.used, t.exposed = nil, nil, nil, false
		return
	}
	if t.arena != nil {
		t.used = append(t.used, t.arena)
	}
	for _, c := range t.used {
		t.spare = append(t.spare, c[:0])
	}
	clear(t.used)
	t.arena, t.used = nil, t.used[:0]
}

// The string-key arena. A key is copied into the current chunk and the
// table keeps a string pointing there; chunks are never written again, so
// the strings stay immutable, and a chunk is freed by the garbage collector
// once no key points into it. Deleted keys leave garbage, and the arena is
// compacted when garbage exceeds both the live bytes and one chunk.

const chunkSize = 64 << 10

// own returns the key to store: integers as they are, strings copied into
// the arena (the caller's bytes may be a reused receive buffer).
func (t *Local[K]) own(k K) K {
	if !t.isStr {
		return k
	}
	s := *(*string)(unsafe.Pointer(&k))
	c := t.copyString(s)
	return *(*K)(unsafe.Pointer(&c))
}

func (t *Local[K]) copyString(s string) string {
	n := len(s)
	if n == 0 {
		return ""
	}
	t.live += n
	if n > chunkSize/4 { // large keys get a chunk of their own
		b := make([]byte, n)
		copy(b, s)
		return unsafe.String(&b[0], n)
	}
	if cap(t.arena)-len(t.arena) < n {
		if t.arena != nil {
			t.used = append(t.used, t.arena)
		}
		if k := len(t.spare); k > 0 {
			t.arena, t.spare = t.spare[k-1], t.spare[:k-1]
		} else {
			t.arena = make([]byte, 0, chunkSize)
		}
	}
	off := len(t.arena)
	t.arena = append(t.arena, s...)
	return unsafe.String(&t.arena[off], n)
}

func (t *Local[K]) disown(k K) {
	if !t.isStr {
		return
	}
	n := len(*(*string)(unsafe.Pointer(&k)))
	t.live -= n
	t.garbage += n
	if t.garbage > chunkSize && t.garbage > t.live {
		t.compact()
	}
}

// compact copies every live string key into fresh chunks.
func (t *Local[K]) compact() {
	// The old chunks may hold exposed strings: leave them to the collector.
	t.arena, t.spare, t.used, t.live, t.garbage = nil, nil, nil, 0, 0
	for _, b := range t.buckets {
		for i := b.head; i != 0; i = t.entries[i-1].next {
			e := &t.entries[i-1]
			e.key = t.own(e.key)
		}
	}
}

// group is how many keys the batch operations look up together: they first
// load the buckets of a whole group, then the chain heads, then search, so
// that the cache misses of independent keys overlap instead of queueing.
const group = 16

// prefetch loads the buckets and chain heads of keys (at most group of
// them), records their local buckets and hash tags, and returns a value
// derived from the loaded memory so the loads are not optimised away.
func (t *Local[K]) prefetch(keys []K, js *[group]int32, tags *[group]uint32) uint32 {
	var acc uint32
	for i, k := range keys {
		j, tag := t.find(k)
		js[i], tags[i] = j, tag
		acc += uint32(t.buckets[j].head)
	}
	for i := range keys {
		if hd := t.buckets[js[i]].head; hd != 0 {
			acc += t.entries[hd-1].tag
		}
	}
	return acc
}

// SearchBatch searches every key of keys: vals[i] and found[i] receive the
// value and presence of keys[i] (either slice may be nil, otherwise it is as
// long as keys). It returns the essential work, Σ (chain length + 1) as in
// SearchWork. Throughput is higher than that of Search in a loop on tables
// larger than the caches.
func (t *Local[K]) SearchBatch(keys []K, vals []uint64, found []bool) (work int64) {
	var js [group]int32
	var tags [group]uint32
	for base := 0; base < len(keys); base += group {
		ks := keys[base:min(base+group, len(keys))]
		t.sink += t.prefetch(ks, &js, &tags)
		for i, k := range ks {
			b := &t.buckets[js[i]]
			work += int64(b.n) + 1
			var v uint64
			ok := false
			for e := b.head; e != 0; {
				en := &t.entries[e-1]
				if en.tag == tags[i] && en.key == k {
					v, ok = en.val, true
					break
				}
				e = en.next
			}
			if vals != nil {
				vals[base+i] = v
			}
			if found != nil {
				found[base+i] = ok
			}
		}
	}
	return work
}

// InsertBatch inserts keys[i] with value vals[i] (0 if vals is nil) in
// order, as Insert does; inserted[i], unless inserted is nil, reports
// whether keys[i] was new. It returns the number of new keys and the
// essential work, Σ (chain length before the insert + 1) as in InsertWork.
func (t *Local[K]) InsertBatch(keys []K, vals []uint64, inserted []bool) (added int, work int64) {
	var js [group]int32
	var tags [group]uint32
	for base := 0; base < len(keys); base += group {
		ks := keys[base:min(base+group, len(keys))]
		t.sink += t.prefetch(ks, &js, &tags)
		for i, k := range ks {
			var v uint64
			if vals != nil {
				v = vals[base+i]
			}
			ok, w := t.insertAt(k, v, js[i], tags[i])
			work += int64(w)
			if ok {
				added++
			}
			if inserted != nil {
				inserted[base+i] = ok
			}
		}
	}
	return added, work
}

// Optimize lays every chain out contiguously, in bucket order, and drops
// freed entries, so that walking a chain reads consecutive memory instead of
// entries scattered in insertion order: unsuccessful searches, which walk
// whole chains, get several times faster on tables larger than the caches.
// Contents, chain order and work counts do not change. Call it after a bulk
// load of a table that is then mostly searched (the old table of a round).
// O(m + n) time; it allocates a second entry slice while it runs.
func (t *Local[K]) Optimize() {
	out := make([]entry[K], 0, max(t.n, cap(t.entries)))
	for j := range t.buckets {
		b := &t.buckets[j]
		i := b.head
		if i == 0 {
			continue
		}
		b.head = int32(len(out)) + 1
		for ; i != 0; i = t.entries[i-1].next {
			e := t.entries[i-1]
			e.next = int32(len(out)) + 2
			out = append(out, e)
		}
		out[len(out)-1].next = 0
	}
	t.entries, t.free = out, 0
}
