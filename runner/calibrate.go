package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/lb/driver"
	"github.com/treelb/treelb/mpi"
	"github.com/treelb/treelb/version"
	"gonum.org/v1/gonum/stat"
)

// calibrationTime is how long --calibrate runs each measurement.
const calibrationTime = 300 * time.Millisecond

// calibrationMin is the fewest nodes a calibration accepts.
const calibrationMin = 100000

// Calibrate works task, a piece of an app's sequential search, for about d
// of CPU time of its thread (in slices of 10⁵ nodes, or until it is
// exhausted; threadCPUTime) and returns the CPU nanoseconds per node. It
// fails when the task holds fewer than 10⁵ nodes.
func Calibrate(task lb.Task, d time.Duration) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spent, nodes := timeNodes(task, d, 0)
	if nodes < calibrationMin {
		return 0, Usagef("--calibrate: the instance has %d nodes, too few to time (need %d): calibrate on a larger instance (or, with --world sim, give the node cost with --node-ns)", nodes, calibrationMin)
	}
	return float64(spent.Nanoseconds()) / float64(nodes), nil
}

// timeNodes works task in slices of 10⁵ nodes until it is exhausted, d of
// its thread's CPU time passed (d > 0) or it expanded limit nodes (limit >
// 0), and returns the CPU time and the nodes. The caller locks its
// goroutine to its thread.
func timeNodes(task lb.Task, d time.Duration, limit int64) (time.Duration, int64) {
	start := threadCPUTime()
	var nodes int64
	for !task.Empty() && (d <= 0 || threadCPUTime()-start < d) && (limit <= 0 || nodes < limit) {
		n := int64(100000)
		if limit > 0 {
			n = min(n, limit-nodes)
		}
		nodes += task.Work(n)
	}
	return threadCPUTime() - start, nodes
}

// cpuTime returns the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CalibrateApp measures what app's tasks cost on this machine, as the
// simulator's machine model charges it: NodeNS, a node of its root's
// search (the CPU time of the calibrating thread: the median of three
// passes over the nodes the first expands in d/3, each from a fresh root;
// calibrateNodes says why not the least); SplitNS, a Split that
// gives a piece, of a task in the middle of the search (between slices of
// 1000 nodes);
// SendByteNS and RecvByteNS, encoding a split-off piece (AppendBinary) and
// decoding it (App.Unmarshal) per byte. The split and byte costs are means
// of their samples without the highest and lowest 1 % (a shared machine
// preempts some for milliseconds, while splits' own costs spread over
// three orders of magnitude: golomb's median is 0.3 µs, its 90th
// percentile 14 µs). Each runs for about d. The other fields are zero.
func CalibrateApp(app lb.App, d time.Duration) (lb.Machine, error) {
	var m lb.Machine
	var err error
	if m.NodeNS, err = calibrateNodes(app, d); err != nil {
		return m, err
	}
	var split, enc, dec []float64
	t := app.Root()
	var buf []byte
	for start := time.Now(); time.Since(start) < d || len(split) < 100; {
		if time.Since(start) > 20*d {
			if len(split) == 0 {
				return m, errors.New("--calibrate: the instance's tasks do not split; give --split-ns")
			}
			break
		}
		if t.Empty() {
			t = app.Root()
		}
		t.Work(1000)
		t0 := time.Now()
		piece := t.Split()
		t1 := time.Now()
		if piece == nil {
			continue
		}
		split = append(split, float64(t1.Sub(t0).Nanoseconds()))
		if buf, err = piece.AppendBinary(buf[:0]); err != nil {
			return m, fmt.Errorf("--calibrate: encoding a task: %w", err)
		}
		t2 := time.Now()
		if _, err := app.Unmarshal(buf); err != nil {
			return m, fmt.Errorf("--calibrate: decoding a task: %w", err)
		}
		t3 := time.Now()
		if n := float64(len(buf)); n > 0 {
			enc = append(enc, float64(t2.Sub(t1).Nanoseconds())/n)
			dec = append(dec, float64(t3.Sub(t2).Nanoseconds())/n)
		}
	}
	m.SplitNS, m.SendByteNS, m.RecvByteNS = trimmedMean(split), trimmedMean(enc), trimmedMean(dec)
	return m, nil
}

