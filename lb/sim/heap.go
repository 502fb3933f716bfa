package sim

// event is one event of the simulator: at virtual time at (ps), of a
// class (the order of events at the same time) and a sequence number (the
// order within a class), for rank; msg indexes the message of an arrival.
type event struct {
	at   int64
	key  uint64 // class<<classShift | sequence number
	rank int32
	msg  int32
}

// The classes of events, in their order at equal times: work slices and
// message handling end first, then messages arrive, then idle ranks start
// their next slice. So with zero delays (the unit machine) every message
// sent at the end of a step is delivered before the next step starts. A
// tick of throttling comes after the arrivals of its time.
const (
	classCPU    = iota // a rank's CPU is free again
	classArrive        // a message arrives
	classTick          // an idle rank's tick (throttling)
	classStart         // a rank may start a slice
	classShift  = 62
)

func (e *event) class() int { return int(e.key >> classShift) }

// eventHeap is a 4-ary min-heap of events by (at, key), typed so that
// pushing and popping neither box nor allocate beyond the slice's growth;
// four children per node halve the depth of a binary heap and keep the
// children of a node in one or two cache lines. O(log n) per operation.
type eventHeap []event

func (h eventHeap) less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].key < h[j].key
}

func (h *eventHeap) push(e event) {
	*h = append(*h, e)
	q := *h
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *eventHeap) pop() event {
	q := *h
	e := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if q.less(k, m) {
				m = k
			}
		}
		if !q.less(m, i) {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return e
}
