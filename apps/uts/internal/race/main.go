// Command race measures the UTS tree search of package tree against the
// C reference, UTS 1.1, in one run: it extracts the reference from a git
// repository of github.com/perarnau/uts into a temporary directory, builds
// its sequential program (uts_shm.c with the BRG SHA-1, gcc -O3), checks
// that the sample trees' flags are those of its sample_trees.sh, then times
// sequential searches, ours in this process and theirs as a program,
// alternately, and prints medians, rates and the ratio, with the load
// average before and after. Nothing of the reference is kept.
//
//	go run ./apps/uts/internal/race -ref /path/to/uts.git -trees T1L,T3L -reps 3
//
// With -mpi it also races P = 2 under mpirun -np 2: the reference's MPI
// work stealing (mpi_workstealing.c, its defaults: chunks of 20 nodes,
// adaptive polling) against the uts command built with -tags mpi, under
// each balancer of -balancers and each budget Δt of -budgets, every
// program once per round, the rounds rotating the order. It reports each
// program's own timer of the search, the wall time of the whole mpirun
// (start-up included), and the CPU time of mpirun and its ranks, medians
// of -reps rounds, and ratios to UTS-MPI. -seq=false skips the sequential
// race.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/treelb/treelb/apps/uts/tree"
	"github.com/treelb/treelb/lb"
)

// The reference's commits: the code of "Original UTS version 1.1" and the
// sample list in sh syntax added later.
const (
	codeCommit    = "8b0c41a"
	samplesCommit = "e10c4fe"
)

func main() {
	ref := flag.String("ref", "https://github.com/perarnau/uts", "git repository of the reference: a local clone (bare or not) or a URL to clone")
	trees := flag.String("trees", "T1L,T3L", "sample trees, comma-separated")
	reps := flag.Int("reps", 3, "runs of each program per tree (medians reported)")
	kernels := flag.String("kernels", "", "our hashing kernels, comma-separated: avx512, avx2, crypto/sha1 (default: every one this machine supports)")
	seq := flag.Bool("seq", true, "race the sequential programs")
	mpi := flag.Bool("mpi", false, "race P = 2 under mpirun -np 2: the reference's MPI work stealing against our uts command (-tags mpi)")
	mpirun := flag.String("mpirun", "mpirun --oversubscribe --allow-run-as-root", "launcher for -mpi")
	balancers := flag.String("balancers", strings.Join(lb.Names(), ","), "with -mpi: our balancers, comma-separated")
	budgets := flag.String("budgets", fmt.Sprint(lb.DefaultBudget), "with -mpi: our budgets Δt in nodes, comma-separated")
	mpiKernel := flag.String("mpi-kernel", tree.BestKernel().String(), "with -mpi: our hashing kernel")
	out := flag.String("out", "", "also write the report to this file")
	flag.Parse()
	var w io.Writer = os.Stdout
	var buf bytes.Buffer
	if *out != "" {
		w = io.MultiWriter(os.Stdout, &buf)
	}
	var ks []tree.Kernel
	for k := tree.AVX512; k >= tree.CryptoSHA1; k-- {
		if k.Supported() {
			ks = append(ks, k)
		}
	}
	if *kernels != "" {
		ks = nil
		for _, name := range strings.Split(*kernels, ",") {
			k, err := tree.ParseKernel(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, "race:", err)
				os.Exit(2)
			}
			ks = append(ks, k)
		}
	}
	var par *parallel
	if *mpi {
		par = &parallel{mpirun: strings.Fields(*mpirun), kernel: *mpiKernel, balancers: strings.Split(*balancers, ",")}
		for _, b := range strings.Split(*budgets, ",") {
			n, err := strconv.ParseInt(b, 10, 64)
			if err != nil || n < 1 {
				fmt.Fprintf(os.Stderr, "race: -budgets: %q is not a budget\n", b)
				os.Exit(2)
			}
			par.budgets = append(par.budgets, n)
		}
	}
	if !*seq {
		ks = nil
	}
	if err := run(w, *ref, strings.Split(*trees, ","), *reps, ks, par); err != nil {
		fmt.Fprintln(os.Stderr, "race:", err)
		os.Exit(1)
	}
	if *out != "" {
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "race:", err)
			os.Exit(1)
		}
	}
}

// parallel is what the race at P = 2 runs.
type parallel struct {
	mpirun    []string
	kernel    string
	balancers []string
	budgets   []int64
}