// calibrateNodes returns the CPU nanoseconds per node of app's search: the
// median of three passes over the same nodes from the root, the first for
// about d/3 (CalibrateApp). The median, not the least: the model predicts
// runs of seconds on the same machine, and a shared VM's speed swings by
// up to 1.6× within seconds (golomb 12 timed in chunks of 5·10⁶ nodes
// read 17–29 ns a node within one search); the least of six passes of
// 0.1 s picked its fast moments: in a validation run with it
// (results/validate/least) every miss had the model too fast, golomb's and
// knapsack's runs by 16–26 %. A slow stretch that spans one calibration is
// outvoted by the median of the calibrations that validate.sh makes
// (campaign --median-machine).
func calibrateNodes(app lb.App, d time.Duration) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	spent, nodes := timeNodes(app.Root(), d/3, 0)
	if nodes < calibrationMin {
		return 0, Usagef("--calibrate: the instance has %d nodes, too few to time (need %d): calibrate on a larger instance (or, with --world sim, give the node cost with --node-ns)", nodes, calibrationMin)
	}
	ns := []float64{float64(spent.Nanoseconds()) / float64(nodes)}
	for range 2 {
		spent, n := timeNodes(app.Root(), 0, nodes)
		ns = append(ns, float64(spent.Nanoseconds())/float64(n))
	}
	return medianOf(ns), nil
}

// medianOf returns the median of xs (gonum's empirical quantile at 0.5, as
// every measurement of the repository takes it), sorting xs.
func medianOf(xs []float64) float64 {
	slices.Sort(xs)
	return stat.Quantile(0.5, stat.Empirical, xs, nil)
}

// recheckNodes times the node cost of a fresh app of the instance again
// (calibrateNodes) and keeps the mean of that and task's: --calibrate
// measures it once at its start and once more at its end, a second or
// two later, so that the model samples the machine's speed over the whole
// calibration rather than its first 0.3 s (results/validate).
func recheckNodes(newApp func() (lb.App, error), task *lb.Machine) error {
	app, err := newApp()
	if err != nil {
		return fmt.Errorf("calibrating: %w", err)
	}
	ns, err := calibrateNodes(app, calibrationTime)
	if err != nil {
		return err
	}
	task.NodeNS = (task.NodeNS + ns) / 2
	return nil
}

// calibrateBusy returns on rank 0 of c the CPU nanoseconds per node of
// the app's search while every rank of c searches at once
// (lb.Machine.BusyNodeNS): each rank times three passes of about d/3 from
// a fresh root of its own app (newApp), a barrier before each so that the
// ranks' passes overlap, and keeps their median (calibrateNodes says why);
// rank 0 returns the ranks' mean, the other ranks 0. It is collective; a
// rank whose app fails reports it to rank 0, which returns the error.
func calibrateBusy(c *mpi.Comm, newApp func() (lb.App, error), d time.Duration) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	app, err := newApp()
	var passes []float64
	for range 3 {
		if err := c.Barrier(); err != nil {
			return 0, fmt.Errorf("calibrating the busy node cost: %w", err)
		}
		if app == nil {
			continue
		}
		if spent, n := timeNodes(app.Root(), d/3, 0); n > 0 {
			passes = append(passes, float64(spent.Nanoseconds())/float64(n))
		}
	}
	best := math.NaN() // the sum says a rank failed
	if err == nil && len(passes) > 0 {
		best = medianOf(passes)
	}
	// The sum of the ranks' figures, to rank 0.
	sum := make([]float64, 1)
	if err := mpi.Reduce(c, []float64{best}, sum, mpi.Sum, 0); err != nil {
		return 0, fmt.Errorf("calibrating the busy node cost: %w", err)
	}
	if c.Rank() != 0 {
		return 0, nil
	}
	v := sum[0] / float64(c.Size())
	if math.IsNaN(v) {
		return 0, errors.New("calibrating the busy node cost: a rank could not time its search")
	}
	return v, nil
}

// The budgets of the slice calibration (calibrateSlice): by default Δt =
// 10 nodes, at which the loop's cost per slice weighs most, against 10⁴,
// the default budget, at which it is lost in the nodes.
const (
	sliceSmall = 10
	sliceLarge = 10000
	slicePairs = 5 // runs at each budget
)

// sliceBudget returns the budget at which --calibrate measures the slice's
// cost: the run's --budget when it is below 10⁴ (the cost per slice
// depends on the budget: fifteen's real runs in the embedded world paid
// 350 ns a slice at Δt = 10, 670 at 100 and 820 at 10³, results/validate),
// 10 otherwise.
func sliceBudget(budget int64) int64 {
	if budget > 0 && budget < sliceLarge {
		return budget
	}
	return sliceSmall
}

