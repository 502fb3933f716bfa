package lb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Machine is a cost model of a parallel machine for the simulator (lb/sim):
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
// Besides the network's costs, the model charges what the program's own
// loop (lb.Rank in a world's loop) pays on a real machine: a poll for
// messages after every work slice (PollNS, an Iprobe that finds none) and
// the rest of the slice's own cost (SliceNS: the app's entry into and exit
// from its search, the engine's and the loop's checks between slices), the
// CPU time of sending and receiving a message beyond o (SendNS, RecvNS: the
// MPI calls, the buffer, the balancer's handling) and per byte of its data
// (SendByteNS, RecvByteNS: encoding and copying a task, decoding it), every
// split of a task (SplitNS), and the pauses of request throttling
// (PauseNS, MaxPauseNS). --calibrate measures them on the machine it runs
// on; the catalogue's models leave them 0 (their published figures do not
// change), as no source gives them for those machines.
//
// The zero value is no valid machine (Validate refuses a node that costs
// nothing); sim.Config takes a zero Machine for the tests' seeded fake
// network (TestNetwork).
type Machine struct {
	// Name names the model ("gcel"); informational.
	Name string `json:"name"`
	// Source says where the parameters come from, when the catalogue does
	// not (a calibration: the command, the machine, its load, the date);
	// informational.
	Source string `json:"source,omitempty"`
	// App is the command whose search a calibration timed ("uts",
	// "integrate func"): NodeNS and BusyNodeNS are that search's node
	// costs, and another command loading the model is told so; "" for
	// the catalogue's models, whose node costs are each app's own.
	App string `json:"app,omitempty"`
	// NodeNS is the time of one node of the search (Task.Work counts).
	NodeNS float64 `json:"node_ns"`
	// BusyNodeNS is the time of one node while every core of the
	// calibrating machine searches at once: --calibrate times the search on
	// one rank alone (NodeNS), then on all its ranks together. Cores that
	// share a cache, a memory channel or a physical core (two hyperthreads,
	// the two vCPUs of a small VM) slow each other down: on the
	// development VM a node costs up to 45 % more with both vCPUs busy
	// (results/validate). The
	// simulator charges BusyNodeNS instead of NodeNS for runs of more than
	// one rank (all of a run's ranks are taken to share the calibrated
	// machine's cores: between 2 ranks and the cores it over-charges runs
	// that leave cores idle); 0, the catalogue's models: NodeNS for every
	// run. The step model ignores it.
	BusyNodeNS float64 `json:"busy_node_ns,omitempty"`
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
	// PollNS is the CPU time of the poll for messages that ends every work
	// slice (an Iprobe that finds none).
	PollNS float64 `json:"poll_ns,omitempty"`
	// SliceNS is the rest of what a work slice costs the loop beyond its
	// nodes and the poll, charged with the poll after every slice: the
	// app's entry into and exit from its search (Task.Work's set-up), the
	// engine's (lb.Rank.Work: the balancer's Task and Tick, its progress
	// checks) and the world loop's (its clock, the outbox, the checks
	// between slices). --calibrate measures the slice's whole cost by
	// running the app's search through that loop at two budgets and takes
	// the poll away (docs/simulator.md, "Calibrated models").
	SliceNS float64 `json:"slice_ns,omitempty"`
	// SendNS and RecvNS are the CPU time the loop spends on each message
	// it sends or receives, beyond OverheadNS: the MPI calls (Isend and the
	// test of its completion; the probe that finds it and Recv), the
	// message's buffer and the balancer's handling.
	SendNS float64 `json:"send_ns,omitempty"`
	RecvNS float64 `json:"recv_ns,omitempty"`
	// SendByteNS and RecvByteNS are the CPU time per byte of a message's
	// data at its sender (encoding a task, copying) and at its receiver
	// (copying, decoding).
	SendByteNS float64 `json:"send_byte_ns,omitempty"`
	RecvByteNS float64 `json:"recv_byte_ns,omitempty"`
	// PauseNS turns on request throttling, as the real worlds throttle
	// ranks that outnumber their cores: an idle rank's request that follows
	// a rejection waits a pause that doubles with every rejection in a row,
	// from PauseNS (one tick of lb.Rank's clock) to MaxPauseNS; work ends
	// the pauses. 0 (the catalogue's models): no throttling.
	PauseNS    float64 `json:"pause_ns,omitempty"`
	MaxPauseNS float64 `json:"max_pause_ns,omitempty"`
	// Steps is seed 003's step model: a message is delivered before any
	// slice starts at the time it arrives (the next step), and a control
	// message (request, reject, termination, phase; not work, loads,
	// bounds or stops) sent in reply to messages takes one node's time
	// (NodeNS) more, so that chains of requests and replies and the
	// termination waves advance step by step instead of in no time.
	Steps bool `json:"steps,omitempty"`
}

