package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/lb/sim"
	"github.com/treelb/treelb/mpi"
)

// DefaultMachine is the machine model of --world sim without --machine.
const DefaultMachine = "cluster"

// world is a world --world names, and how a command runs in it: in one
// process that drives every rank (the simulator), or on every rank of an
// mpi.Comm that mpi.Run starts (goroutines of the embedded build, or MPI
// processes). A new world is an entry of worlds and the lb.World it opens.
type world struct {
	name, doc string
	// available says why this build cannot run the world, nil when it can.
	available func() error
	// oneProcess: the world's ranks live in this process's one goroutine,
	// and the command neither starts mpi.Run nor agrees on its input.
	oneProcess bool
	// open returns the lb.World of the run (on every rank unless
	// oneProcess); comm is the rank's communicator, nil for oneProcess.
	// sample is the app --calibrate times.
	open func(r *Run, comm *mpi.Comm, sample func() (lb.App, error)) (lb.World, error)
}

// worlds returns the table of worlds, in the order --world lists them.
func worlds() []world {
	notMPI := func() error {
		if mpi.WorldName == "mpi" {
			return errors.New("this is the MPI build (-tags mpi); build without the tag for the embedded world")
		}
		return nil
	}
	isMPI := func() error {
		if mpi.WorldName != "mpi" {
			return errors.New("this build has no MPI; build it with -tags mpi (Open MPI) or -tags mpi,mpich (MPICH), as treelb's 'make mpi' and scripts/mpi-build.sh do, and start it with mpirun or srun")
		}
		return nil
	}
	comm := func(r *Run, c *mpi.Comm, _ func() (lb.App, error)) (lb.World, error) {
		return driver.NewWith(c, driver.Options{StallTimeout: r.StallTimeout}), nil
	}
	return []world{
		{name: WorldEmbedded, doc: "goroutines", available: notMPI, open: comm},
		{name: WorldMPI, doc: "the -tags mpi build under mpirun or srun", available: isMPI, open: comm},
		{name: WorldSim, doc: "simulated, virtual time", available: func() error { return nil }, oneProcess: true,
			open: func(r *Run, _ *mpi.Comm, sample func() (lb.App, error)) (lb.World, error) {
				return newSimWorld(r, sample)
			}},
	}
}

// lookupWorld returns the world called name, a usage error when there is
// none or this build cannot run it.
func lookupWorld(name string) (world, error) {
	var names []string
	for _, w := range worlds() {
		if w.name == name {
			if err := w.available(); err != nil {
				return w, Usagef("--world %s: %v", name, err)
			}
			return w, nil
		}
		names = append(names, w.name)
	}
	return world{}, Usagef("--world %q: need %s", name, strings.Join(names, ", "))
}

// worldUsage is the usage of --world, from the table.
func worldUsage() string {
	var parts []string
	for _, w := range worlds() {
		parts = append(parts, fmt.Sprintf("%s (%s)", w.name, w.doc))
	}
	return "where the ranks run: " + strings.Join(parts, ", ")
}

// simFlags are the flags of the simulated world; the others reject them.
var simFlags = []string{"machine", "node-ns", "overhead-ns", "latency-ns", "gap-ns", "byte-ns", "mesh", "hop-ns",
	"contention", "store-forward", "jitter-ns", "split-ns", "poll-ns", "slice-ns", "send-ns", "recv-ns", "send-byte-ns",
	"recv-byte-ns", "pause-ns", "max-pause-ns", "trace", "max-events", "seq-nodes"}