// calibrateSlice measures what a work slice costs the real loop beyond its
// nodes: it runs the app's search on one rank through run (the world's
// loop alone: driver.Alone), with the balancer and options of cfg, at a
// budget of small nodes and of 10⁴ nodes, over the same nodes (the root's
// first, as many as the small budget works in about d/6, at least 10⁵),
// five times each, alternating, and charges the difference of the least
// CPU times of the calibrating thread at each budget, less the difference
// of nodes at nodeNS, to the difference of slices. It returns that cost
// in ns per slice, at least 0, after about 2d in all. The cost includes
// the world's poll (an Iprobe) and every other cost the loop pays per
// slice: the app's Task.Work entry and exit, lb.Rank.Work (the balancer's
// Task and Tick, its progress checks) and the loop's clock, outbox and
// checks; and the two calls of the wrapper that stops the search after
// those nodes (a few ns). newApp returns a fresh app of the instance.
func calibrateSlice(newApp func() (lb.App, error), cfg lb.Config, small int64, nodeNS float64, run func(lb.Job) (lb.Stats, error), d time.Duration) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cfg.Progress, cfg.CheckpointDue, cfg.Resume, cfg.RankStats = nil, nil, nil, false
	type timed struct {
		cpu   float64 // ns
		stats lb.Stats
	}
	once := func(budget, nodes int64) (timed, error) {
		app, err := newApp()
		if err != nil {
			return timed{}, err
		}
		app = limitApp(app, nodes)
		c := cfg
		c.Budget = budget
		job := lb.Job{Config: c, NewApp: func() lb.App { return app }}
		t0 := threadCPUTime()
		st, err := run(job)
		return timed{float64((threadCPUTime() - t0).Nanoseconds()), st}, err
	}
	if small < 1 || small >= sliceLarge {
		return 0, fmt.Errorf("--calibrate: a slice budget of %d: need 1 to %d", small, sliceLarge-1)
	}
	// The nodes: as many as the small budget works in about d/6, from
	// probes of 4× more nodes each until one lasts d/24 (a probe's fixed
	// costs would otherwise shorten the runs).
	nodes := int64(calibrationMin)
	for {
		probe, err := once(small, nodes)
		if err != nil {
			return 0, err
		}
		if probe.stats.Nodes < nodes {
			if probe.stats.Nodes < calibrationMin {
				return 0, Usagef("--calibrate: the instance has %d nodes, too few to time (need %d): calibrate on a larger instance (or, with --world sim, give the slice cost with --slice-ns)", probe.stats.Nodes, calibrationMin)
			}
			break // the whole sample
		}
		if probe.cpu >= float64(d/24) {
			nodes = int64(float64(nodes) * float64(d/6) / probe.cpu)
			break
		}
		nodes *= 4
	}
	nodes = max(nodes, calibrationMin)
	// The fastest run at each budget: a shared machine's other work only
	// ever adds to a run's CPU time (caches, preemption's cost), and the
	// difference of two runs magnifies it.
	var best [2]timed
	for i := range 2 * slicePairs {
		k := (i + i/2) % 2 // small, large, large, small, small, large, …: against drift
		t, err := once([2]int64{small, sliceLarge}[k], nodes)
		if err != nil {
			return 0, err
		}
		if i < 2 || t.cpu < best[k].cpu {
			best[k] = t
		}
	}
	s, l := best[0], best[1]
	ds := s.stats.Slices - l.stats.Slices
	if ds <= 0 {
		return 0, fmt.Errorf("--calibrate: %d slices at a budget of %d, %d at %d", s.stats.Slices, small, l.stats.Slices, sliceLarge)
	}
	return max((s.cpu-l.cpu-float64(s.stats.Nodes-l.stats.Nodes)*nodeNS)/float64(ds), 0), nil
}

// limitApp returns app with a root that stops after limit nodes (the
// slice calibration's): the other optional interfaces of app that the
// balancers use (lb.Bounded, lb.Stopper) stay, so that the engine does
// per slice what it does in a run.
func limitApp(app lb.App, limit int64) lb.App {
	l := &limitedApp{App: app, limit: limit}
	b, bounded := app.(lb.Bounded)
	s, stopper := app.(lb.Stopper)
	switch {
	case bounded && stopper:
		return struct {
			*limitedApp
			lb.Bounded
			lb.Stopper
		}{l, b, s}
	case bounded:
		return struct {
			*limitedApp
			lb.Bounded
		}{l, b}
	case stopper:
		return struct {
			*limitedApp
			lb.Stopper
		}{l, s}
	}
	return l
}