// ParseMachine decodes a machine model from its JSON encoding (the fields'
// tags; unknown fields are an error) and validates it.
func ParseMachine(b []byte) (Machine, error) {
	var m Machine
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&m); err != nil {
		return Machine{}, fmt.Errorf("lb: a machine model: %w", err)
	}
	if d.More() {
		return Machine{}, errors.New("lb: a machine model: data after the model")
	}
	if err := m.Validate(); err != nil {
		return Machine{}, err
	}
	return m, nil
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

// Validate reports a parameter that is negative or not a finite number, a
// node that costs nothing (with NodeNS 0 the search takes no virtual time,
// so the run has no time to report, and where no message costs time either
// the simulated clock never moves while idle ranks poll: a golomb run of 5
// marks went on for 10⁹ events), and a network on which nothing a message
// does takes time, with no throttling of requests.
func (m Machine) Validate() error {
	name := m.Name
	if name == "" {
		name = "(unnamed)"
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"busy-node-ns", m.BusyNodeNS}, {"overhead-ns", m.OverheadNS}, {"latency-ns", m.LatencyNS}, {"gap-ns", m.GapNS},
		{"byte-ns", m.ByteNS}, {"hop-ns", m.HopNS}, {"jitter-ns", m.JitterNS}, {"split-ns", m.SplitNS},
		{"poll-ns", m.PollNS}, {"slice-ns", m.SliceNS}, {"send-ns", m.SendNS}, {"recv-ns", m.RecvNS}, {"send-byte-ns", m.SendByteNS},
		{"recv-byte-ns", m.RecvByteNS}, {"pause-ns", m.PauseNS}, {"max-pause-ns", m.MaxPauseNS},
		{"node-ns", m.NodeNS}} { // last: a model without node_ns is told of its other faults first
		if err := CheckMachineParam(f.name, f.v); err != nil {
			return fmt.Errorf("lb: machine %s: %s %g: %w", name, f.name, f.v, err)
		}
	}
	// Where no message takes any time and requests are not throttled, an
	// idle rank's request and its rejection by another idle rank, and the
	// next request, all happen at one instant: the simulated clock stops
	// while the busy ranks' slices wait for it (rp on 16 ranks of a
	// cluster without latency and overhead ran to 10⁹ events). The step
	// model (Steps) makes a reply wait a step.
	// The simulator keeps time in whole picoseconds: a time that rounds to
	// none is none here (--latency-ns 0.0004 alone left the clock standing).
	none := func(ns float64) bool { return ns < 0.0005 }
	if !m.Steps && none(m.LatencyNS) && none(m.OverheadNS) && none(m.SendNS) && none(m.RecvNS) && none(m.GapNS) &&
		none(m.ByteNS) && none(m.SendByteNS) && none(m.RecvByteNS) && none(m.JitterNS) && (none(m.HopNS) || m.MeshWidth == 0) && none(m.PauseNS) {
		return fmt.Errorf("lb: machine %s: no message takes any time (latency, overhead, send, receive, gap, bytes, hops and jitter all 0, or under the simulator's picosecond) "+
			"and requests are not throttled (pause-ns 0): idle ranks would trade requests and rejections for ever at one instant; "+
			"give one of them a time (--latency-ns 1, say)", name)
	}
	// The simulator's longest pause is ⌈max-pause-ns/pause-ns⌉ ticks, and a
	// rank takes up to 2^30−1 (RankConfig.MaxPause).
	if m.PauseNS > 0 && math.Ceil(m.MaxPauseNS/m.PauseNS) > 1<<30-1 {
		return fmt.Errorf("lb: machine %s: max-pause-ns %g: more than 2^30−1 pauses of %g ns", name, m.MaxPauseNS, m.PauseNS)
	}
	if m.MeshWidth < 0 {
		return fmt.Errorf("lb: machine %s: mesh width %d: need 0 (no mesh) or more columns", name, m.MeshWidth)
	}
	return nil
}

