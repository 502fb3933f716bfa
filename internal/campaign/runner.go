package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/treelb/treelb/runner"

	"github.com/treelb/treelb/version"
)

// Runner runs the keys of a plan that its CSV file does not hold yet. The
// zero value is not usable: set CSV, BinDir and Progress.
type Runner struct {
	CSV      string        // the CSV file, read first and rewritten or appended after every run
	JSONL    string        // if set, every run's output is also appended to this file, as it came
	BinDir   string        // the directory of the commands (BinDir/golomb, …) and of foreign programs
	Launcher []string      // prefix of every real run's command line (not a simulated one); {np} is replaced by P (e.g. srun -n {np})
	Timeout  time.Duration // per run; 0: none
	// Jobs is how many runs go at once (0 or 1: one). More than one is
	// refused for real worlds, whose runs would disturb each other's times.
	Jobs     int
	Progress io.Writer // progress lines (stderr)
	// InputDir keeps the files made by instances' <(...) generators; ""
	// makes a temporary directory for the campaign and removes it after.
	InputDir string
	// Exec runs a command line and returns its standard output and CPU
	// time; nil runs it as a process (tests replace it).
	Exec func(ctx context.Context, cmd []string) (Output, error)
	// Load returns the 1-minute load average; nil reads /proc/loadavg.
	Load func() float64
	// Cores is the machine's cores for the load warning; 0: runtime.NumCPU().
	Cores int
	// Sources says where the foreign programs came from, by name (a
	// preset's Setup.Sources): their rows' provenance.
	Sources map[string]*Source
	// Check runs each distinct command line to run with --check first,
	// and refuses the campaign (a *runner.UsageError) if one fails.
	Check bool

	mu     sync.Mutex // guards inputs and own
	inputs map[string]string
	// tempInputs: InputDir is the campaign's temporary directory, removed
	// at its end, whose paths a row must not hold.
	tempInputs bool
	own        ownLoad // the campaign's own runs' share of the load average
}

// ownLoad estimates the share of the 1-minute load average that the
// campaign's own runs account for, as the kernel averages it: an
// exponential decay with a time constant of a minute towards the number
// of CPUs the runs keep busy (a run's CPU seconds over its wall seconds).
// A run's load warning judges the load before and after it less this
// share, so that the runs before it (a 2-rank run leaves about 1.3 behind
// after 80 s) do not flag it, and a short run is not credited with its
// ranks (a 1-second run of 2 ranks adds 0.03 to the average).
type ownLoad struct {
	v  float64   // the share at time at
	at time.Time // zero: no run yet
}

// loadSlack is the load beyond the free cores that LoadWarning lets
// pass: the error of the own share's estimate and the kernel's own
// background work (its threads, the campaign runner itself).
const loadSlack = 0.2

// loadDecay is the time constant of the 1-minute load average, in seconds.
const loadDecay = 60

// share returns the estimate at t.
func (o *ownLoad) share(t time.Time) float64 {
	if o.at.IsZero() {
		return 0
	}
	return o.v * math.Exp(-max(t.Sub(o.at).Seconds(), 0)/loadDecay)
}

// add accounts for a run from start to end that kept busy CPUs busy.
func (o *ownLoad) add(start, end time.Time, busy float64) {
	v := o.share(start)
	e := math.Exp(-max(end.Sub(start).Seconds(), 0) / loadDecay)
	o.v, o.at = v*e+max(busy, 0)*(1-e), end
}

// Output is what running a command line gave: its standard output and the
// CPU time (user and system) of its process and of the children it waited
// for (a launcher's ranks).
type Output struct {
	Stdout     []byte
	CPUSeconds float64
}

// CheckJobs refuses Jobs > 1 when a key runs in a real world: real runs
// at once would disturb each other's times.
func (r *Runner) CheckJobs(keys []Key) error {
	if r.Jobs <= 1 {
		return nil
	}
	for _, k := range keys {
		if w, err := ParseWorld(k.World); err != nil || w.Real() {
			return fmt.Errorf("campaign: %d jobs at once with a run in the %s world: real runs would disturb each other's times", r.Jobs, k.World)
		}
	}
	return nil
}