// limitedApp is limitApp's app: its root is a limitedTask.
type limitedApp struct {
	lb.App
	limit int64
}

func (a *limitedApp) Root() lb.Task { return &limitedTask{Task: a.App.Root(), left: a.limit} }

// limitedTask is a task that is empty once it expanded left nodes.
type limitedTask struct {
	lb.Task
	left int64
}

func (t *limitedTask) Work(budget int64) int64 {
	n := t.Task.Work(min(budget, t.left))
	t.left -= n
	return n
}

func (t *limitedTask) Empty() bool { return t.left <= 0 || t.Task.Empty() }

// Split gives nothing: the calibration's rank is alone, and a piece would
// escape the limit.
func (t *limitedTask) Split() lb.Task { return nil }

// trimmedMean returns the mean of xs without its highest and lowest 1 %,
// 0 for none; it sorts xs.
func trimmedMean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	k := len(xs) / 100
	xs = xs[k : len(xs)-k]
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// calibrated returns the machine model of a calibration: the app's costs
// task, the communication's comm (driver.Calibrate), no topology, named
// after the world and with its provenance.
func (r *Run) calibrated(task, comm lb.Machine, world string, ranks int) lb.Machine {
	m := comm
	m.NodeNS, m.SplitNS, m.SendByteNS, m.RecvByteNS = task.NodeNS, task.SplitNS, task.SendByteNS, task.RecvByteNS
	m.SliceNS, m.BusyNodeNS = task.SliceNS, task.BusyNodeNS
	m.Name = "calibrated-" + world
	m.App = CommandPath(r.Context)
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	args, _ := r.Context.App.Metadata[metaArgs].([]string)
	m.Source = fmt.Sprintf("%s, measured on %d ranks of the %s world on %s (%d CPUs, GOMAXPROCS %d, load %s) at %s by treelb %s",
		strings.Join(args, " "), ranks, world, host, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "),
		time.Now().UTC().Format(time.RFC3339), strings.ReplaceAll(version.Get().Version, "\n", " "))
	if !strings.HasPrefix(world, "tasks+") { // calibrateSim in the MPI build measures no slice
		m.Source += fmt.Sprintf("; the slice's cost at a budget of %d against %d", sliceBudget(r.Budget), sliceLarge)
	}
	return m
}

// writeMachine writes m as indented JSON, as --machine FILE reads it.
func writeMachine(w io.Writer, m lb.Machine) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// calibrateSim measures the machine of --world sim (--calibrate): the
// app's costs with the sample; in the embedded build the communication's
// with two goroutine ranks of the embedded world, and request throttling as
// the embedded world would do it on --np ranks; in the MPI build, whose
// world mpirun starts, the model's own communication costs stay (measure
// them with --world mpi --calibrate under mpirun). The flags' overrides
// apply; the model goes to stderr unless --quiet.
func (r *Run) calibrateSim(sample func() (lb.App, error)) (lb.Machine, error) {
	task, err := r.calibrateApp(sample)
	if err != nil {
		return lb.Machine{}, err
	}
	var comm lb.Machine
	note, world := "", "embedded"
	if mpi.WorldName == "embedded" {
		err := mpi.Run(2, func(c *mpi.Comm) error {
			// Both ranks search at once first: the node's cost with the
			// cores busy.
			busy, err := calibrateBusy(c, sample, calibrationTime)
			if err != nil {
				return err
			}
			m, err := driver.Calibrate(c, calibrationTime)
			if c.Rank() != 0 || err != nil {
				return err
			}
			comm, task.BusyNodeNS = m, busy
			// Rank 1 is gone: rank 0's loop polls alone.
			if task.SliceNS, err = r.calibrateSlice(c, sample, task.NodeNS, m.PollNS); err != nil {
				return err
			}
			return recheckNodes(sample, &task)
		})
		if err != nil {
			return lb.Machine{}, err
		}
		comm.PauseNS, comm.MaxPauseNS = 0, 0
		if tick, maxPause, ok := driver.Throttling(r.NP, runtime.GOMAXPROCS(0)); ok {
			comm.PauseNS, comm.MaxPauseNS = float64(tick.Nanoseconds()), float64(maxPause.Nanoseconds())
		}
	} else {
		base, err := r.SimMachine()
		if err != nil {
			return lb.Machine{}, err
		}
		comm = base
		world = "tasks+" + base.Name
		task.SliceNS = base.SliceNS
		note = fmt.Sprintf("; the communication costs and the loop's cost per slice are machine %s's: the MPI build measures MPI's with --world mpi --calibrate under mpirun", base.Name)
	}
	m := r.calibrated(task, comm, world, r.NP)
	m.Source += note
	if m, err = r.Common.overrides(m); err != nil {
		return m, err
	}
	// The model is what --calibrate is for: -q drops the line before it,
	// not the model (it was lost).
	w := errWriter(r.Context.App)
	if !r.Quiet {
		fmt.Fprintf(w, "%s: calibrated machine (save it for --machine FILE):\n", r.Context.App.Name)
	}
	if err := writeMachine(w, m); err != nil {
		return m, err
	}
	return m, nil
}