// CheckMachineParam checks one time parameter of a Machine, named as its
// flag is without the dashes (latency-ns; Machine.Validate lists them): a
// finite time ≥ 0, at most an hour (a byte's cost, at most maxByteNS), and
// for node-ns more than 0. Its error says what is wrong with the value,
// for a caller to name the parameter (the commands: --latency-ns -5: …).
func CheckMachineParam(name string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
		return errors.New("need a finite time ≥ 0")
	case v > maxMachineNS:
		return fmt.Errorf("more than %g ns", float64(maxMachineNS))
	// A cost by the byte is multiplied by a message's length: an hour a
	// byte overflowed the simulator's clock (picoseconds in an int64) on
	// a message of 4000 bytes.
	case strings.HasSuffix(name, "byte-ns") && v > maxByteNS:
		return fmt.Errorf("more than %g ns a byte", float64(maxByteNS))
	case name == "node-ns" && v == 0:
		return errors.New("need a node that takes some time (> 0 ns)")
	}
	return nil
}

// maxMachineNS bounds every time parameter (one hour), so that no single
// cost overflows the simulator's clock; a run whose total outgrows the
// clock fails with a message (lb/sim's maxVirtual).
const maxMachineNS = 3.6e12

// maxByteNS bounds the costs by the byte (a millisecond a byte, far slower
// than any network): a message of a megabyte then costs 10¹⁵ ps, far from
// the clock's 9.2·10¹⁸.
const maxByteNS = 1e6

// MachineInfo describes a machine model of the catalogue (Machines).
type MachineInfo struct {
	Name string
	// Doc says what the model is and where its parameters come from.
	Doc string
	// Machine holds the parameters; its NodeNS is the node cost of apps
	// that give none for the model (NodeCosts).
	Machine Machine
}

// NodeCosts are an app's node costs on the catalogue's machine models, in
// ns by the model's name ("gcel"): each app supplies its own, with their
// sources (golomb's ruler.NodeCosts, say).
type NodeCosts map[string]float64

// For returns the machine's parameters with the node cost the app's costs
// give for it, or the model's own when they give none.
func (mi MachineInfo) For(costs NodeCosts) Machine {
	m := mi.Machine
	if ns, ok := costs[mi.Name]; ok {
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
			Doc: "the Parsytec GCel of seed 002 §6: transputers (T805, 4 links of 20 Mbit/s) in a 32×32 mesh " +
				"under PARIX, software store-and-forward routing, links shared (contention). Sourced: the mesh (seed 002), " +
				"the link rate (T805 databook) and golomb's node cost (fitted to seed 002 §6.1); assumed: the message " +
				"overhead, latency and hop cost (no published PARIX figures), the other apps' node costs (by their cost " +
				"relative to golomb's on the development machine) and no poll cost; see lb/machine.go, docs/simulator.md " +
				"and each app's NodeCosts",
			Machine: Machine{Name: "gcel", NodeNS: gcelNodeNS, OverheadNS: gcelOverheadNS, LatencyNS: gcelLatencyNS,
				ByteNS: gcelByteNS, MeshWidth: 32, HopNS: gcelHopNS, Contention: true, StoreForward: true},
		},
		{
			Name: "cluster",
			Doc: "a modern InfiniBand cluster: 1.5 µs latency, 0.3 µs send and receive overhead, 12.5 GB/s, no " +
				"topology; node costs measured on the development machine (override with --node-ns, or measure " +
				"this machine with --calibrate)",
			Machine: Machine{Name: "cluster", NodeNS: 10, OverheadNS: clusterOverheadNS, LatencyNS: clusterLatencyNS,
				GapNS: clusterGapNS, ByteNS: clusterByteNS},
		},
		{
			Name:    "test",
			Doc:     "the seeded fake network of the tests: 10 ns per node, 2 µs latency, up to 10 µs of random jitter",
			Machine: TestNetwork(),
		},
	}
}

