package lb

// newHybrid is random polling started from the static placement, with
// requests only within the rank's cluster: Clusters blocks of consecutive
// ranks, cluster q holding the ranks r with ⌊r·C/P⌋ = q.
func newHybrid(env Env) (Balancer, error) {
	o, err := optionsOf[HybridOptions](env, "hybrid")
	if err != nil {
		return nil, err
	}
	b := newRP(env, o.QueueLimit, false)
	share, err := newLeaves(env, o.Levels, o.Permutation, b.failTask)
	if err != nil {
		return nil, err
	}
	c := max(1, min(o.Clusters, env.Size))
	q := env.Rank * c / env.Size
	first, end := (q*env.Size+c-1)/c, ((q+1)*env.Size+c-1)/c
	b.canAsk = end-first > 1
	b.requestFrom = func() int { return otherRank(b.env.Rand, b.rank, first, end) }
	b.initial = func(Task) []Task { return []Task{share} }
	b.needsRoot = false
	return b, nil
}