// run races the sequential programs with each of kernels (none: no
// sequential race), then the MPI programs when par is not nil.
func run(w io.Writer, ref string, names []string, reps int, kernels []tree.Kernel, par *parallel) error {
	dir, err := os.MkdirTemp("", "uts-reference")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, samples, err := extract(ref, dir)
	if err != nil {
		return err
	}
	var ss []tree.Sample
	for _, n := range names {
		s, ok := tree.SampleNamed(n)
		if !ok {
			return fmt.Errorf("no sample tree %q (%s)", n, strings.Join(tree.SampleNames(), " "))
		}
		if got := samples[s.Name]; got != s.Args {
			return fmt.Errorf("%s: the reference's sample_trees.sh says %q, our table %q", s.Name, got, s.Args)
		}
		ss = append(ss, s)
	}
	if len(kernels) > 0 {
		if err := raceSeq(w, src, ss, reps, kernels); err != nil {
			return err
		}
	}
	if par == nil {
		return nil
	}
	return raceMPI(w, src, ss, reps, par)
}

// raceSeq builds the reference's sequential program and races it against
// our sequential search with each kernel.
func raceSeq(w io.Writer, src string, ss []tree.Sample, reps int, kernels []tree.Kernel) error {
	gcc := []string{"gcc", "-O3", "-DBRG_RNG", "-o", "uts-seq", "uts_shm.c", "rng/brg_sha1.c", "uts.c", "-lm"}
	if err := command(src, gcc...).Run(); err != nil {
		return fmt.Errorf("building the reference: %s: %w", strings.Join(gcc, " "), err)
	}
	gccVersion, _ := command(src, "gcc", "-dumpfullversion").Output()
	fmt.Fprintf(w, "# UTS, sequential: treelb (apps/uts/tree, %s, kernels %v) against the C reference\n", runtime.Version(), kernels)
	fmt.Fprintf(w, "# reference: UTS 1.1 (%s), %s, gcc %s\n", codeCommit, strings.Join(gcc, " "), strings.TrimSpace(string(gccVersion)))
	fmt.Fprintf(w, "# %s, %d runs each, alternating; medians; seconds and rates by each program's own timer of the search;\n# ours/C: speed ratio (C's time over ours); CPU: the same by CPU time (user+system) of this process and of the C process\n", time.Now().UTC().Format(time.RFC3339), reps)
	fmt.Fprintf(w, "# load average before: %s\n", loadavg())

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tree\tnodes\tours\tours s\tC s\tours Mnodes/s\tC Mnodes/s\tours/C\tCPU: ours/C\truns ours | C (s)\t")
	for _, s := range ss {
		t, err := tree.New(s.Params())
		if err != nil {
			return err
		}
		ours := make(map[tree.Kernel][]timing)
		var theirs []timing
		var c tree.Counts
		for range reps {
			for _, k := range kernels {
				var tm timing
				c, tm, err = timeOurs(t, k)
				if err != nil {
					return err
				}
				ours[k] = append(ours[k], tm)
			}
			rc, tm, err := timeTheirs(src, "./uts-seq", nil, s.Args)
			if err != nil {
				return err
			}
			if rc != c || !s.Matches(c) {
				return fmt.Errorf("%s: ours %+v, the reference %+v, published %d nodes, depth %d, %d leaves", s.Name, c, rc, s.Nodes, s.Depth, s.Leaves)
			}
			theirs = append(theirs, tm)
		}
		for _, k := range kernels {
			mo, mt := median(ours[k], wallOf), median(theirs, wallOf)
			co, ct := median(ours[k], cpuOf), median(theirs, cpuOf)
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%s | %s\t\n", s.Name, c.Nodes, k, mo, mt, float64(c.Nodes)/mo/1e6, float64(c.Nodes)/mt/1e6, mt/mo, ct/co, list(ours[k]), list(theirs))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "# load average after: %s\n", loadavg())
	return nil
}

// program is one contender of the race at P = 2.
type program struct {
	name   string
	budget int64 // ours: Δt; 0 for the reference
	run    func(s tree.Sample) (tree.Counts, timing, error)
	runs   []timing
}

// raceMPI builds the reference's MPI work stealing and our uts command for
// MPI and races them on two ranks, alternately.
func raceMPI(w io.Writer, src string, ss []tree.Sample, reps int, par *parallel) error {
	mpicc := []string{"mpicc", "-O3", "-DBRG_RNG", "-D__MPI__", "-o", "uts-mpi-ws", "uts_dm.c", "stats.c", "dequeue.c", "dlist.c", "mpi_workstealing.c", "rng/brg_sha1.c", "uts.c", "-lm"}
	if err := command(src, mpicc...).Run(); err != nil {
		return fmt.Errorf("building the reference: %s: %w", strings.Join(mpicc, " "), err)
	}
	ours := filepath.Join(src, "treelb-uts")
	gobuild := []string{"go", "build", "-tags", "mpi", "-o", ours, "./apps/uts"}
	if err := command(".", gobuild...).Run(); err != nil {
		return fmt.Errorf("building ours: %s (run from the repository's root): %w", strings.Join(gobuild, " "), err)
	}
	launcher := append(slices.Clone(par.mpirun), "-np", "2")
	mpiVersion, _ := command(src, par.mpirun[0], "--version").Output()
	fmt.Fprintf(w, "\n# UTS at P = 2: %s; %s\n", strings.Join(launcher, " "), firstLine(mpiVersion))
	fmt.Fprintf(w, "# UTS-MPI: work stealing (chunk 20, adaptive polling), %s\n", strings.Join(mpicc, " "))
	fmt.Fprintf(w, "# treelb: %s (%s), --kernel %s, each balancer and budget Δt (--budget)\n", strings.Join(gobuild, " "), runtime.Version(), par.kernel)
	fmt.Fprintf(w, "# %s, %d rounds, each program once per round, the order rotating; medians. own s: the program's timer of the search;\n", time.Now().UTC().Format(time.RFC3339), reps)
	fmt.Fprintf(w, "# mpirun s: wall time of the whole mpirun (start-up included); CPU s: user+system of mpirun and its ranks;\n# ×: UTS-MPI's median over ours (> 1: ours faster; CPU: less CPU)\n")
	for _, s := range ss {
		progs := []*program{{name: "UTS-MPI", run: func(s tree.Sample) (tree.Counts, timing, error) {
			return timeTheirs(src, launcher[0], append(slices.Clone(launcher[1:]), "./uts-mpi-ws"), s.Args)
		}}}
		for _, b := range par.balancers {
			for _, d := range par.budgets {
				args := append(slices.Clone(launcher[1:]), ours, "--json", "--tree", s.Name, "--balancer", b, "--budget", fmt.Sprint(d), "--kernel", par.kernel)
				progs = append(progs, &program{name: b, budget: d, run: func(s tree.Sample) (tree.Counts, timing, error) {
					return timeOursMPI(src, launcher[0], args)
				}})
			}
		}
		fmt.Fprintf(w, "# %s (%s): load average before: %s\n", s.Name, s.Args, loadavg())
		for r := range reps {
			for i := range progs {
				p := progs[(i+r)%len(progs)]
				c, tm, err := p.run(s)
				if err != nil {
					return err
				}
				if !s.Matches(c) {
					return fmt.Errorf("%s: %s counted %+v", s.Name, p.name, c)
				}
				p.runs = append(p.runs, tm)
			}
		}
		ref := progs[0]
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "tree\tprogram\tΔt\town s\tmpirun s\tCPU s\tMnodes/s\t× own\t× mpirun\t× CPU\truns own (s)\t")
		for _, p := range progs {
			budget := "-"
			if p.budget > 0 {
				budget = fmt.Sprint(p.budget)
			}
			own, proc, cpu := median(p.runs, wallOf), median(p.runs, procOf), median(p.runs, cpuOf)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.1f\t%.2f\t%.2f\t%.2f\t%s\t\n", s.Name, p.name, budget, own, proc, cpu,
				float64(s.Nodes)/own/1e6, median(ref.runs, wallOf)/own, median(ref.runs, procOf)/proc, median(ref.runs, cpuOf)/cpu, list(p.runs))
		}
		tw.Flush()
		fmt.Fprintf(w, "# %s: load average after: %s\n", s.Name, loadavg())
	}
	return nil
}

