package lb

// rpLocal is random polling with localized requests (seed 002, §6.2). The
// P pieces of fast initialisation are placed by a pseudo-random permutation
// shared by all ranks, so busy clusters cannot form at once. An idle rank
// asks only within a neighbour set of ranks close to it in rank order (a
// window of the ring of ranks); the set starts with 4 ranks, doubles after
// every request, and goes back to 4 once every rank was reachable or work
// arrived.
type rpLocal struct {
	*randomPolling
	set int
}

func newRPLocal(env Env) (Balancer, error) {
	o, err := optionsOf[RPLocalOptions](env, "rp-local")
	if err != nil {
		return nil, err
	}
	l := &rpLocal{randomPolling: newRP(env, o.QueueLimit, false), set: 4}
	l.requestFrom = l.pick
	// Rank r starts with the fast-initialisation piece of the virtual rank
	// v = π⁻¹(r), π shared by all ranks.
	l.initial = func(root Task) []Task {
		pi := newRankPerm(l.env.Seed, 0x10ca1, l.size)
		if t := fastInitPiece(root, pi.inv(l.rank), l.size, l.env.cuts); t != nil {
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

// pick chooses a rank of the neighbour set: within ring distance set/2.
func (l *rpLocal) pick() int {
	p, s := l.size, l.set
	if s >= p {
		l.set = 4
		return otherRank(l.env.Rand, l.rank, 0, p)
	}
	l.set *= 2
	half := max(1, s/2)
	off := 1 + l.env.Rand.IntN(half)
	if l.env.Rand.IntN(2) == 0 {
		off = -off
	}
	return ((l.rank+off)%p + p) % p
}
