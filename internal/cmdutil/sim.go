package cmdutil

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/lb"
)

// DefaultMachine is the machine model of --world sim without --machine.
const DefaultMachine = "cluster"

// simFlags are the flags of the simulated world; the others reject them.
var simFlags = []string{"machine", "node-ns", "overhead-ns", "latency-ns", "gap-ns", "byte-ns", "mesh", "hop-ns",
	"contention", "store-forward", "jitter-ns", "split-ns", "calibrate", "trace", "max-events", "seq-nodes"}

// machineFloats are the flags that override a machine's times, with where
// they go.
var machineFloats = []struct {
	name string
	set  func(m *lb.Machine, v float64)
}{
	{"node-ns", func(m *lb.Machine, v float64) { m.NodeNS = v }},
	{"overhead-ns", func(m *lb.Machine, v float64) { m.OverheadNS = v }},
	{"latency-ns", func(m *lb.Machine, v float64) { m.LatencyNS = v }},
	{"gap-ns", func(m *lb.Machine, v float64) { m.GapNS = v }},
	{"byte-ns", func(m *lb.Machine, v float64) { m.ByteNS = v }},
	{"hop-ns", func(m *lb.Machine, v float64) { m.HopNS = v }},
	{"jitter-ns", func(m *lb.Machine, v float64) { m.JitterNS = v }},
	{"split-ns", func(m *lb.Machine, v float64) { m.SplitNS = v }},
}

// simFlagList returns the flags of the simulated world.
func simFlagList() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "machine", Value: DefaultMachine, Usage: "--world sim: the machine model, one of unit, gcel, cluster, test; 'help' lists them with their parameters"},
		&cli.Float64Flag{Name: "node-ns", Usage: "--world sim: virtual ns per node (default: the machine's figure for the app)"},
		&cli.Float64Flag{Name: "overhead-ns", Usage: "--world sim: CPU ns to send, and to receive, one message (LogP's o)"},
		&cli.Float64Flag{Name: "latency-ns", Usage: "--world sim: fixed ns of a message's delay (LogP's L)"},
		&cli.Float64Flag{Name: "gap-ns", Usage: "--world sim: least ns between two messages leaving a rank (LogP's g)"},
		&cli.Float64Flag{Name: "byte-ns", Usage: "--world sim: ns per byte on a link (1/bandwidth)"},
		&cli.IntFlag{Name: "mesh", Usage: "--world sim: columns of a 2-D mesh the ranks fill row by row; 0: no topology"},
		&cli.Float64Flag{Name: "hop-ns", Usage: "--world sim: ns per hop on the mesh"},
		&cli.BoolFlag{Name: "contention", Usage: "--world sim: mesh links carry one message at a time (--contention=false: never busy)"},
		&cli.BoolFlag{Name: "store-forward", Usage: "--world sim: every hop receives the whole message before passing it on"},
		&cli.Float64Flag{Name: "jitter-ns", Usage: "--world sim: random extra delay of a message, uniform up to this many ns"},
		&cli.Float64Flag{Name: "split-ns", Usage: "--world sim: CPU ns of one split of a task (pieces given away, and static placement's and --fast-init's halvings on the way to their pieces); 0 (the models' value): splits cost nothing"},
		&cli.BoolFlag{Name: "calibrate", Usage: "--world sim: measure the node cost with a short run of the app's sequential search on this machine"},
		&cli.StringFlag{Name: "trace", Usage: "--world sim: write the busy ranks over virtual time to CSV `FILE`"},
		&cli.Int64Flag{Name: "max-events", Usage: "--world sim: fail a simulation past this many events (0: 10⁹)"},
		&cli.Int64Flag{Name: "seq-nodes", Usage: "--world sim: the nodes the sequential solver (--balancer seq) expands on this instance, the baseline of the speedup (give one instance per command): without it the output has no speedup, only the run's own work (work_virtual_seconds)"},
	}
}

// simOptions is the parsed simulation flags.
type simOptions struct {
	info      lb.MachineInfo
	floats    map[string]float64 // the machine times set by flags
	mesh      *int
	contend   *bool
	storeFwd  *bool
	calibrate bool
	trace     string
	maxEvents int64
	seqNodes  int64 // --seq-nodes, 0 when not given
}

