package lb

import (
	"fmt"
	"math"
	"strings"
)

// Machine is a cost model of a parallel machine for the simulator (NewSim):
// what a node of the search costs, what a message costs its sender and its
// receiver, how long it travels, and optionally the 2-D mesh it travels on.
// All times are virtual nanoseconds; fractions are kept to the picosecond.
//
// A message of b bytes (its data and a 16-byte envelope, MessageEnvelope)
// sent by a rank costs the sender OverheadNS of CPU time, leaves no sooner
// than GapNS after the rank's previous message (LogP's o and g), and
// arrives LatencyNS + b·ByteNS later (LogP's L and the bandwidth), plus
// HopNS per hop and the waiting for busy links when the machine is a mesh;
// its receiver spends OverheadNS of CPU time on it. A busy rank handles the
// messages that arrived during a work slice after the slice, as the real
// driver does. Random jitter, uniform in [0, JitterNS], is added only when
// JitterNS > 0; each pair of ranks stays FIFO whatever the delays.
//
// The zero value is the seeded fake network of the tests (TestNetwork).
type Machine struct {
	// Name names the model ("gcel"); informational.
	Name string `json:"name"`
	// NodeNS is the time of one node of the search (Task.Work counts).
	NodeNS float64 `json:"node_ns"`
	// OverheadNS (LogP's o) is the CPU time a rank spends to send one
	// message, and again to receive one.
	OverheadNS float64 `json:"overhead_ns"`
	// LatencyNS (LogP's L) is the fixed part of a message's delay.
	LatencyNS float64 `json:"latency_ns"`
	// GapNS (LogP's g) is the least time between two messages leaving one
	// rank; a rank that sends faster waits.
	GapNS float64 `json:"gap_ns"`
	// ByteNS is the time per byte on a link (the inverse bandwidth).
	ByteNS float64 `json:"byte_ns"`
	// MeshWidth is the number of columns of a 2-D mesh that the ranks fill
	// row by row (rank r at column r mod W, row r div W; a partial last row
	// routes as if complete); 0 means no topology, every pair of ranks
	// equally far. Messages are routed along the row first, then the
	// column (dimension order).
	MeshWidth int `json:"mesh_width,omitempty"`
	// HopNS is the time per hop on the mesh (routing and wire).
	HopNS float64 `json:"hop_ns,omitempty"`
	// Contention makes each directed mesh link carry one message at a
	// time, b·ByteNS each; a message waits for a link that is busy
	// (reserved first come, first served, in the order of sending).
	Contention bool `json:"contention,omitempty"`
	// StoreForward makes every hop receive the whole message before
	// passing it on (b·ByteNS per hop, as software routing does);
	// otherwise messages cut through and pay b·ByteNS once.
	StoreForward bool `json:"store_forward,omitempty"`
	// JitterNS adds a random delay, uniform in [0, JitterNS], to every
	// message; the world's seed draws it.
	JitterNS float64 `json:"jitter_ns,omitempty"`
	// SplitNS is the CPU time of one split of a task: a piece given away
	// (Stats.Splits) or a halving of static placement's and fast
	// initialisation's paths to their pieces of the root. The models leave
	// it 0 (splits cost nothing) unless it is set.
	SplitNS float64 `json:"split_ns,omitempty"`
	// Steps is seed 003's step model: a message is delivered before any
	// slice starts at the time it arrives (the next step), and a control
	// message (request, reject, termination, phase; not work, loads,
	// bounds or stops) sent in reply to messages takes one node's time
	// (NodeNS) more, so that chains of requests and replies and the
	// termination waves advance step by step instead of in no time.
	Steps bool `json:"steps,omitempty"`
}

// MessageEnvelope is the number of bytes a message carries besides its data
// (source, tag and length, as an MPI envelope), for the bandwidth's cost.
const MessageEnvelope = 16

// TestNetwork returns the seeded fake network of the tests, which the zero
// Machine stands for: 10 ns per node, 2 µs latency and a random extra
// delay of up to 10 µs, which reorders messages between different pairs
// (each pair stays FIFO, as MPI guarantees).
func TestNetwork() Machine {
	return Machine{Name: "test", NodeNS: 10, LatencyNS: 2000, JitterNS: 10000}
}

// Validate reports a parameter that is negative or not a finite number.
func (m Machine) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"node-ns", m.NodeNS}, {"overhead-ns", m.OverheadNS}, {"latency-ns", m.LatencyNS}, {"gap-ns", m.GapNS},
		{"byte-ns", m.ByteNS}, {"hop-ns", m.HopNS}, {"jitter-ns", m.JitterNS}, {"split-ns", m.SplitNS}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return fmt.Errorf("lb: machine %s: %s %g: need a finite time ≥ 0", m.Name, f.name, f.v)
		}
		if f.v > maxMachineNS {
			return fmt.Errorf("lb: machine %s: %s %g: more than %g ns", m.Name, f.name, f.v, float64(maxMachineNS))
		}
	}
	if m.MeshWidth < 0 {
		return fmt.Errorf("lb: machine %s: mesh width %d: need 0 (no mesh) or more columns", m.Name, m.MeshWidth)
	}
	return nil
}