// The GCel's parameters, each with its source or marked an assumption
// (docs/simulator.md, "The GCel model: sources and assumptions", has the
// same list and the sensitivity of seed 002's reproductions to every
// assumption: results/gcel-sensitivity).
//
//   - The machine [source: seed 002 §6.1]: "a Parsytec GCel/3 with a 32×32
//     mesh of transputers", 1024 PEs. The seed names PARIX among PIGSeL's
//     communication layers (§6.1) but not the processor's clock. That the
//     transputers are T805s at 30 MHz is outside knowledge of the GCel
//     [not verified here]; no parameter below depends on the clock (the
//     node costs are fitted or derived, see them).
//   - MeshWidth = 32 [source: seed 002 §6.1, the 32×32 mesh]. Above 1024
//     ranks the mesh stays 32 columns wide (P = 4096: 32×128) [assumption:
//     no such GCel is in the seed; an extrapolation].
//   - ByteNS = 550 ns [source: the INMOS T805 link, 20 Mbit/s (INMOS, The
//     Transputer Databook, 3rd ed. 1992, 72-TRN-203-02)]. A byte travels as
//     11 bits (start, flag, 8 data, stop) and is acknowledged by a 2-bit
//     packet, which overlaps the next byte when streaming: 20e6/11 ≈
//     1.8 MB/s per direction, so 550 ns a byte [derived from the databook's
//     link protocol].
//   - StoreForward [assumption, inferred]: PARIX routes messages between
//     non-neighbours in software on every transputer of the path, as the
//     T805 has no hardware router; every hop receives the whole message.
//   - Contention [modelling choice]: one message at a time per directed
//     link (a T805 link carries one transfer per direction).
//   - OverheadNS = 20 µs, LatencyNS = 10 µs, HopNS = 5 µs [assumptions]:
//     no published PARIX figures could be found. Estimates from the T805's
//     speed (about 30 MIPS peak, 1 µs process switches): a PARIX send or
//     receive of a short message runs a few hundred instructions and a
//     process switch or two (20 µs), setting up a virtual link costs 10 µs,
//     and the router process on an intermediate node takes a few µs before
//     it forwards (5 µs).
//   - PollNS, SliceNS, SendNS, RecvNS, SendByteNS, RecvByteNS, SplitNS, PauseNS = 0
//     [assumption]: the catalogue's model leaves the loop's own costs out.
//     The presets gcel-dt and gcel-sensitivity add an assumed poll cost of
//     5 µs (campaign.GCelPollNS) to show what it changes.
//   - Node costs are the apps' (each app's NodeCosts gives its own, with
//     its sources): golomb's 6.13 µs [fitted to seed 002 §6.1's two
//     speedups and times, apps/golomb/ruler]; fifteen's 1.04 µs and
//     knapsack's 2.45 µs [assumptions: golomb's times their cost relative
//     to golomb's on the development machine]. The model's own NodeNS, for
//     apps that give none, is golomb's.
const (
	gcelNodeNS     = 6130
	gcelOverheadNS = 20000
	gcelLatencyNS  = 10000
	gcelHopNS      = 5000
	gcelByteNS     = 550
)

// The cluster's parameters: a current InfiniBand (HDR/NDR class) cluster
// under MPI, whose small-message one-way latency is 1–2 µs (we take
// 1.5 µs), with about 0.3 µs of CPU time per send or receive, a gap of
// 0.1 µs between messages and 12.5 GB/s (100 Gbit/s) per link, and a
// fat-tree network that we model as equally far between all pairs. The
// apps' node costs on it were measured on the development machine with the
// sequential solvers (each app's NodeCosts); --calibrate measures the
// current machine instead.
const (
	clusterOverheadNS = 300
	clusterLatencyNS  = 1500
	clusterGapNS      = 100
	clusterByteNS     = 0.08
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
// and its parameters, with the node cost costs give for it (an app's).
func DescribeMachines(costs NodeCosts) string {
	var b strings.Builder
	for _, mi := range Machines() {
		fmt.Fprintf(&b, "%s: %s\n", mi.Name, mi.Doc)
		b.WriteString(mi.For(costs).describe())
	}
	return b.String()
}

// describe returns the parameters of m, indented, one group a line.
func (m Machine) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "    node-ns %g  overhead-ns %g  latency-ns %g  gap-ns %g  byte-ns %g  split-ns %g\n",
		m.NodeNS, m.OverheadNS, m.LatencyNS, m.GapNS, m.ByteNS, m.SplitNS)
	if m.PollNS > 0 || m.SliceNS > 0 || m.SendNS > 0 || m.RecvNS > 0 || m.SendByteNS > 0 || m.RecvByteNS > 0 {
		fmt.Fprintf(&b, "    poll-ns %g  slice-ns %g  send-ns %g  recv-ns %g  send-byte-ns %g  recv-byte-ns %g\n",
			m.PollNS, m.SliceNS, m.SendNS, m.RecvNS, m.SendByteNS, m.RecvByteNS)
	}
	if m.PauseNS > 0 {
		fmt.Fprintf(&b, "    throttling: pause-ns %g  max-pause-ns %g\n", m.PauseNS, m.MaxPauseNS)
	}
	if m.MeshWidth > 0 {
		fmt.Fprintf(&b, "    mesh %d columns  hop-ns %g  contention %v  store-forward %v\n", m.MeshWidth, m.HopNS, m.Contention, m.StoreForward)
	}
	if m.JitterNS > 0 {
		fmt.Fprintf(&b, "    jitter-ns %g\n", m.JitterNS)
	}
	if m.Steps {
		fmt.Fprintf(&b, "    steps: control messages in reply to messages take one node's time\n")
	}
	return b.String()
}