// machineFloats are the flags that override a machine's times, with where
// they go.
var machineFloats = []struct {
	name, usage string
	set         func(m *lb.Machine, v float64)
}{
	// --node-ns is the node's cost at every P: it replaces a calibrated
	// machine file's busy_node_ns too, which the simulator charges instead
	// of node_ns from 2 ranks on (a flag that left it would change nothing
	// of a parallel run but its reported work time and speedup).
	{"node-ns", "virtual ns per node, on every rank count (it replaces a machine file's busy_node_ns)", func(m *lb.Machine, v float64) { m.NodeNS, m.BusyNodeNS = v, 0 }},
	{"overhead-ns", "CPU ns to send, and to receive, one message (LogP's o)", func(m *lb.Machine, v float64) { m.OverheadNS = v }},
	{"latency-ns", "fixed ns of a message's delay (LogP's L)", func(m *lb.Machine, v float64) { m.LatencyNS = v }},
	{"gap-ns", "least ns between two messages leaving a rank (LogP's g)", func(m *lb.Machine, v float64) { m.GapNS = v }},
	{"byte-ns", "ns per byte on a link (1/bandwidth)", func(m *lb.Machine, v float64) { m.ByteNS = v }},
	{"hop-ns", "ns per hop on the mesh", func(m *lb.Machine, v float64) { m.HopNS = v }},
	{"jitter-ns", "random extra delay of a message, uniform up to this many ns", func(m *lb.Machine, v float64) { m.JitterNS = v }},
	{"split-ns", "CPU ns of one split of a task (pieces given away, and static placement's and --fast-init's halvings on the way to their pieces); 0 (the models' value): splits cost nothing", func(m *lb.Machine, v float64) { m.SplitNS = v }},
	{"poll-ns", "CPU ns of the poll for messages after every work slice (an Iprobe that finds none); 0 in the models", func(m *lb.Machine, v float64) { m.PollNS = v }},
	{"slice-ns", "CPU ns of the rest of a work slice's cost, charged with the poll after every slice (the app's entry into and exit from its search, the engine's and the loop's checks); 0 in the models", func(m *lb.Machine, v float64) { m.SliceNS = v }},
	{"send-ns", "CPU ns of the loop per message sent, beyond --overhead-ns (Isend and its test); 0 in the models", func(m *lb.Machine, v float64) { m.SendNS = v }},
	{"recv-ns", "CPU ns of the loop per message received, beyond --overhead-ns (the probe that finds it, Recv); 0 in the models", func(m *lb.Machine, v float64) { m.RecvNS = v }},
	{"send-byte-ns", "CPU ns per byte of a message's data at its sender (encoding); 0 in the models", func(m *lb.Machine, v float64) { m.SendByteNS = v }},
	{"recv-byte-ns", "CPU ns per byte of a message's data at its receiver (decoding); 0 in the models", func(m *lb.Machine, v float64) { m.RecvByteNS = v }},
	{"pause-ns", "request throttling: the first pause of a request after a rejection, doubling up to --max-pause-ns; 0 (the models'): no throttling", func(m *lb.Machine, v float64) { m.PauseNS = v }},
	{"max-pause-ns", "request throttling: the longest pause", func(m *lb.Machine, v float64) { m.MaxPauseNS = v }},
}

// simFlagList returns the flags of the simulated world, and --calibrate.
func simFlagList() []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "machine", Value: DefaultMachine, Usage: "--world sim: the machine model, one of unit, gcel, cluster, test, or a `FILE` of JSON that --calibrate printed (any name; not with --calibrate); 'help' lists them with their parameters"},
	}
	for _, f := range machineFloats {
		def := "the model's" // not 0: unset, a cost is the machine model's
		if f.name == "node-ns" {
			def = "the machine's figure for the app"
		}
		flags = append(flags, &cli.Float64Flag{Name: f.name, Usage: "--world sim: " + f.usage, DefaultText: def})
	}
	return append(flags,
		&cli.IntFlag{Name: "mesh", Usage: "--world sim: columns of a 2-D mesh the ranks fill row by row; 0: no topology", DefaultText: "the model's"},
		&cli.BoolFlag{Name: "contention", Usage: "--world sim: mesh links carry one message at a time (--contention=false: never busy)", DefaultText: "the model's"},
		&cli.BoolFlag{Name: "store-forward", Usage: "--world sim: every hop receives the whole message before passing it on (--store-forward=false: cut-through)", DefaultText: "the model's"},
		&cli.BoolFlag{Name: "calibrate", Usage: "measure this machine's costs (node, split, encoding and decoding by bytes with the app's search; the slice's with the app's search through the world's loop at two budgets; poll, send, receive, latency, bandwidth and throttling with the world's messages) and print the model as JSON, which --machine FILE loads: with --world sim on stderr, then simulate with it; in the embedded and MPI worlds on stdout, instead of the search"},
		&cli.StringFlag{Name: "trace", Usage: "--world sim: write the busy ranks and the tasks they hold (in all, and rank by rank up to 64 ranks) over virtual time to CSV `FILE`"},
		&cli.Int64Flag{Name: "max-events", Usage: "--world sim: fail a simulation past this many events (0: 10⁹)"},
		&cli.Int64Flag{Name: "seq-nodes", Usage: "--world sim: the nodes the sequential solver (--balancer seq) expands on this instance, the baseline of the speedup (give one instance per command): without it the output has no speedup, only the run's own work (work_virtual_seconds)"},
	)
}