// maxMachineNS bounds every time parameter (one hour), so that virtual
// times stay far from overflowing.
const maxMachineNS = 3.6e12

// MachineInfo describes a machine model of the catalogue (Machines).
type MachineInfo struct {
	Name string
	// Doc says what the model is, where its parameters come from, and how
	// the node costs were calibrated.
	Doc string
	// Machine holds the parameters; its NodeNS is the node cost of apps
	// that AppNodeNS does not list.
	Machine Machine
	// AppNodeNS is the node cost of each app the model was calibrated for,
	// by the app's name ("golomb").
	AppNodeNS map[string]float64
}

// For returns the machine's parameters with the node cost of app.
func (mi MachineInfo) For(app string) Machine {
	m := mi.Machine
	if ns, ok := mi.AppNodeNS[app]; ok {
		m.NodeNS = ns
	}
	return m
}

// Machines returns the catalogue of machine models, a new slice each time:
// unit, gcel, cluster and test.
func Machines() []MachineInfo {
	return []MachineInfo{
		{
			Name: "unit",
			Doc: "the unit-time step model of seed 003 §2.2: one node per step of 1 µs; a message sent in a step " +
				"is in its receiver's queue before the next step (no overhead, no latency), but a control message " +
				"(request, reject, termination) in reply to messages waits a step; with --budget 1 a rank executes " +
				"exactly one node per step, so virtual µs are steps (last_work_seconds: the steps until the last node)",
			Machine: Machine{Name: "unit", NodeNS: 1000, Steps: true},
		},
		{
			Name: "gcel",
			Doc: "the Parsytec GCel of seed 002 §6: T805 transputers (30 MHz, 4 links of 20 Mbit/s) in a 32×32 mesh " +
				"under PARIX, software store-and-forward routing, links shared (contention). Node costs calibrated " +
				"from the seed's own figures where it gives them (golomb, §6.1), the others (fifteen, knapsack) by " +
				"their cost relative to golomb's on the development machine; see lb/machine.go for the sources",
			Machine: Machine{Name: "gcel", NodeNS: gcelGolombNS, OverheadNS: gcelOverheadNS, LatencyNS: gcelLatencyNS,
				ByteNS: gcelByteNS, MeshWidth: 32, HopNS: gcelHopNS, Contention: true, StoreForward: true},
			AppNodeNS: map[string]float64{"golomb": gcelGolombNS, "fifteen": gcelFifteenNS, "knapsack": gcelKnapsackNS},
		},
		{
			Name: "cluster",
			Doc: "a modern InfiniBand cluster: 1.5 µs latency, 0.3 µs send and receive overhead, 12.5 GB/s, no " +
				"topology; node costs measured on the development machine (override with --node-ns, or measure " +
				"this machine with --calibrate)",
			Machine: Machine{Name: "cluster", NodeNS: 10, OverheadNS: clusterOverheadNS, LatencyNS: clusterLatencyNS,
				GapNS: clusterGapNS, ByteNS: clusterByteNS},
			AppNodeNS: map[string]float64{"golomb": clusterGolombNS, "fifteen": clusterFifteenNS, "knapsack": clusterKnapsackNS,
				"uts": clusterUTSNS},
		},
		{
			Name:    "test",
			Doc:     "the seeded fake network of the tests: 10 ns per node, 2 µs latency, up to 10 µs of random jitter",
			Machine: TestNetwork(),
		},
	}
}

