package lb

// rpLocal is random polling with localized requests (seed 002, §6.2). The
// P pieces of fast initialisation are placed by a pseudo-random permutation
// shared by all ranks, so busy clusters cannot form at once. An idle rank
// asks only within a neighbour set of ranks close to it in rank order (a
// window of the ring of ranks); the set starts with 4 ranks, doubles after
// every request, and goes back to 4 once every rank was reachable or work
// arrived.
//
// The options give the variants §6.2 reports as slower than global random
// polling: a fixed radius (the set never grows, no request goes
// globally), a set growing by a factor below 2, and the pieces placed in
// rank order (rank r starts with piece r, so neighbouring ranks hold
// neighbouring subtrees).
type rpLocal struct {
	*randomPolling
	set    int
	radius int     // fixed ring distance, 0: the growing set
	growth float64 // the set's factor per request
}

func newRPLocal(env Env) (Balancer, error) {
	o, err := optionsOf[RPLocalOptions](env, "rp-local")
	if err != nil {
		return nil, err
	}
	l := &rpLocal{randomPolling: newRP(env, o.QueueLimit, false), set: 4, radius: o.Radius, growth: o.Growth}
	if l.growth == 0 {
		l.growth = 2
	}
	l.requestFrom = l.pick
	l.needsRoot = true // every rank starts from a piece of the root
	// Rank r starts with the fast-initialisation piece of the virtual rank
	// v = π⁻¹(r), π shared by all ranks; with OrderedInit, v = r.
	l.initial = func(root Task) []Task {
		v := l.rank
		if !o.OrderedInit {
			pi := newRankPerm(l.env.Seed, 0x10ca1, l.size)
			v = pi.inv(l.rank)
		}
		if t := fastInitPiece(root, v, l.size, l.env.cuts); t != nil {
			return []Task{t}
		}
		return nil
	}
	return l, nil
}

func (l *rpLocal) Deliver(m Msg) {
	if m.Kind == KWork {
		l.set = 4
	}
	l.randomPolling.Deliver(m)
}

// pick chooses a rank of the neighbour set: within ring distance set/2,
// or the fixed radius.
func (l *rpLocal) pick() int {
	p, s := l.size, l.set
	half := max(1, s/2)
	switch {
	case l.radius > 0:
		half = l.radius
		if half >= p/2 { // the radius reaches every rank (2·half ≥ p−1, without the product's overflow)
			return otherRank(l.env.Rand, l.rank, 0, p)
		}
	case s >= p:
		l.set = 4
		return otherRank(l.env.Rand, l.rank, 0, p)
	default:
		l.set = max(s+1, int(float64(s)*l.growth))
	}
	off := 1 + l.env.Rand.IntN(half)
	if l.env.Rand.IntN(2) == 0 {
		off = -off
	}
	return ((l.rank+off)%p + p) % p
}
