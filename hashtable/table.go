package hashtable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/treelb/treelb/mpi"
)

// Config describes a distributed table. The zero value is invalid: set Q or
// Buckets.
type Config struct {
	// Q is the number of buckets per rank: m = p·Q. Ignored if Buckets > 0.
	Q int
	// Buckets is the total number of buckets m, for tables where p does not
	// divide m (see Balanced).
	Buckets int
	// Alloc maps buckets to ranks.
	Alloc Alloc
	// Capacity is a hint: the number of elements each subtable is sized for.
	Capacity int
}

// Table is a distributed hash table with separate chaining (seed 004 §2.1):
// m buckets split into one subtable per rank of a communicator by a Layout.
// Every rank holds a *Table made by New with the same Config; the batch
// operations are collective: every rank calls them in the same order, each
// with its own batch (possibly empty), and each batch is dispatched to the
// owners with one all-to-all exchange (an Alltoall of the byte counts, then
// one Alltoallv in which the elements for one destination travel packed
// together). Operations that return results (Search, and Insert or Delete
// with a non-nil result slice) add one Alltoallv of the replies, whose sizes
// every rank already knows.
//
// Within a batch, an owner applies the elements it receives in order of
// source rank, and those of one source in batch order.
//
// The zero value is not usable. A Table belongs to its rank's goroutine and
// is not safe for concurrent use. A batch of n elements costs O(n/p) local
// work per rank when keys are spread evenly, plus the exchange; buffers are
// reused, so steady-state batches do not allocate.
type Table[K Key] struct {
	c     *mpi.Comm
	lay   Layout
	local *Local[K]

	// Scratch reused by every batch.
	owners         []int32
	scount, sdispl []int // bytes per destination
	rcount, rdispl []int // bytes per source
	ecount         []int // elements per destination
	nrecv          []int // elements from each source
	cursor         []int
	hdrS, hdrR     []byte
	want           []bool // per source: wants replies
	send, recv     []byte
	rsend, rrecv   []byte
	rsc, rsd       []int // reply bytes to each source
	rrc, rrd       []int // reply bytes from each owner
	keys           []K   // received keys
	vals           []uint64
	flags          []bool
}

// New returns this rank's handle on an empty distributed table. It is not
// collective, but every rank must use the same Config.
func New[K Key](c *mpi.Comm, cfg Config) (*Table[K], error) {
	p := c.Size()
	m := cfg.Buckets
	if m <= 0 {
		if cfg.Q < 1 {
			return nil, fmt.Errorf("hashtable: New: q = %d buckets per rank, need at least 1", cfg.Q)
		}
		m = p * cfg.Q
		if m/p != cfg.Q {
			return nil, fmt.Errorf("hashtable: New: %d ranks × %d buckets overflows", p, cfg.Q)
		}
	}
	lay, err := NewLayout(p, m, cfg.Alloc)
	if err != nil {
		return nil, fmt.Errorf("hashtable: New: %w", err)
	}
	local, err := newLocal[K](lay, c.Rank(), cfg.Capacity)
	if err != nil {
		return nil, fmt.Errorf("hashtable: New: %w", err)
	}
	return &Table[K]{
		c: c, lay: lay, local: local,
		scount: make([]int, p), sdispl: make([]int, p),
		rcount: make([]int, p), rdispl: make([]int, p),
		ecount: make([]int, p), nrecv: make([]int, p), cursor: make([]int, p),
		hdrS: make([]byte, 8*p), hdrR: make([]byte, 8*p), want: make([]bool, p),
		rsc: make([]int, p), rsd: make([]int, p), rrc: make([]int, p), rrd: make([]int, p),
	}, nil
}

// Local returns this rank's subtable. Changing it directly is allowed (the
// four phases do) as long as only keys this rank owns go into it.
func (t *Table[K]) Local() *Local[K] { return t.local }

// Layout returns the table's layout.
func (t *Table[K]) Layout() Layout { return t.lay }

// Comm returns the communicator of the table.
func (t *Table[K]) Comm() *mpi.Comm { return t.c }

// Len returns the number of elements in this rank's subtable.
func (t *Table[K]) Len() int { return t.local.n }

// GlobalLen returns the number of elements in the whole table. Collective.
func (t *Table[K]) GlobalLen() (int64, error) {
	in, out := []int64{int64(t.local.n)}, []int64{0}
	if err := mpi.Allreduce(t.c, in, out, mpi.Sum); err != nil {
		return 0, fmt.Errorf("hashtable: GlobalLen: %w", err)
	}
	return out[0], nil
}

// Reset empties this rank's subtable; call it on every rank to empty the
// table. Not collective.
func (t *Table[K]) Reset() { t.local.Reset() }

type op int

const (
	opRoute op = iota
	opInsert
	opSearch
	opDelete
)