// simOptions is the parsed simulation flags.
type simOptions struct {
	info      lb.MachineInfo
	file      string             // the machine's file, when --machine named one
	floats    map[string]float64 // the machine times set by flags
	mesh      *int
	contend   *bool
	storeFwd  *bool
	trace     string
	maxEvents int64
	seqNodes  int64  // --seq-nodes, 0 when not given
	nodeFrom  string // where the node cost came from (SimReport.NodeNSFrom)
	noted     bool   // the note that the node cost is the model's was printed
}

// WriteMachines writes the catalogue of machine models (--machine help
// --json): one JSON line a model, with its name, what it is, and its
// parameters as a --machine FILE holds them; each model's node cost is the
// app's from costs (nil: the model's own).
func WriteMachines(w io.Writer, costs lb.NodeCosts) error {
	for _, mi := range lb.Machines() {
		rec := struct {
			Name        string     `json:"name"`
			Description string     `json:"description"`
			Machine     lb.Machine `json:"machine"`
		}{mi.Name, mi.Doc, mi.For(costs)}
		if err := WriteJSON(w, rec); err != nil {
			return err
		}
	}
	return nil
}

// parseSim reads the simulation flags of c into cm: an error for any of them
// outside --world sim, an unknown machine, an unreadable machine file or a
// bad value.
func parseSim(c *cli.Context, cm *Common) error {
	if defines(c, "machine") && c.String("machine") == "help" {
		if c.Bool("json") {
			if err := WriteMachines(c.App.Writer, nodeCostsOf(c)); err != nil {
				return err
			}
			return errHelpShown
		}
		fmt.Fprintf(c.App.Writer, "machine models of --world sim (every parameter can be set by its flag; node costs are the command's app's):\n%s", lb.DescribeMachines(nodeCostsOf(c)))
		return errHelpShown
	}
	if defines(c, "calibrate") {
		cm.calibrate = c.Bool("calibrate")
		if cm.calibrate && c.IsSet("node-ns") {
			return Usagef("--calibrate and --node-ns: give one of them")
		}
		if cm.calibrate && defines(c, "machine") && c.IsSet("machine") {
			// The model simulated is the one measured: a --machine beside it
			// was ignored without a word.
			return Usagef("--calibrate and --machine: give one of them (--calibrate measures this machine's model; --machine FILE loads one it printed)")
		}
	}
	if cm.World != WorldSim {
		for _, name := range simFlags {
			if defines(c, name) && c.IsSet(name) {
				return Usagef("--%s: only with --world sim", name)
			}
		}
		return nil
	}
	name := DefaultMachine
	if defines(c, "machine") {
		name = c.String("machine")
	}
	so := &simOptions{floats: map[string]float64{}}
	if err := so.machine(c, cm, name); err != nil {
		return err
	}
	for _, f := range machineFloats {
		if defines(c, f.name) && c.IsSet(f.name) {
			so.floats[f.name] = c.Float64(f.name)
		}
	}
	if defines(c, "mesh") && c.IsSet("mesh") {
		v := c.Int("mesh")
		so.mesh = &v
	}
	if defines(c, "contention") && c.IsSet("contention") {
		v := c.Bool("contention")
		so.contend = &v
	}
	if defines(c, "store-forward") && c.IsSet("store-forward") {
		v := c.Bool("store-forward")
		so.storeFwd = &v
	}
	if defines(c, "trace") {
		so.trace = c.String("trace")
		if err := checkTracePath(so.trace); err != nil {
			return err
		}
	}
	if defines(c, "max-events") {
		if so.maxEvents = c.Int64("max-events"); so.maxEvents < 0 {
			return Usagef("--max-events %d: need 0 (the default bound) or more", so.maxEvents)
		}
	}
	if defines(c, "seq-nodes") && c.IsSet("seq-nodes") {
		if so.seqNodes = c.Int64("seq-nodes"); so.seqNodes < 1 {
			return Usagef("--seq-nodes %d: need the sequential solver's nodes, at least 1", so.seqNodes)
		}
	}
	cm.sim = so
	if _, err := cm.overrides(so.info.Machine); err != nil {
		return err
	}
	return nil
}