// timeOursMPI runs our uts command under the launcher with args (which ask
// for JSON) and returns its counts, its timer of the search and the times
// of the process.
func timeOursMPI(dir, launcher string, args []string) (tree.Counts, timing, error) {
	cmd := command(dir, append([]string{launcher}, args...)...)
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		return tree.Counts{}, timing{}, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	proc := time.Since(start).Seconds()
	var rec struct {
		Seconds float64
		Nodes   int64
		Depth   int
		Leaves  int64
	}
	if err := json.Unmarshal(out, &rec); err != nil {
		return tree.Counts{}, timing{}, fmt.Errorf("%s: %w:\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return tree.Counts{Nodes: rec.Nodes, Depth: rec.Depth, Leaves: rec.Leaves}, timing{rec.Seconds, cpuTime(cmd), proc}, nil
}

// cpuTime returns the CPU time (user and system) of a finished command's
// process and of the descendants it waited for (mpirun's ranks).
func cpuTime(cmd *exec.Cmd) float64 {
	return (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
}

func firstLine(b []byte) string {
	line, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return line
}

// extract writes the reference's code at codeCommit into dir/src and
// returns that directory and the sample trees of its sample_trees.sh.
func extract(ref, dir string) (string, map[string]string, error) {
	repo := ref
	if st, err := os.Stat(ref); err != nil || !st.IsDir() {
		repo = filepath.Join(dir, "clone")
		if err := command(dir, "git", "clone", "--quiet", "--bare", ref, repo).Run(); err != nil {
			return "", nil, fmt.Errorf("cloning %s: %w", ref, err)
		}
	}
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		return "", nil, err
	}
	tarball, err := command(dir, "git", "-C", repo, "archive", codeCommit).Output()
	if err != nil {
		return "", nil, fmt.Errorf("git archive %s in %s: %w", codeCommit, repo, err)
	}
	untar := command(src, "tar", "-x")
	untar.Stdin = bytes.NewReader(tarball)
	if err := untar.Run(); err != nil {
		return "", nil, fmt.Errorf("unpacking the reference: %w", err)
	}
	sh, err := command(dir, "git", "-C", repo, "show", samplesCommit+":sample_trees.sh").Output()
	if err != nil {
		return "", nil, fmt.Errorf("git show %s:sample_trees.sh: %w", samplesCommit, err)
	}
	samples := make(map[string]string)
	for _, m := range regexp.MustCompile(`(?m)^export (\w+)="([^"]*)"`).FindAllStringSubmatch(string(sh), -1) {
		samples[m[1]] = m[2]
	}
	return src, samples, nil
}

func command(dir string, args ...string) *exec.Cmd {
	c := exec.Command(args[0], args[1:]...)
	c.Dir = dir
	c.Stderr = os.Stderr
	return c
}

// timing is a run's wall time by the program's own timer, the CPU time
// (user and system) of its process (and the descendants it waited for),
// and the wall time of the process when measured (0 otherwise).
type timing struct{ wall, cpu, proc float64 }

// timeOurs counts t sequentially with kernel k and returns the counts and
// the time the search took.
func timeOurs(t *tree.Tree, k tree.Kernel) (tree.Counts, timing, error) {
	cpu0 := cpuSeconds()
	start := time.Now()
	c, err := t.CountWith(k)
	return c, timing{wall: time.Since(start).Seconds(), cpu: cpuSeconds() - cpu0}, err
}

// cpuSeconds returns the user and system time of this process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

var (
	statsLine = regexp.MustCompile(`Tree size = (\d+), tree depth = (\d+), num leaves = (\d+)`)
	timeLine  = regexp.MustCompile(`Wallclock time = ([0-9.]+) sec`)
)

// timeTheirs runs a reference program on a sample's flags and returns the
// counts, the search time it reports and its process's CPU time (with
// mpirun, the launcher's only).
func timeTheirs(dir, prog string, args []string, flags string) (tree.Counts, timing, error) {
	cmd := command(dir, append(append([]string{prog}, args...), strings.Fields(flags)...)...)
	start := time.Now()
	out, err := cmd.Output()
	proc := time.Since(start).Seconds()
	if err != nil {
		return tree.Counts{}, timing{}, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	sm, tm := statsLine.FindSubmatch(out), timeLine.FindSubmatch(out)
	if sm == nil || tm == nil {
		return tree.Counts{}, timing{}, fmt.Errorf("%s: no statistics in its output:\n%s", strings.Join(cmd.Args, " "), out)
	}
	n, _ := strconv.ParseInt(string(sm[1]), 10, 64)
	d, _ := strconv.Atoi(string(sm[2]))
	l, _ := strconv.ParseInt(string(sm[3]), 10, 64)
	sec, _ := strconv.ParseFloat(string(tm[1]), 64)
	return tree.Counts{Nodes: n, Depth: d, Leaves: l}, timing{sec, cpuTime(cmd), proc}, nil
}

func wallOf(t timing) float64 { return t.wall }
func cpuOf(t timing) float64  { return t.cpu }
func procOf(t timing) float64 { return t.proc }

// median returns the median of f over the runs.
func median(x []timing, f func(timing) float64) float64 {
	y := make([]float64, len(x))
	for i, t := range x {
		y[i] = f(t)
	}
	slices.Sort(y)
	if len(y)%2 == 1 {
		return y[len(y)/2]
	}
	return (y[len(y)/2-1] + y[len(y)/2]) / 2
}

// list gives the runs' wall times.
func list(x []timing) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v.wall, 'f', 2, 64)
	}
	return strings.Join(s, " ")
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