// parseSim reads the simulation flags of c into cm: an error for any of them
// outside --world sim, an unknown machine or a bad value.
func parseSim(c *cli.Context, cm *Common) error {
	if defines(c, "machine") && c.String("machine") == "help" {
		fmt.Fprintf(c.App.Writer, "machine models of --world sim (every parameter can be set by its flag):\n%s", lb.DescribeMachines())
		return errHelpShown
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
	info, err := lb.LookupMachine(name)
	if err != nil {
		return Usagef("--machine %q: unknown (try --machine help)", name)
	}
	so := &simOptions{info: info, floats: map[string]float64{}}
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
	if defines(c, "calibrate") {
		so.calibrate = c.Bool("calibrate")
		if so.calibrate && c.IsSet("node-ns") {
			return Usagef("--calibrate and --node-ns: give one of them")
		}
	}
	if defines(c, "trace") {
		so.trace = c.String("trace")
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
	if _, err := cm.SimMachine(""); err != nil {
		return err
	}
	return nil
}

// SimMachine returns the machine of --world sim for app: the model's
// parameters, its node cost for app, and the flags' overrides. It fails
// (a *UsageError) for a bad parameter, and outside --world sim.
func (cm Common) SimMachine(app string) (lb.Machine, error) {
	if cm.sim == nil {
		return lb.Machine{}, Usagef("not a simulated world")
	}
	m := cm.sim.info.For(app)
	for _, f := range machineFloats {
		if v, ok := cm.sim.floats[f.name]; ok {
			f.set(&m, v)
		}
	}
	if cm.sim.mesh != nil {
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

// newSimWorld returns the simulated world of the flags for spec's app and
// the instance in (calibrating the node cost with spec.Sample when
// --calibrate asks).
func newSimWorld[I any](cm Common, spec Spec[I], in I) (lb.World, error) {
	m, err := cm.SimMachine(spec.App)
	if err != nil {
		return nil, err
	}
	if cm.sim.calibrate {
		if spec.Sample == nil {
			return nil, Usagef("--calibrate: %s has no sequential sample to calibrate with", spec.App)
		}
		t, err := spec.Sample(in)
		if err != nil {
			return nil, fmt.Errorf("calibrating: %w", err)
		}
		if m.NodeNS, err = Calibrate(t, calibrationTime); err != nil {
			return nil, err
		}
	}
	w, err := lb.NewSim(cm.NP, lb.SimConfig{Seed: cm.Seed, Machine: m, MaxEvents: cm.sim.maxEvents, Trace: cm.sim.trace != ""})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return w, nil
}

// calibrationTime is how long --calibrate works the sample.
const calibrationTime = 300 * time.Millisecond

// calibrationMin is the fewest nodes a calibration accepts.
const calibrationMin = 100000

// Calibrate works task, a piece of an app's sequential search, for about d
// of CPU time (in slices of 10⁵ nodes, or until it is exhausted) and
// returns the CPU nanoseconds per node of this process. It fails when the
// task holds fewer than 10⁵ nodes.
func Calibrate(task lb.Task, d time.Duration) (float64, error) {
	start := cpuTime()
	var nodes int64
	for !task.Empty() && cpuTime()-start < d {
		nodes += task.Work(100000)
	}
	spent := cpuTime() - start
	if nodes < calibrationMin {
		return 0, Usagef("--calibrate: the instance has %d nodes, too few to time (need %d); give --node-ns", nodes, calibrationMin)
	}
	return float64(spent.Nanoseconds()) / float64(nodes), nil
}

// cpuTime returns the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
	Machine            lb.Machine `json:"machine"`
	VirtualSeconds     float64    `json:"virtual_seconds"`
	WorkVirtualSeconds float64    `json:"work_virtual_seconds"`
	SeqNodes           int64      `json:"seq_nodes,omitempty"`
	SeqVirtualSeconds  float64    `json:"seq_virtual_seconds,omitempty"`
	Speedup            float64    `json:"speedup,omitempty"`
	Efficiency         float64    `json:"efficiency,omitempty"`
	SearchOverhead     float64    `json:"search_overhead,omitempty"`
	BusyFraction       float64    `json:"busy_fraction"`
	LastWorkSeconds    float64    `json:"last_work_seconds"`
	Events             int64      `json:"events"`
	EventsPerSecond    float64    `json:"events_per_second"`
	SimSeconds         float64    `json:"sim_seconds"`
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
	rep.SimReport = &SimReport{Machine: s.Machine, VirtualSeconds: s.VirtualSeconds, WorkVirtualSeconds: s.WorkVirtualSeconds,
		BusyFraction: s.BusyFraction(), LastWorkSeconds: s.LastWorkSeconds, Events: s.Events,
		EventsPerSecond: s.EventsPerSecond(), SimSeconds: s.RealSeconds}
	if r.sim != nil && r.sim.seqNodes > 0 {
		n := r.sim.seqNodes
		sr := rep.SimReport
		sr.SeqNodes, sr.SeqVirtualSeconds, sr.Speedup, sr.Efficiency = n, s.SeqVirtualSeconds(n), s.Speedup(n), s.Efficiency(n)
		if sr.SeqVirtualSeconds > 0 {
			sr.SearchOverhead = s.WorkVirtualSeconds / sr.SeqVirtualSeconds
		}
	}
	if r.sim != nil && r.sim.trace != "" {
		if err := r.writeTrace(s); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// writeTrace writes a run's trace to the --trace file: created with a
// header by the command's first report, appended to by the others; the
// run column numbers the reports.
func (r *Run) writeTrace(s *lb.SimReport) error {
	flag := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if r.traceRuns == 0 {
		flag = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(r.sim.trace, flag, 0o644)
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	r.traceRuns++
	w := bufio.NewWriter(f)
	if r.traceRuns == 1 {
		fmt.Fprintln(w, "run,start_seconds,end_seconds,busy_ranks,busy_fraction")
	}
	for _, tp := range s.Trace {
		fmt.Fprintf(w, "%d,%s,%s,%s,%s\n", r.traceRuns, fnum(tp.Start), fnum(tp.End), fnum(tp.Busy), fnum(tp.Busy/float64(s.Ranks)))
	}
	err = errors.Join(w.Flush(), f.Close())
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	return nil
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