// calibrateApp measures the app's task costs with the sample, a usage
// error for an app without one.
func (r *Run) calibrateApp(sample func() (lb.App, error)) (lb.Machine, error) {
	if sample == nil {
		return lb.Machine{}, Usagef("--calibrate: %s has no sequential sample to calibrate with", r.App)
	}
	app, err := sample()
	if err != nil {
		return lb.Machine{}, fmt.Errorf("calibrating: %w", err)
	}
	return CalibrateApp(app, calibrationTime)
}

// calibrateSlice measures on rank 0 of c the loop's cost per work slice
// beyond the nodes and the poll (lb.Machine.SliceNS): the whole cost of a
// slice (calibrateSlice, the app's search through the world's loop alone,
// with the run's balancer and options, at sliceBudget of its --budget),
// less pollNS, the world's poll (driver.Calibrate's PollNS). The other
// ranks of c must send rank 0 nothing meanwhile.
func (r *Run) calibrateSlice(c *mpi.Comm, sample func() (lb.App, error), nodeNS, pollNS float64) (float64, error) {
	cfg := r.Common.Config()
	perSlice, err := calibrateSlice(sample, cfg, sliceBudget(cfg.Budget), nodeNS, func(job lb.Job) (lb.Stats, error) {
		return driver.Alone(c, job)
	}, calibrationTime)
	if err != nil {
		return 0, fmt.Errorf("calibrating the slice: %w", err)
	}
	return max(perSlice-pollNS, 0), nil
}

// calibrateWorld is --calibrate in the embedded and MPI worlds: the ranks
// measure the communication of their world together (driver.Calibrate),
// rank 0 the app's costs, and rank 0 prints the model as JSON on stdout,
// which --world sim --machine FILE loads. It is collective.
func (r *Run) calibrateWorld(sample func() (lb.App, error)) error {
	comm, err := driver.Calibrate(r.Comm, calibrationTime)
	if err != nil {
		return err
	}
	var task lb.Machine
	var bad error
	if r.Rank() == 0 {
		// The other ranks wait for the verdict meanwhile (a broadcast,
		// which sends rank 0 nothing), so rank 0's loop polls alone.
		task, bad = r.calibrateApp(sample)
		if bad == nil {
			task.SliceNS, bad = r.calibrateSlice(r.Comm, sample, task.NodeNS, comm.PollNS)
		}
	}
	// Rank 0's verdict for all. The others wait for it yielding their
	// cores: a rank that spins meanwhile (MPICH's blocking calls do, and
	// MPI ranks that have a core each) makes rank 0 measure its nodes and
	// slices with both cores busy, the busy node's cost (up to 1.2× the
	// idle machine's on the development VM, for uts), which the model
	// already has as busy_node_ns.
	msg := []byte{0}
	if bad != nil {
		msg = append([]byte{byte(exitCode(bad))}, bad.Error()...)
	}
	// (Every rank: a blocking broadcast does not match a non-blocking one.)
	idle := r.Comm.Idle()
	r.Comm.SetIdle(mpi.IdleYield)
	msg, err = driver.Bcast(r.Comm, msg, 0)
	r.Comm.SetIdle(idle)
	if err != nil {
		return err
	}
	if msg[0] != 0 {
		if r.Rank() == 0 {
			return bad
		}
		return &quietError{code: int(msg[0])}
	}
	// Every rank searches at once: the node's cost with the cores busy.
	// (An error is rank 0's, which it returns; the others end with it.)
	if r.Comm.Size() > 1 {
		if task.BusyNodeNS, err = calibrateBusy(r.Comm, sample, calibrationTime); err != nil {
			return err
		}
	}
	if r.Rank() != 0 {
		return nil
	}
	if err := recheckNodes(sample, &task); err != nil {
		return err
	}
	return writeMachine(r.Out(), r.calibrated(task, comm, r.WorldName(), r.Comm.Size()))
}