// machine sets the model of --machine name: a model's name or a file of
// one. A function of its own, not inlined: its copies of lb.MachineInfo
// in parseSim's frame took it past what golomb's 8-KB stacks hold once
// the model grew a field (TestRankStack overflowed in parseSim, 1 fresh
// run of 4).
//
//go:noinline
func (so *simOptions) machine(c *cli.Context, cm *Common, name string) error {
	info, err := lb.LookupMachine(name)
	if err != nil {
		if _, serr := os.Stat(name); serr != nil && !strings.HasSuffix(name, ".json") && !strings.ContainsRune(name, os.PathSeparator) {
			// Not a model's name, nor a path to anything: a misspelt
			// model, most likely. A file of any name is read as a model.
			return Usagef("--machine %q: unknown (try --machine help, or give a JSON file)", name)
		}
		m, err := ReadMachine(name)
		if err != nil {
			return err
		}
		noteOtherApp(c, cm, m, name)
		info, so.file = lb.MachineInfo{Name: m.Name, Doc: "loaded from " + name, Machine: m}, name
	}
	so.info = info
	return nil
}

// noteOtherApp says, unless --json, that the model of --machine FILE was
// calibrated on another command's search, whose node cost it then
// simulates this one's nodes at (golomb at uts's 61 ns a node, without a
// word; --node-ns sets this command's).
func noteOtherApp(c *cli.Context, cm *Common, m lb.Machine, file string) {
	here := CommandPath(c)
	if m.App == "" || m.App == here || cm.JSON || c.IsSet("node-ns") {
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: note: --machine %s was calibrated on %s's search: its node cost, %.4g ns, is that search's, not %s's (calibrate with %s --calibrate, or give --node-ns)\n",
		c.App.Name, file, m.App, m.NodeNS, here, here)
}

// nodeCostsOf returns the node costs of the command of c (Spec.NodeCosts),
// which Action keeps in the app's metadata.
func nodeCostsOf(c *cli.Context) lb.NodeCosts {
	costs, _ := c.App.Metadata[metaCosts].(lb.NodeCosts)
	return costs
}

const metaCosts = "treelb.nodecosts"

// MaxMachineBytes is the largest machine file ReadMachine reads: a model is
// a few hundred bytes of JSON.
const MaxMachineBytes = 1 << 20

// ReadMachine reads a machine model from the JSON file at path, as
// --calibrate prints it (lb.ParseMachine); a *UsageError names the file and
// what is wrong. A path that is not a regular file (a directory, /dev/zero,
// a FIFO nobody writes) or a file over MaxMachineBytes is refused at once,
// without reading it or waiting for a writer.
func ReadMachine(path string) (lb.Machine, error) {
	b, err := readRegularFile(path, "machine file", MaxMachineBytes)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return lb.Machine{}, Usagef("--machine: %v", err)
		}
		return lb.Machine{}, Usagef("--machine %s: %v", path, err)
	}
	m, err := lb.ParseMachine(b)
	if err != nil {
		return lb.Machine{}, Usagef("--machine %s: %v", path, err)
	}
	return m, nil
}

// SimMachine returns the machine of --world sim for the run's app: the
// model's parameters with the app's node cost for it (Spec.NodeCosts; a
// machine file's own), and the flags' overrides. It fails (a *UsageError)
// for a bad parameter, and outside --world sim.
func (r *Run) SimMachine() (lb.Machine, error) {
	if r.sim == nil {
		return lb.Machine{}, Usagef("not a simulated world")
	}
	m := r.sim.info.Machine
	if r.sim.file == "" {
		m = r.sim.info.For(r.costs)
	}
	return r.Common.overrides(m)
}