// Run runs every key not in the CSV file yet, in order (with Jobs > 1,
// the baselines first, then the others, several at once), and returns the
// table with all rows. The CSV file is written after every run, so an
// interrupted campaign loses at most the runs under way. A failing run
// ends the campaign with its error.
func (r *Runner) Run(ctx context.Context, keys []Key) (*Table, error) {
	t, todo, err := r.Todo(keys)
	if err != nil {
		return nil, err
	}
	if err := r.CheckJobs(todo); err != nil {
		return nil, err
	}
	if r.InputDir == "" && len(todo) > 0 {
		dir, err := os.MkdirTemp("", "campaign-inputs")
		if err != nil {
			return t, err
		}
		defer os.RemoveAll(dir)
		defer func() { r.InputDir, r.inputs, r.tempInputs = "", nil, false }()
		r.InputDir, r.tempInputs = dir, true
	}
	if r.Check {
		// Before the CSV is first written: a refused campaign leaves none.
		if err := r.check(ctx, todo); err != nil {
			return t, err
		}
	}
	if t.Torn > 0 {
		// Written again without the incomplete row, so that the next row
		// does not follow half a line.
		if err := t.Write(r.CSV); err != nil {
			return nil, err
		}
		t.Torn = 0
	}
	fmt.Fprintf(r.Progress, "campaign: %d runs in the plan, %d already in %s, %d to run\n", len(keys), len(keys)-len(todo), r.CSV, len(todo))
	if len(t.Columns) == 0 {
		t.Columns = RunColumns()
		t.index = nil
		if err := t.Write(r.CSV); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	done := 0
	warned := false
	record := func(k Key, res result) error {
		done++
		if res.err != nil && len(res.cmd) == 0 {
			return res.err // the command line could not be made: the error says why
		}
		if res.err != nil {
			return fmt.Errorf("campaign: %s: %w", strings.Join(res.cmd, " "), res.err)
		}
		// The JSON line first: a run whose row is in the CSV is not run
		// again, so a line that failed after its row was lost for good; a
		// row that fails after its line is run again (its line twice).
		if r.JSONL != "" {
			if err := appendFile(r.JSONL, res.out); err != nil {
				return err
			}
		}
		grew, err := t.Add(res.fields)
		if err != nil {
			return err
		}
		if grew {
			err = t.Write(r.CSV)
		} else {
			err = t.AppendLast(r.CSV)
		}
		if w := t.Get(len(t.Rows)-1, ColWarning); w != "" {
			fmt.Fprintf(r.Progress, "campaign: warning: %s: %s\n", k, w)
		}
		if c := t.Get(len(t.Rows)-1, "provenance.commit"); !warned && (c == version.Unknown || c == "") {
			warned = true
			fmt.Fprintf(r.Progress, "campaign: warning: %s carries no VCS commit in its provenance (%s); build the commands with go build or make in a git clone to record it\n",
				App(k.Instance), "go run, a linked worktree, a tree without .git or -buildvcs=false")
		}
		return err
	}
	progress := func(i, n int, cmd []string) {
		eta := "?"
		if done > 0 {
			eta = (time.Since(start) / time.Duration(done) * time.Duration(n-done)).Round(time.Second).String()
		}
		fmt.Fprintf(r.Progress, "campaign: run %d of %d (ETA %s): %s\n", i+1, n, eta, strings.Join(cmd, " "))
	}
	if r.Jobs <= 1 {
		for i, k := range todo {
			res := r.run(ctx, t, k, func(cmd []string) { progress(i, len(todo), cmd) })
			if err := record(k, res); err != nil {
				return t, err
			}
		}
	} else {
		var base, rest []Key
		for _, k := range todo {
			if k.Baseline() {
				base = append(base, k)
			} else {
				rest = append(rest, k)
			}
		}
		n := 0
		for _, batch := range [][]Key{base, rest} {
			if err := r.parallel(ctx, t, batch, n, len(todo), progress, record); err != nil {
				return t, err
			}
			n += len(batch)
		}
	}
	fmt.Fprintf(r.Progress, "campaign: %d runs in %s; %s holds %d rows\n", len(todo), time.Since(start).Round(time.Second), r.CSV, len(t.Rows))
	return t, nil
}

// result is what one run gave.
type result struct {
	cmd    []string
	fields []Field
	out    []byte
	err    error
}

// parallel runs keys Jobs at a time and records their results as they
// come, in the calling goroutine; it stops at the first failure.
func (r *Runner) parallel(ctx context.Context, t *Table, keys []Key, first, total int, progress func(int, int, []string), record func(Key, result) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type item struct {
		k   Key
		res result
	}
	// The table is read (seq nodes) while results are recorded: the
	// workers get the sequential nodes from this goroutine, before they
	// start, as the baselines are all recorded by then.
	seqNodes := make([]int64, len(keys))
	for i, k := range keys {
		seqNodes[i] = SeqNodes(t, k.Instance)
	}
	work := make(chan int)
	results := make(chan item)
	var wg sync.WaitGroup
	var pmu sync.Mutex
	for range r.Jobs {
		wg.Go(func() {
			for i := range work {
				res := r.runWith(ctx, keys[i], seqNodes[i], func(cmd []string) {
					pmu.Lock()
					progress(first+i, total, cmd)
					pmu.Unlock()
				})
				results <- item{keys[i], res}
			}
		})
	}
	go func() {
		defer close(work)
		for i := range keys {
			select {
			case work <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	var firstErr error
	for it := range results {
		if firstErr != nil {
			continue // drain
		}
		pmu.Lock()
		err := record(it.k, it.res)
		pmu.Unlock()
		if err != nil {
			firstErr = err
			cancel()
		}
	}
	return firstErr
}

// Todo reads the CSV file and returns its table and the keys it does not
// hold yet, in order. It writes nothing (a dry run's plan): a last row cut
// off while it was written is left out of the table (Table.Torn).
func (r *Runner) Todo(keys []Key) (*Table, []Key, error) {
	t, err := ReadTable(r.CSV)
	if err != nil {
		return nil, nil, err
	}
	if t.Torn > 0 && r.Progress != nil {
		// Run writes the table again without it; a dry run leaves it.
		fmt.Fprintf(r.Progress, "campaign: warning: %s ends with an incomplete row (%d bytes without their newline: a run stopped while it was written), left out: its run runs again\n", r.CSV, t.Torn)
	}
	have, err := t.Keys()
	if err != nil { // bad input, as a CSV that does not parse
		return nil, nil, &runner.UsageError{Err: fmt.Errorf("%s: not a campaign's CSV: %w", r.CSV, err)}
	}
	if err := checkRows(t, have); err != nil {
		return nil, nil, &runner.UsageError{Err: fmt.Errorf("%s: %w", r.CSV, err)}
	}
	done := make(map[Key]bool, len(have))
	for _, k := range have {
		done[k] = true
	}
	var todo []Key
	for _, k := range keys {
		if !done[k] {
			todo = append(todo, k)
		}
	}
	return t, todo, nil
}

// SeqNodes returns the nodes of the sequential solver on instance in the
// table: a baseline row's (of the simulator's baseline world if there is
// one, else of any world: the sequential solver expands the same nodes
// everywhere), 0 when it has none.
func SeqNodes(t *Table, instance string) int64 {
	var any int64
	for i := range t.Rows {
		if b := strings.Fields(t.Get(i, ColBalancer)); t.Get(i, ColInstance) != instance || len(b) == 0 || b[0] != Seq {
			continue
		}
		n, err := strconv.ParseInt(t.Get(i, "nodes"), 10, 64)
		if err != nil || n <= 0 {
			continue
		}
		if t.Get(i, ColWorld) == SimBaselineWorld {
			return n
		}
		if any == 0 {
			any = n
		}
	}
	return any
}

// run runs the key, with the sequential nodes of its instance from t for
// a simulated run.
func (r *Runner) run(ctx context.Context, t *Table, k Key, started func([]string)) result {
	return r.runWith(ctx, k, SeqNodes(t, k.Instance), started)
}

// runWith runs one key and returns the row's fields and the raw output;
// started is called with the command line (BinDir left out) first.
func (r *Runner) runWith(ctx context.Context, k Key, seqNodes int64, started func([]string)) result {
	w, err := ParseWorld(k.World)
	if err != nil {
		return result{err: err}
	}
	made := map[string]string{} // a generated input's path: its generator, as the row says it
	opts := CommandOptions{BinDir: r.BinDir, Launcher: r.Launcher, SeqNodes: seqNodes,
		Input: func(gen []string) (string, error) {
			p, err := r.input(ctx, gen)
			made[p] = "<(" + strings.Join(gen, " ") + ")"
			return p, err
		}}
	cmd, err := Command(k, opts)
	if err != nil {
		return result{err: err}
	}
	opts.BinDir = ""
	opts.Input = func(gen []string) (string, error) { return "<(" + strings.Join(gen, " ") + ")", nil }
	shown, _ := Command(k, opts)
	started(shown)
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	exe := r.Exec
	if exe == nil {
		exe = ExecCommand
	}
	load := r.Load
	if load == nil {
		load = loadAvg1
	}
	before := load()
	t0 := time.Now()
	out, err := exe(ctx, cmd)
	t1 := time.Now()
	wall := t1.Sub(t0).Seconds()
	after := load()
	r.mu.Lock()
	ownBefore := r.own.share(t0)
	busy := 0.0
	if wall > 0 {
		busy = out.CPUSeconds / wall
	}
	r.own.add(t0, t1, busy)
	ownAfter := r.own.share(t1)
	r.mu.Unlock()
	if err != nil && r.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("stopped at --timeout %v: %w", r.Timeout, err)
	}
	if err != nil {
		return result{cmd: shown, err: err}
	}
	var js []Field
	if f, ok := LookupForeign(App(k.Instance)); ok {
		js, err = f.Parse(out.Stdout)
	} else {
		js, err = Flatten(out.Stdout)
	}
	if err != nil {
		return result{cmd: shown, err: err}
	}
	if _, foreign := LookupForeign(App(k.Instance)); !foreign {
		if err := ranAsKeyed(k, w, js); err != nil {
			return result{cmd: shown, err: err}
		}
	}
	if r.tempInputs {
		// The command's own record of its input (knapsack's "file")
		// named a temporary file, gone after the campaign.
		for i, f := range js {
			if gen, ok := made[f.Value]; ok {
				js[i].Value = gen
			}
		}
	}
	cores := r.Cores
	if cores == 0 {
		cores = runtime.NumCPU()
	}
	warning := ""
	if w.Real() {
		ranks := k.NP
		if k.Baseline() {
			ranks = 1
		}
		warning = LoadWarning(before, after, ownBefore, ownAfter, cores, ranks)
	}
	f := func(x float64) string {
		if x < 0 {
			return ""
		}
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	fields := make([]Field, 0, len(RunColumns())+len(js)+16)
	for i, v := range k.Values() {
		fields = append(fields, Field{RunColumns()[i], v})
	}
	fields = append(fields, Field{ColCommand, strings.Join(shown, " ")}, Field{ColLoadBefore, f(before)}, Field{ColLoadAfter, f(after)},
		Field{ColCores, strconv.Itoa(cores)}, Field{ColWarning, warning},
		Field{ColWall, strconv.FormatFloat(wall, 'f', 3, 64)}, Field{ColCPU, strconv.FormatFloat(out.CPUSeconds, 'f', 3, 64)})
	fields = append(fields, js...)
	if !hasPrefix(js, "provenance.") {
		// Output without provenance: the campaign's own, for the world it
		// ran in; for a foreign program, the machine's (host, CPU, load)
		// with the program's source in place of treelb's version, commit
		// and MPI.
		p := version.Collect(w.Name)
		if _, ok := LookupForeign(App(k.Instance)); ok {
			p.Version, p.Commit, p.Modified = App(k.Instance)+": source unknown", version.Unknown, false
			p.MPI = "none"
			if w.Name == "mpi" {
				p.MPI = version.Unknown
			}
			if s := r.Sources[App(k.Instance)]; s != nil {
				p.Version, p.Commit = fmt.Sprintf("%s: %s at %s, built with %s", App(k.Instance), s.Repo, s.Commit, s.Build), s.Commit
				if w.Name == "mpi" && s.MPI != "" {
					p.MPI = s.MPI
				}
			}
			p.MPILibrary = p.MPI
		}
		pf, err := provenanceFields(p)
		if err != nil {
			return result{cmd: shown, err: err}
		}
		fields = append(fields, pf...)
	}
	return result{cmd: shown, fields: fields, out: out.Stdout}
}

// LoadWarning returns why a real run's time may be disturbed by other
// processes, "" when it is not: when it has more ranks than the machine
// has cores, or when the 1-minute load average before or after it, less
// the campaign's own share at that moment (ownBefore, ownAfter: its
// earlier runs, and after it the run itself, as ownLoad estimates them),
// exceeded the cores its ranks left free by more than loadSlack. A
// negative load is unknown.
func LoadWarning(before, after, ownBefore, ownAfter float64, cores, ranks int) string {
	free := float64(cores-ranks) + loadSlack
	switch {
	case ranks > cores:
		return fmt.Sprintf("%d ranks on %d cores", ranks, cores)
	case before-ownBefore > free:
		return fmt.Sprintf("load %.2f before the run, %.2f of it not the campaign's own runs (estimated), > %d cores left free (%d cores, %d ranks)",
			before, before-ownBefore, cores-ranks, cores, ranks)
	case after-ownAfter > free:
		return fmt.Sprintf("load %.2f after the run, %.2f of it not the campaign's own runs and this one (estimated), > %d cores left free (%d cores, %d ranks)",
			after, after-ownAfter, cores-ranks, cores, ranks)
	}
	return ""
}

// provenanceFields returns p as the flattened columns provenance.*.
func provenanceFields(p version.Provenance) ([]Field, error) {
	b, err := json.Marshal(struct {
		P version.Provenance `json:"provenance"`
	}{p})
	if err != nil {
		return nil, err
	}
	return Flatten(b)
}

// ranAsKeyed checks that a treelb command's output js says it ran as its
// row's key says: on the key's P (1 for a baseline) and in its world. A
// row that did not (an instance or world flag with its own --np, a
// launcher without {np}, an MPI world run by an embedded build) would
// count in the summary under the wrong P or world.
func ranAsKeyed(k Key, w World, js []Field) error {
	want := map[string]string{"ranks": strconv.Itoa(k.NP), "world": w.Name}
	if k.Baseline() {
		want["ranks"] = "1"
	}
	for _, f := range js {
		if v, ok := want[f.Name]; ok {
			if f.Value != v {
				return fmt.Errorf("the run reports %s %s, its row %s: set the ranks only with --np, a launcher's with {np}, and build the commands of an MPI world with --tags mpi", f.Name, f.Value, v)
			}
			delete(want, f.Name)
		}
	}
	if len(want) > 0 {
		return fmt.Errorf("the run's output has no %v", slices.Sorted(maps.Keys(want)))
	}
	return nil
}

// hasPrefix reports whether a field's name starts with prefix.
func hasPrefix(fs []Field, prefix string) bool {
	for _, f := range fs {
		if strings.HasPrefix(f.Name, prefix) {
			return true
		}
	}
	return false
}

// loadAvg1 returns the 1-minute load average, -1 when unknown.
func loadAvg1() float64 {
	f := strings.Fields(version.LoadAvg())
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// unsafeName matches what a generated input's file name leaves out.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// input returns the file holding the output of the generating command gen
// (a command of BinDir), making it on first use.
func (r *Runner) input(ctx context.Context, gen []string) (string, error) {
	key := strings.Join(gen, " ")
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.inputs[key]; ok {
		return p, nil
	}
	if r.InputDir == "" {
		return "", errors.New("campaign: no directory for generated inputs")
	}
	path := filepath.Join(r.InputDir, strings.Trim(unsafeName.ReplaceAllString(key, "_"), "_")+".txt")
	cmd := slices.Clone(gen)
	if r.BinDir != "" {
		cmd[0] = filepath.Join(r.BinDir, cmd[0])
	}
	exe := r.Exec
	if exe == nil {
		exe = ExecCommand
	}
	out, err := exe(ctx, cmd)
	if err != nil {
		return "", fmt.Errorf("campaign: <(%s): %w", key, err)
	}
	if err := writeFile(path, func(w io.Writer) error { _, err := w.Write(out.Stdout); return err }); err != nil {
		return "", fmt.Errorf("--inputs: %w", err)
	}
	if r.inputs == nil {
		r.inputs = map[string]string{}
	}
	r.inputs[key] = path
	return path, nil
}

// KillGrace is how long a cancelled run has between SIGTERM and SIGKILL.
const KillGrace = 10 * time.Second

// ExecCommand runs cmd as a process and returns its standard output and
// CPU time; its standard error is returned in the error when it fails.
// It is a Runner's Exec by default.
func ExecCommand(ctx context.Context, cmd []string) (Output, error) {
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	// At --timeout or the campaign's own end (SIGINT, SIGTERM): SIGTERM,
	// which every treelb command and mpirun pass on to their ranks and end
	// by, and SIGKILL only if the command is still there after a grace (a
	// SIGKILL of mpirun alone left its ranks running).
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGTERM) }
	c.WaitDelay = KillGrace
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		if msg := bytes.TrimSpace(stderr.Bytes()); len(msg) > 0 {
			err = fmt.Errorf("%w: %s", err, msg)
		}
		return Output{}, err
	}
	return Output{Stdout: out, CPUSeconds: (c.ProcessState.UserTime() + c.ProcessState.SystemTime()).Seconds()}, nil
}

// appendFile appends data, ending in a newline, to the file at path.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	data = append(bytes.TrimRight(data, "\n"), '\n')
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &runner.OutputError{What: path, Err: err}
	}
	return nil
}
