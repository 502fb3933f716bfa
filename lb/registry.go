package lb

import (
	"fmt"
	"strings"
)

// Factory makes the balancer of one rank. Any function of this type can be
// run (Config.Balancer), not only the registered ones.
type Factory func(Env) (Balancer, error)

// Info describes a registered balancer.
type Info struct {
	Name string
	Doc  string // one line: what it is and where in the seeds
	// Options is the zero value of the balancer's own options type (its
	// defaults): New reads that type from Env.Options. OptionNames lists
	// their command-line names.
	Options Options
	New     Factory
}

// Balancers returns the registered balancers in a fixed order: the
// asynchronous random polling family first, then poll-and-shuffle, static
// placement and the ring schedulers. It returns a new slice each time.
func Balancers() []Info {
	return []Info{
		{"rp", "asynchronous random polling (seed 002 §4, Fig. 1); --fast-init splits the broadcast root log P times",
			RPOptions{}, newRandomPolling},
		{"rp-local", "localized random polling (seed 002 §6.2): permuted fast init, doubling neighbour sets",
			RPLocalOptions{}, newRPLocal},
		{"ps", "poll-and-shuffle (seed 002 §5, Fig. 2): hypercube phases, random shuffles; --pair-sync, --ask-lower, --shuffle-below refine it (§5.3); its global phases lose to rp beyond a few ranks: not for many ranks (golomb 13 on 64 simulated cluster ranks: efficiency 0.49, rp 0.91)",
			PSOptions{}, newPollShuffle},
		{"static", "randomized static load balancing (seed 000 Fig. 1, seed 001 §3): 2^k leaves placed by a pseudo-random permutation; nothing moves after the placement: for trees of even shape, not branch-and-bound (golomb 13 on 16 simulated cluster ranks: efficiency 0.46, 1.9× the nodes; rp 0.96)",
			StaticOptions{}, newStatic},
		{"hybrid", "static placement, then random polling within --clusters clusters of ranks (seed 001 §6, seed 000 §5.1); the placement searches the tree in no particular order: for trees of even shape, not branch-and-bound (golomb 13 on 16 cores: efficiency 0.38, 1.9× the nodes; rp 0.70)",
			HybridOptions{}, newHybrid},
		{"koso", "KOSO ring scheduler (seed 003 §2.2): keep one piece, send one clockwise; for rings of up to ~16 ranks (without --fast-init work reaches only as many ranks as it has been split); seed 003's subject of analysis, not a fast balancer: not for speed (golomb 13 on 16 simulated cluster ranks: efficiency 0.24, rp 0.96)",
			KOSOOptions{}, newKOSO},
		{"koso-star", "KOSO* (seed 003 §2.2): send clockwise only to a lighter neighbour; rings of up to ~16 ranks, as koso; not for speed either (golomb 13 on 16 simulated cluster ranks: efficiency 0.35)",
			KOSOOptions{}, newKOSOStar},
	}
}

// Names returns the names of the registered balancers, in the order of
// Balancers.
func Names() []string {
	var names []string
	for _, b := range Balancers() {
		names = append(names, b.Name)
	}
	return names
}

// Lookup returns the registered balancer called name.
func Lookup(name string) (Info, error) {
	for _, b := range Balancers() {
		if b.Name == name {
			return b, nil
		}
	}
	return Info{}, fmt.Errorf("lb: unknown balancer %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Describe returns one line per registered balancer: its name and what it
// is.
func Describe() string {
	var b strings.Builder
	for _, info := range Balancers() {
		fmt.Fprintf(&b, "  %-10s %s\n", info.Name, info.Doc)
	}
	return b.String()
}

// NewBalancer checks env and makes the balancer of one rank with f, random
// polling when f is nil.
func NewBalancer(f Factory, env Env) (Balancer, error) {
	if f == nil {
		f = newRandomPolling
	}
	if env.Size < 1 || env.Rank < 0 || env.Rank >= env.Size {
		return nil, fmt.Errorf("lb: rank %d of %d", env.Rank, env.Size)
	}
	if env.App == nil {
		return nil, RankErrorf(env.Rank, "no app")
	}
	if env.Rand == nil {
		env.Rand = NewRand(env.Seed, env.Rank)
	}
	b, err := f(env)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, RankErrorf(env.Rank, "the balancer factory returned nil")
	}
	return b, nil
}