func (o op) String() string {
	return [...]string{"Route", "Insert", "Search", "Delete"}[o]
}

// replySize is the number of reply bytes per element.
func (o op) replySize() int {
	if o == opSearch {
		return 9 // found flag and value
	}
	return 1
}

// Insert inserts keys[i] with value vals[i] (0 if vals is nil) into the
// table; if inserted is not nil, inserted[i] reports whether keys[i] was new
// to the table. Collective.
func (t *Table[K]) Insert(keys []K, vals []uint64, inserted []bool) error {
	if err := checkLens("Insert", len(keys), given(vals), given(inserted)); err != nil {
		return err
	}
	return t.batch(opInsert, keys, vals, inserted, nil)
}

// Search looks up every key: vals[i] and found[i] receive the value and
// presence of keys[i]; either may be nil. Collective.
func (t *Table[K]) Search(keys []K, vals []uint64, found []bool) error {
	if err := checkLens("Search", len(keys), given(vals), given(found)); err != nil {
		return err
	}
	return t.batch(opSearch, keys, nil, found, vals)
}

// Delete removes every key; if deleted is not nil, deleted[i] reports
// whether keys[i] was present. Collective.
func (t *Table[K]) Delete(keys []K, deleted []bool) error {
	if err := checkLens("Delete", len(keys), -1, given(deleted)); err != nil {
		return err
	}
	return t.batch(opDelete, keys, nil, deleted, nil)
}

// Route dispatches keys to their owners and returns the keys this rank
// received, grouped by source rank in rank order, each group in its
// sender's order: the dispatch phase on its own (seed 004 §2.2 (2)). The
// result is valid until the next batch; string keys in it point into the
// receive buffer. Collective.
func (t *Table[K]) Route(keys []K) ([]K, error) {
	if err := t.batch(opRoute, keys, nil, nil, nil); err != nil {
		return nil, err
	}
	return t.keys, nil
}

// checkLens checks the lengths of a batch's slices against its n keys:
// vals and res are the lengths of the values and the results given, -1
// for a nil slice (not given); an empty slice that is not nil is given.
func checkLens(fn string, n, vals, res int) error {
	if vals >= 0 && vals != n {
		return fmt.Errorf("hashtable: %s: %d values for %d keys", fn, vals, n)
	}
	if res >= 0 && res != n {
		return fmt.Errorf("hashtable: %s: %d result slots for %d keys", fn, res, n)
	}
	return nil
}