// overrides returns m with the flags' overrides, validated.
func (cm Common) overrides(m lb.Machine) (lb.Machine, error) {
	for _, f := range machineFloats {
		if v, ok := cm.sim.floats[f.name]; ok {
			if err := lb.CheckMachineParam(f.name, v); err != nil {
				return m, Usagef("--%s %g: %v", f.name, v, err)
			}
			f.set(&m, v)
		}
	}
	if cm.sim.mesh != nil {
		if *cm.sim.mesh < 0 {
			return m, Usagef("--mesh %d: need 0 (no mesh) or more columns", *cm.sim.mesh)
		}
		m.MeshWidth = *cm.sim.mesh
	}
	if cm.sim.contend != nil {
		m.Contention = *cm.sim.contend
	}
	if cm.sim.storeFwd != nil {
		m.StoreForward = *cm.sim.storeFwd
	}
	if err := m.Validate(); err != nil {
		return m, &UsageError{Err: err}
	}
	return m, nil
}

// Where the node cost of a simulated run came from (SimReport.NodeNSFrom).
const (
	NodeNSApp        = "app"        // the app's own figure for the model (Spec.NodeCosts)
	NodeNSCalibrated = "calibrated" // measured by --calibrate on this machine
	NodeNSFlag       = "flag"       // --node-ns
	NodeNSFile       = "file"       // the machine file of --machine FILE
	NodeNSStep       = "step"       // the unit-time step model, whose node is its unit of time
	NodeNSModel      = "model"      // the model's default: the app gives none (a note says so)
)

// nodeFrom is SimReport.NodeNSFrom: where the run's node cost came from.
func (r *Run) nodeFrom() string {
	if r.sim == nil {
		return ""
	}
	return r.sim.nodeFrom
}

// nodeCostFrom says where the node cost of the simulated run comes from.
func (r *Run) nodeCostFrom() string {
	_, flag := r.sim.floats["node-ns"]
	_, app := r.costs[r.sim.info.Name]
	switch {
	case r.calibrate:
		return NodeNSCalibrated
	case flag:
		return NodeNSFlag
	case r.sim.file != "":
		return NodeNSFile
	case app:
		return NodeNSApp
	case r.sim.info.Machine.Steps:
		return NodeNSStep
	}
	return NodeNSModel
}

// newSimWorld returns the simulated world of the flags for the run's app,
// on the machine that --calibrate measures with the app sample returns
// when it asks.
func newSimWorld(r *Run, sample func() (lb.App, error)) (lb.World, error) {
	m, err := r.SimMachine()
	if err != nil {
		return nil, err
	}
	if r.calibrate {
		if m, err = r.calibrateSim(sample); err != nil {
			return nil, err
		}
	}
	r.sim.nodeFrom = r.nodeCostFrom()
	w, err := sim.New(r.NP, sim.Config{Seed: r.Seed, Machine: m, MaxEvents: r.sim.maxEvents, Trace: r.sim.trace != ""})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return w, nil
}

// SimReport is the part of an app's JSON output that the simulator adds:
// the machine, the virtual times (summed over the runs of the command or
// instance; last_work_seconds leaves out termination detection and the
// final reduction), the run's own work on one rank of the machine (its
// nodes × node cost: no baseline, since a parallel search may expand other
// nodes than the sequential one), the fraction of the ranks' virtual time
// spent on tasks, and the simulator's own speed. With --seq-nodes N (the
// sequential solver's nodes on the instance) it adds the baseline and what
// is measured against it: seq_nodes, seq_virtual_seconds (N × node cost),
// speedup (seq_virtual_seconds / virtual_seconds), efficiency (speedup /
// P) and search_overhead (work_virtual_seconds / seq_virtual_seconds, the
// nodes expanded over the sequential ones); without it they are absent.
type SimReport struct {
	Machine lb.Machine `json:"machine"`
	// NodeNSFrom says where the machine's node cost came from: NodeNSApp,
	// NodeNSCalibrated, NodeNSFlag, NodeNSFile, NodeNSStep or NodeNSModel.
	NodeNSFrom         string  `json:"node_ns_from"`
	VirtualSeconds     float64 `json:"virtual_seconds"`
	WorkVirtualSeconds float64 `json:"work_virtual_seconds"`
	SeqNodes           int64   `json:"seq_nodes,omitempty"`
	SeqVirtualSeconds  float64 `json:"seq_virtual_seconds,omitempty"`
	Speedup            float64 `json:"speedup,omitempty"`
	Efficiency         float64 `json:"efficiency,omitempty"`
	SearchOverhead     float64 `json:"search_overhead,omitempty"`
	BusyFraction       float64 `json:"busy_fraction"`
	LastWorkSeconds    float64 `json:"last_work_seconds"`
	Events             int64   `json:"events"`
	EventsPerSecond    float64 `json:"events_per_second"`
	SimSeconds         float64 `json:"sim_seconds"`
}