// The GCel's parameters. Sources:
//
//   - The machine: seed 002 §6.1 (a GCel/3 with a 32×32 mesh of
//     transputers, at the Paderborn Center for Parallel Computing); a
//     GigaCube holds 64 T805 transputers and the GC-3 at Paderborn 1024
//     (geekdot.com, "GigaCube", the GC system description).
//   - Links: INMOS serial links at 20 Mbit/s (INMOS, The Transputer
//     Databook, 3rd ed. 1992, 72-TRN-203-02; the C004 and T414 data in the
//     same family give 5/10/20 Mbit/s). A byte travels as 11 bits (start,
//     flag, 8 data, stop) and is acknowledged by a 2-bit packet, which
//     overlaps the next byte when streaming: 20e6/11 ≈ 1.8 MB/s, so
//     ByteNS = 550 ns.
//   - Routing: PARIX routes messages between non-neighbours in software on
//     every transputer of the path (store and forward), one link per mesh
//     direction per node.
//   - Overhead, latency and per-hop cost: no published PARIX figures could
//     be found with the tools at hand; these are estimates from the T805's
//     speed (about 30 MIPS peak, 1 µs process switches): a PARIX send or
//     receive of a short message runs a few hundred instructions and a
//     process switch or two (OverheadNS = 20 µs), the router process on an
//     intermediate node takes a few µs before it forwards (HopNS = 5 µs),
//     and setting up a virtual link costs LatencyNS = 10 µs. Every value
//     can be overridden by a flag; the reproductions of seed 002 §6 test
//     how much they matter.
//   - Node costs: seed 002 §6.1 reports speedup 958 at 12.4 s of parallel
//     time and 578 at 0.88 s on 1024 PEs, so T_seq ≈ 11 879 s and 509 s on
//     one T805. Our shortest-ruler searches (Solve, every step) expand
//     1.046·10⁸ nodes for 12 marks and 1.536·10⁹ for 13; reading the two
//     instances as 12 and 13 marks (their sizes differ by 23×, ours by
//     15×), 509 s / 1.046·10⁸ = 4.9 µs and 11 879 s / 1.536·10⁹ = 7.7 µs
//     per node, whose geometric mean is 6.13 µs (about 180 T805
//     instructions: the shifts and ors of four 256-bit sets on 32-bit
//     words). The seed gives no 15-puzzle node rate (its Fig. 3 is not in
//     the text); fifteen's node costs 0.17 times golomb's on the
//     development machine (2.6 ns against 15.3 ns), and we assume the same
//     ratio on the T805: 1.04 µs.
//   - Knapsack: seed 002 §6.3 gives no node count or rate either, only
//     speedups against sequential time (Fig. 4, whose points are not in the
//     text). A node of knapsack's Horowitz–Sahni search (--search hs, the
//     seed's algorithm: a Dantzig bound by prefix sums and a galloping
//     search, and a forward chain of packed items) costs 6.0 ns on the
//     development machine, the median CPU time per node of the 26
//     sequential runs above 0.05 s in results/knapsack-fig4/fig4-p2.csv
//     (5.8 to 6.5 ns), against golomb's 15.3 ns (15.8 ns in a run beside
//     it: 12 marks, 1.046·10⁸ nodes in 1.65 s of CPU time); with the same
//     ratio on the T805 (0.39 to 0.41), 2.45 µs.
const (
	gcelGolombNS   = 6130
	gcelFifteenNS  = 1040
	gcelKnapsackNS = 2450
	gcelOverheadNS = 20000
	gcelLatencyNS  = 10000
	gcelHopNS      = 5000
	gcelByteNS     = 550
)

// The cluster's parameters: a current InfiniBand (HDR/NDR class) cluster
// under MPI, whose small-message one-way latency is 1–2 µs (we take
// 1.5 µs), with about 0.3 µs of CPU time per send or receive, a gap of
// 0.1 µs between messages and 12.5 GB/s (100 Gbit/s) per link, and a
// fat-tree network that we model as equally far between all pairs. Node
// costs were measured on the development machine with the sequential
// solvers (golomb: 1.62·10⁹ nodes of the 13-mark count in 24.8 s of CPU
// time; fifteen: 380 M nodes/s, the command's own figure; knapsack's
// --search hs: 6.0 ns, see the GCel's knapsack figure above; uts: the
// geometric mean of uts --calibrate on the sample trees T1L, 29.5 ns, and
// T3L, 23.9 ns, with the AVX-512 SHA-1 kernel, load average 1.8 on 2
// cores); --calibrate measures the current machine instead.
const (
	clusterOverheadNS = 300
	clusterLatencyNS  = 1500
	clusterGapNS      = 100
	clusterByteNS     = 0.08
	clusterGolombNS   = 15.3
	clusterFifteenNS  = 2.6
	clusterKnapsackNS = 6.0
	clusterUTSNS      = 26.5
)

// LookupMachine returns the catalogue's machine model called name.
func LookupMachine(name string) (MachineInfo, error) {
	for _, mi := range Machines() {
		if mi.Name == name {
			return mi, nil
		}
	}
	var names []string
	for _, mi := range Machines() {
		names = append(names, mi.Name)
	}
	return MachineInfo{}, fmt.Errorf("lb: unknown machine %q (known: %s)", name, strings.Join(names, ", "))
}

// DescribeMachines returns, for each machine model, its name, what it is
// and its parameters with the node costs per app.
func DescribeMachines() string {
	var b strings.Builder
	for _, mi := range Machines() {
		m := mi.Machine
		fmt.Fprintf(&b, "%s: %s\n", mi.Name, mi.Doc)
		fmt.Fprintf(&b, "    node-ns %g", m.NodeNS)
		for _, app := range []string{"golomb", "fifteen", "knapsack", "uts"} {
			if ns, ok := mi.AppNodeNS[app]; ok {
				fmt.Fprintf(&b, " (%s %g)", app, ns)
			}
		}
		fmt.Fprintf(&b, "  overhead-ns %g  latency-ns %g  gap-ns %g  byte-ns %g  split-ns %g\n", m.OverheadNS, m.LatencyNS, m.GapNS, m.ByteNS, m.SplitNS)
		if m.MeshWidth > 0 {
			fmt.Fprintf(&b, "    mesh %d columns  hop-ns %g  contention %v  store-forward %v\n", m.MeshWidth, m.HopNS, m.Contention, m.StoreForward)
		}
		if m.JitterNS > 0 {
			fmt.Fprintf(&b, "    jitter-ns %g\n", m.JitterNS)
		}
		if m.Steps {
			fmt.Fprintf(&b, "    steps: control messages in reply to messages take one node's time\n")
		}
	}
	return b.String()
}