// given returns len(s), or -1 when s is nil (checkLens).
func given[T any](s []T) int {
	if s == nil {
		return -1
	}
	return len(s)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// keySize returns the packed size of k: 8 bytes for an integer, a uvarint
// length and the bytes for a string.
func keySize[K Key](k K) int {
	switch v := any(k).(type) {
	case string:
		n := len(v)
		l := 1
		for x := n >> 7; x != 0; x >>= 7 {
			l++
		}
		return l + n
	}
	return 8
}

func putKey[K Key](b []byte, k K) int {
	switch v := any(k).(type) {
	case uint64:
		binary.LittleEndian.PutUint64(b, v)
		return 8
	case string:
		n := binary.PutUvarint(b, uint64(len(v)))
		return n + copy(b[n:], v)
	}
	panic("hashtable: unreachable key type")
}

// getKey decodes the key at the start of b; a string key points into b.
func getKey[K Key](b []byte, isStr bool) (K, int, error) {
	var k K
	if !isStr {
		if len(b) < 8 {
			return k, 0, errors.New("truncated key")
		}
		*(*uint64)(unsafe.Pointer(&k)) = binary.LittleEndian.Uint64(b)
		return k, 8, nil
	}
	n, l := binary.Uvarint(b)
	if l <= 0 || uint64(len(b)-l) < n {
		return k, 0, errors.New("truncated key")
	}
	var s string
	if n > 0 {
		s = unsafe.String(&b[l], int(n))
	}
	*(*string)(unsafe.Pointer(&k)) = s
	return k, l + int(n), nil
}

// batch is the body of every collective operation: pack by owner, exchange
// counts and elements, apply op to the elements received, and send replies
// back if any rank asked for them. res is the per-key flag result and out
// the per-key value result of this rank's keys.
func (t *Table[K]) batch(o op, keys []K, vals []uint64, res []bool, out []uint64) error {
	p := t.c.Size()
	withVal := o == opInsert
	wants := res != nil || out != nil || o == opSearch

	// Pack: count bytes per owner, then place each element at its owner's
	// cursor, so that elements for one destination are contiguous.
	t.owners = grow(t.owners, len(keys))
	clear(t.scount)
	clear(t.ecount)
	for i, k := range keys {
		r := t.lay.Owner(t.local.hash(k))
		t.owners[i] = int32(r)
		sz := keySize(k)
		if withVal {
			sz += 8
		}
		t.scount[r] += sz
		t.ecount[r]++
	}
	total := 0
	for r := range p {
		t.sdispl[r], t.cursor[r] = total, total
		total += t.scount[r]
	}
	t.send = grow(t.send, total)
	for i, k := range keys {
		r := t.owners[i]
		c := t.cursor[r]
		c += putKey(t.send[c:], k)
		if withVal {
			var v uint64
			if vals != nil {
				v = vals[i]
			}
			binary.LittleEndian.PutUint64(t.send[c:], v)
			c += 8
		}
		t.cursor[r] = c
	}

	// Exchange the byte counts, with this rank's reply wish in the low bit.
	for r := range p {
		w := uint64(t.scount[r]) << 1
		if wants {
			w |= 1
		}
		binary.LittleEndian.PutUint64(t.hdrS[8*r:], w)
	}
	if err := t.c.Alltoall(t.hdrS, t.hdrR); err != nil {
		return fmt.Errorf("hashtable: %v: count exchange: %w", o, err)
	}
	anyWant := false
	total = 0
	for r := range p {
		w := binary.LittleEndian.Uint64(t.hdrR[8*r:])
		t.rcount[r], t.rdispl[r] = int(w>>1), total
		t.want[r] = w&1 != 0
		anyWant = anyWant || t.want[r]
		total += t.rcount[r]
	}
	t.recv = grow(t.recv, total)
	if err := t.c.Alltoallv(t.send, t.scount, t.sdispl, t.recv, t.rcount, t.rdispl); err != nil {
		return fmt.Errorf("hashtable: %v: element exchange: %w", o, err)
	}

	// Decode what arrived.
	t.keys, t.vals = t.keys[:0], t.vals[:0]
	for r := range p {
		seg := t.recv[t.rdispl[r] : t.rdispl[r]+t.rcount[r]]
		before := len(t.keys)
		for len(seg) > 0 {
			k, l, err := getKey[K](seg, t.local.isStr)
			if err != nil || (withVal && len(seg) < l+8) {
				return fmt.Errorf("hashtable: %v: malformed batch from rank %d", o, r)
			}
			t.keys = append(t.keys, k)
			seg = seg[l:]
			if withVal {
				t.vals = append(t.vals, binary.LittleEndian.Uint64(seg))
				seg = seg[8:]
			}
		}
		t.nrecv[r] = len(t.keys) - before
	}
	n := len(t.keys)

	// Apply, in source order.
	t.flags = grow(t.flags, n)
	var rv []uint64
	switch o {
	case opInsert:
		t.local.InsertBatch(t.keys, t.vals, t.flags)
	case opSearch:
		t.vals = grow(t.vals, n)
		rv = t.vals
		t.local.SearchBatch(t.keys, rv, t.flags)
	case opDelete:
		for i, k := range t.keys {
			t.flags[i] = t.local.Delete(k)
		}
	}
	if o == opRoute || !anyWant {
		return nil
	}

	// Replies: to each source that asked, one record per element in the
	// order received; from each owner, one per element this rank sent.
	rs := o.replySize()
	total = 0
	for r := range p {
		t.rsd[r], t.rsc[r] = total, 0
		if t.want[r] {
			t.rsc[r] = t.nrecv[r] * rs
		}
		total += t.rsc[r]
	}
	t.rsend = grow(t.rsend, total)
	i := 0
	for r := range p {
		if t.want[r] {
			b := t.rsend[t.rsd[r] : t.rsd[r]+t.rsc[r]]
			for e := range t.nrecv[r] {
				b[e*rs] = boolByte(t.flags[i+e])
				if rv != nil {
					binary.LittleEndian.PutUint64(b[e*rs+1:], rv[i+e])
				}
			}
		}
		i += t.nrecv[r]
	}
	total = 0
	for r := range p {
		t.rrd[r], t.rrc[r] = total, 0
		if wants {
			t.rrc[r] = t.ecount[r] * rs
		}
		total += t.rrc[r]
		t.cursor[r] = t.rrd[r]
	}
	t.rrecv = grow(t.rrecv, total)
	if err := t.c.Alltoallv(t.rsend, t.rsc, t.rsd, t.rrecv, t.rrc, t.rrd); err != nil {
		return fmt.Errorf("hashtable: %v: reply exchange: %w", o, err)
	}
	if !wants {
		return nil
	}
	for i := range keys {
		r := t.owners[i]
		c := t.cursor[r]
		if res != nil {
			res[i] = t.rrecv[c] != 0
		}
		if out != nil {
			out[i] = binary.LittleEndian.Uint64(t.rrecv[c+1:])
		}
		t.cursor[r] = c + rs
	}
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