// Report is the part of every app's JSON output that comes from the
// balancer's runs, beyond Stats: the messages by kind in every world, and
// the simulator's fields in the simulated world (promoted; absent
// elsewhere). Apps embed it and fill it with Run.Report.
type Report struct {
	Messages *lb.KindCounts `json:"messages,omitempty"`
	*SimReport
}

// Report returns the report of an outcome (nil for the sequential solver)
// and, in the simulated world with --trace, appends its busy-ranks trace to
// the trace file.
func (r *Run) Report(o *lb.Outcome) (Report, error) {
	return r.ReportNodes(o, 0)
}

// ReportNodes is Report for an app that counts nodes its balanced searches
// do not expand (fifteen counts the root once, as its sequential solver
// does): nodes, when above 0, is the count the app prints, which
// work_virtual_seconds and search_overhead then measure, so that the
// sequential solver's own count (--seq-nodes) is compared with its like.
func (r *Run) ReportNodes(o *lb.Outcome, nodes int64) (Report, error) {
	var rep Report
	if o == nil {
		return rep, nil
	}
	msgs := o.Total.Messages
	rep.Messages = &msgs
	s := o.Sim
	if s == nil {
		return rep, nil
	}
	if r.sim != nil && r.sim.nodeFrom == NodeNSModel && !r.sim.noted && !r.Quiet && !r.JSON {
		// Once, with the first result: a run that fails says only why.
		r.sim.noted = true
		fmt.Fprintf(errWriter(r.Context.App), "%s: note: %s declares no node cost for the machine %s: simulated %g ns a node,"+
			" the model's figure for no app in particular; give --calibrate (this machine's cost of the app's node),"+
			" --node-ns NS or --machine FILE\n", r.App, r.App, s.Machine.Name, s.Machine.NodeNS)
	}
	work := s.WorkVirtualSeconds
	if nodes > 0 {
		work = float64(nodes) * s.Machine.NodeNS / 1e9
	}
	rep.SimReport = &SimReport{Machine: s.Machine, NodeNSFrom: r.nodeFrom(), VirtualSeconds: s.VirtualSeconds, WorkVirtualSeconds: work,
		BusyFraction: s.BusyFraction(), LastWorkSeconds: s.LastWorkSeconds, Events: s.Events,
		EventsPerSecond: s.EventsPerSecond(), SimSeconds: s.RealSeconds}
	if r.sim != nil && r.sim.seqNodes > 0 {
		n := r.sim.seqNodes
		sr := rep.SimReport
		sr.SeqNodes, sr.SeqVirtualSeconds, sr.Speedup, sr.Efficiency = n, s.SeqVirtualSeconds(n), s.Speedup(n), s.Efficiency(n)
		if sr.SeqVirtualSeconds > 0 {
			sr.SearchOverhead = work / sr.SeqVirtualSeconds
		}
	}
	if r.sim != nil && r.sim.trace != "" {
		if err := r.writeTrace(s); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// checkTracePath refuses, before the simulation, a --trace path that
// cannot take the file: a directory, a FIFO or a socket (a FIFO nobody
// reads blocked the command), a block device (a disk), or one in a
// directory that does not exist. A character device such as /dev/null or
// a terminal (/dev/stdout) may take it (writeTrace writes into it).
func checkTracePath(path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(path); err == nil {
		if m := st.Mode(); m.IsDir() || m&(os.ModeNamedPipe|os.ModeSocket) != 0 || m&os.ModeDevice != 0 && m&os.ModeCharDevice == 0 {
			return Usagef("--trace %s: %s; need a file to write (nothing was written)", path, FileKind(m))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return Usagef("--trace %s: %v", path, err)
	} else if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return Usagef("--trace %s: no directory %s to write it in", path, filepath.Dir(path))
	}
	if st, err := os.Stat(path); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return nil // written into, not replaced
	}
	// The trace goes through a temporary file beside it, renamed over it:
	// a directory where that cannot be made is refused now, not after the
	// whole simulation.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".probe-*")
	if err != nil {
		return Usagef("--trace %s: %v (nothing was simulated)", path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// writeTrace writes a run's trace to the --trace file: a header, then the
// rows of every report of the command so far; the run column numbers the
// reports. The file is written whole after each report, through a
// temporary file renamed over it (writeAtomic), so that a failed write (a
// full disk) leaves the trace of the reports before, never half a row, and
// a symbolic link at the path is replaced, not written through. A
// character device at the path (/dev/null, or a terminal, also behind a
// link such as /dev/stdout) is written into instead, each report's rows
// after the last's: the rename replaced the device node with a regular
// file (as root, /dev/null itself). A trace is at most a few thousand rows
// a report.
func (r *Run) writeTrace(s *lb.SimReport) error {
	r.traceRuns++
	w := &r.traceText
	before := w.Len()
	if r.traceRuns == 1 {
		fmt.Fprint(w, "run,start_seconds,end_seconds,busy_ranks,busy_fraction,queued_tasks")
		if s.Ranks <= lb.TraceRanks {
			for i := range s.Ranks {
				fmt.Fprintf(w, ",queue_%d", i)
			}
		}
		fmt.Fprintln(w)
	}
	for _, tp := range s.Trace {
		fmt.Fprintf(w, "%d,%s,%s,%s,%s,%s", r.traceRuns, fnum(tp.Start), fnum(tp.End), fnum(tp.Busy), fnum(tp.Busy/float64(s.Ranks)), fnum(tp.Queued))
		for _, q := range tp.Queues {
			fmt.Fprintf(w, ",%s", fnum(q))
		}
		fmt.Fprintln(w)
	}
	var err error
	if st, serr := os.Stat(r.sim.trace); serr == nil && st.Mode()&os.ModeCharDevice != 0 {
		if r.traceRuns == 1 {
			before = 0
		}
		err = writeInto(r.sim.trace, w.Bytes()[before:])
	} else {
		err = writeAtomic(r.sim.trace, w.Bytes(), 0o644, nil)
	}
	if err != nil {
		return &OutputError{What: "--trace " + r.sim.trace, Err: err}
	}
	return nil
}

// writeInto writes b into the existing file at path (a device) and closes
// it, every error checked.
func writeInto(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func fnum(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// PrintReport writes the simulator's figures of a report for humans; it
// writes nothing outside the simulated world.
func PrintReport(w io.Writer, rep Report) {
	s := rep.SimReport
	if s == nil {
		return
	}
	if s.SeqNodes > 0 {
		fmt.Fprintf(w, "virtual: %.6g s on machine %s (sequential solver, %d nodes: %.6g s)  speedup %.1f  efficiency %.3f  search overhead %.3f  busy %.3f  (%d events, %.3g/s)\n",
			s.VirtualSeconds, s.Machine.Name, s.SeqNodes, s.SeqVirtualSeconds, s.Speedup, s.Efficiency, s.SearchOverhead, s.BusyFraction, s.Events, s.EventsPerSecond)
		return
	}
	fmt.Fprintf(w, "virtual: %.6g s on machine %s (this run's nodes on one rank: %.6g s; for a speedup give --seq-nodes, the nodes of --balancer seq)  busy %.3f  (%d events, %.3g/s)\n",
		s.VirtualSeconds, s.Machine.Name, s.WorkVirtualSeconds, s.BusyFraction, s.Events, s.EventsPerSecond)
}
