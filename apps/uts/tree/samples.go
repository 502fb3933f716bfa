package tree

import (
	"fmt"
	"strings"
)

// Sample is one of the reference's sample trees with its published
// statistics.
type Sample struct {
	Name   string // T1, T3L, …
	Args   string // the reference's flags, verbatim
	Nodes  int64  // tree size
	Depth  int    // greatest depth, −1 when not published
	Leaves int64  // leaves, −1 when not published
}

// Params returns the sample's parameters.
func (s Sample) Params() Params {
	p, err := ParseArgs(strings.Fields(s.Args))
	if err != nil {
		panic(fmt.Sprintf("tree: sample %s: %v", s.Name, err)) // the table is fixed
	}
	return p
}

// Samples returns the sample workloads of the UTS reference, with their flags
// and statistics as its sample_trees.sh publishes them (github.com/perarnau/
// uts at e10c4fe, the same list as sample_trees.csh in "Original UTS
// version 1.1", 8b0c41a). T4 sets -r twice, as there. Three statistics are
// missing there; they come from runs on this project's machine of the
// reference's sequential build (uts_shm.c, -DBRG_RNG, gcc 12.2 -O3, x86-64)
// and of this package. The reference keeps its counts in 32-bit ints, so on
// these trees it printed some of them wrapped and sign-extended to 64 bits.
// T3XXL: depth 99049 and 1396611250 leaves, printed as such by the
// reference (its size as 18446744072207804821 = 2793220501 − 2³²), and
// counted so here; the leaves agree with the tree's structure (every node
// but the root has 0 or 2 children, so leaves = (nodes + 1999)/2). T1XXL:
// 3384495738 leaves, counted here; the reference printed 18446744072799080058
// = 3384495738 − 2³².
// The slice is new on every call.
func Samples() []Sample {
	return []Sample{
		// Small (~4 million nodes).
		{"T1", "-t 1 -a 3 -d 10 -b 4 -r 19", 4130071, 10, 3305118},                       // geometric, fixed
		{"T5", "-t 1 -a 0 -d 20 -b 4 -r 34", 4147582, 20, 2181318},                       // geometric, linear
		{"T2", "-t 1 -a 2 -d 16 -b 6 -r 502", 4117769, 81, 2342762},                      // geometric, cyclic
		{"T3", "-t 0 -b 2000 -q 0.124875 -m 8 -r 42", 4112897, 1572, 3599034},            // binomial
		{"T4", "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4 -r 1", 4132453, 134, 3108986}, // hybrid
		// Large (~100 million nodes).
		{"T1L", "-t 1 -a 3 -d 13 -b 4 -r 29", 102181082, 13, 81746377},
		{"T2L", "-t 1 -a 2 -d 23 -b 7 -r 220", 96793510, 67, 53791152},
		{"T3L", "-t 0 -b 2000 -q 0.200014 -m 5 -r 7", 111345631, 17844, 89076904},
		// Extra large (~1.6 billion nodes).
		{"T1XL", "-t 1 -a 3 -d 15 -b 4 -r 29", 1635119272, 15, 1308100063},
		// Extra extra large (3–10 billion nodes).
		{"T1XXL", "-t 1 -a 3 -d 15 -b 4 -r 19", 4230646601, 15, 3384495738},
		{"T3XXL", "-t 0 -b 2000 -q 0.499995 -m 2 -r 316", 2793220501, 99049, 1396611250},
		{"T2XXL", "-t 0 -b 2000 -q 0.499999995 -m 2 -r 0", 10612052303, 216370, 5306027151},
		// Wicked large (150–300 billion nodes).
		{"T1WL", "-t 1 -a 3 -d 18 -b 4 -r 19", 270751679750, 18, 216601257283},
		{"T2WL", "-t 0 -b 2000 -q 0.4999999995 -m 2 -r 559", 295393891003, 1021239, 147696946501},
		{"T3WL", "-t 0 -b 2000 -q 0.4999995 -m 2 -r 559", 157063495159, 758577, 78531748579},
	}
}

// Matches reports whether counts agree with the sample's published
// statistics (depth and leaves where published).
func (s Sample) Matches(c Counts) bool {
	return c.Nodes == s.Nodes && (s.Depth < 0 || c.Depth == s.Depth) && (s.Leaves < 0 || c.Leaves == s.Leaves)
}

// SampleNamed returns the sample tree of the given name (T1 … T3WL, any
// case).
func SampleNamed(name string) (Sample, bool) {
	for _, s := range Samples() {
		if strings.EqualFold(s.Name, name) {
			return s, true
		}
	}
	return Sample{}, false
}

// SampleNames returns the names of the sample trees in table order.
func SampleNames() []string {
	all := Samples()
	n := make([]string, len(all))
	for i, s := range all {
		n[i] = s.Name
	}
	return n
}
