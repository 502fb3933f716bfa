package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
)

// calibrationTime is how long --calibrate runs each measurement.
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

// CalibrateApp measures what app's tasks cost on this machine, as the
// simulator's machine model charges it: NodeNS, a node of its root's
// search (Calibrate, CPU time); SplitNS, a Split that gives a piece, of a
// task in the middle of the search (between slices of 1000 nodes);
// SendByteNS and RecvByteNS, encoding a split-off piece (AppendBinary) and
// decoding it (App.Unmarshal) per byte. The split and byte costs are means
// of their samples without the highest and lowest 1 % (a shared machine
// preempts some for milliseconds, while splits' own costs spread over
// three orders of magnitude: golomb's median is 0.3 µs, its 90th
// percentile 14 µs). Each runs for about d. The other fields are zero.
func CalibrateApp(app lb.App, d time.Duration) (lb.Machine, error) {
	var m lb.Machine
	var err error
	if m.NodeNS, err = Calibrate(app.Root(), d); err != nil {
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
	m.Name = "calibrated-" + world
	host, _ := os.Hostname()
	load, _ := os.ReadFile("/proc/loadavg")
	args, _ := r.Context.App.Metadata[metaArgs].([]string)
	m.Source = fmt.Sprintf("%s, measured on %d ranks of the %s world on %s (%d CPUs, GOMAXPROCS %d, load %s) at %s by treelb %s",
		strings.Join(args, " "), ranks, world, host, runtime.NumCPU(), runtime.GOMAXPROCS(0),
		strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "),
		time.Now().UTC().Format(time.RFC3339), strings.ReplaceAll(version.Get().Version, "\n", " "))
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
			m, err := driver.Calibrate(c, calibrationTime)
			if c.Rank() == 0 {
				comm = m
			}
			return err
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
		note = fmt.Sprintf("; the communication costs are machine %s's: the MPI build measures MPI's with --world mpi --calibrate under mpirun", base.Name)
	}
	m := r.calibrated(task, comm, world, r.NP)
	m.Source += note
	if m, err = r.Common.overrides(m); err != nil {
		return m, err
	}
	if !r.Quiet {
		w := errWriter(r.Context.App)
		fmt.Fprintf(w, "%s: calibrated machine (save it for --machine FILE):\n", r.Context.App.Name)
		if err := writeMachine(w, m); err != nil {
			return m, err
		}
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
		task, bad = r.calibrateApp(sample)
	}
	// Rank 0's verdict for all.
	msg := []byte{0}
	if bad != nil {
		msg = append([]byte{byte(exitCode(bad))}, bad.Error()...)
	}
	if msg, err = driver.Bcast(r.Comm, msg, 0); err != nil {
		return err
	}
	if msg[0] != 0 {
		if r.Rank() == 0 {
			return bad
		}
		return &quietError{code: int(msg[0])}
	}
	if r.Rank() != 0 {
		return nil
	}
	return writeMachine(r.Out(), r.calibrated(task, comm, r.WorldName(), r.Comm.Size()))
}
