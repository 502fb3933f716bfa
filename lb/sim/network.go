package sim

import "github.com/treelb/treelb/lb"

// delay returns the time a message of n data bytes from rank `from` to rank
// to, leaving at dep, takes to arrive; with contention it reserves the
// links of its path.
func (s *sim) delay(from, to, n int, dep int64) int64 {
	m := s.m
	xfer := int64(n+lb.MessageEnvelope) * m.byteT
	d := m.latency + xfer
	if m.width > 0 {
		hops := s.hops(from, to)
		if s.links != nil && hops > 0 {
			d = s.route(from, to, dep+m.latency, xfer) - dep
		} else {
			d += int64(hops) * m.hop
			if m.StoreForward && hops > 1 {
				d += int64(hops-1) * xfer
			}
		}
	}
	if m.jitter > 0 {
		d += s.jitter.Int64N(m.jitter + 1)
	}
	return d
}

// hops returns the length of the dimension-order path between two ranks on
// the mesh.
func (s *sim) hops(a, b int) int {
	w := s.m.width
	dx, dy := a%w-b%w, a/w-b/w
	return abs(dx) + abs(dy)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Directions of a mesh link leaving a node.
const (
	dirEast = iota
	dirWest
	dirSouth
	dirNorth
)

// route sends a message whose head enters the mesh at t along the
// dimension-order path from `from` to to, each link busy for xfer and each
// hop costing HopNS (plus xfer when storing and forwarding), and returns
// its arrival time. A link already reserved delays the message until it is
// free.
func (s *sim) route(from, to int, t, xfer int64) int64 {
	m := s.m
	w := m.width
	x, y := from%w, from/w
	tx, ty := to%w, to/w
	step := func(dir int) {
		l := 4*(y*w+x) + dir
		start := max(t, s.links[l])
		s.links[l] = start + xfer
		t = start + m.hop
		if m.StoreForward {
			t += xfer
		}
	}
	for x != tx {
		if x < tx {
			step(dirEast)
			x++
		} else {
			step(dirWest)
			x--
		}
	}
	for y != ty {
		if y < ty {
			step(dirSouth)
			y++
		} else {
			step(dirNorth)
			y--
		}
	}
	if !m.StoreForward {
		t += xfer // the tail follows the head
	}
	return t
}

// pathDelay is the delay of a message of n bytes between two ranks with no
// jitter and no contention, overheads of both ends included: the cost of
// one step of the final reduction and broadcast.
func (s *sim) pathDelay(from, to, n int) int64 {
	m := s.m
	xfer := int64(n+lb.MessageEnvelope) * m.byteT
	d := 2*m.overhead + m.send + m.recv + int64(n)*(m.sendByte+m.recvByte) + m.latency + xfer
	if m.width > 0 {
		hops := s.hops(from, to)
		d += int64(hops) * m.hop
		if m.StoreForward && hops > 1 {
			d += int64(hops-1) * xfer
		}
	}
	return d
}
