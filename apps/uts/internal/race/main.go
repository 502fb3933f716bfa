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
// With -mpi it also builds the reference's MPI work stealing
// (mpi_workstealing.c, chunk 20, adaptive polling) and times it under
// mpirun -np 2; treelb's parallel runs come with the uts command.
package main

import (
	"bytes"
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
	mpi := flag.Bool("mpi", false, "also time the reference's MPI work stealing at -np 2")
	mpirun := flag.String("mpirun", "mpirun --oversubscribe --allow-run-as-root", "launcher for -mpi")
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
	if err := run(w, *ref, strings.Split(*trees, ","), *reps, ks, *mpi, strings.Fields(*mpirun)); err != nil {
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

func run(w io.Writer, ref string, names []string, reps int, kernels []tree.Kernel, mpi bool, mpirun []string) error {
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
	if !mpi {
		return nil
	}
	return raceMPI(w, src, ss, reps, mpirun)
}

// raceMPI builds and times the reference's MPI work stealing on two ranks.
func raceMPI(w io.Writer, src string, ss []tree.Sample, reps int, mpirun []string) error {
	mpicc := []string{"mpicc", "-O3", "-DBRG_RNG", "-D__MPI__", "-o", "uts-mpi-ws", "uts_dm.c", "stats.c", "dequeue.c", "dlist.c", "mpi_workstealing.c", "rng/brg_sha1.c", "uts.c", "-lm"}
	if err := command(src, mpicc...).Run(); err != nil {
		return fmt.Errorf("building the reference: %s: %w", strings.Join(mpicc, " "), err)
	}
	fmt.Fprintf(w, "\n# UTS-MPI work stealing (chunk 20, adaptive polling), %s -np 2; %s\n", strings.Join(mpirun, " "), strings.Join(mpicc, " "))
	fmt.Fprintf(w, "# load average before: %s\n", loadavg())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tree\tnodes\tC np=2 s\tC Mnodes/s\truns (s)\t")
	launcher := append(slices.Clone(mpirun), "-np", "2")
	for _, s := range ss {
		var secs []timing
		var c tree.Counts
		for range reps {
			var tm timing
			var err error
			c, tm, err = timeTheirs(src, launcher[0], append(launcher[1:], "./uts-mpi-ws"), s.Args)
			if err != nil {
				return err
			}
			if !s.Matches(c) {
				return fmt.Errorf("%s: UTS-MPI counted %+v", s.Name, c)
			}
			secs = append(secs, tm)
		}
		m := median(secs, wallOf)
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%.2f\t%s\t\n", s.Name, c.Nodes, m, float64(c.Nodes)/m/1e6, list(secs))
	}
	tw.Flush()
	fmt.Fprintf(w, "# load average after: %s\n", loadavg())
	return nil
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

// timing is a run's wall time by the program's own timer and the CPU time
// (user and system) of its process.
type timing struct{ wall, cpu float64 }

// timeOurs counts t sequentially with kernel k and returns the counts and
// the time the search took.
func timeOurs(t *tree.Tree, k tree.Kernel) (tree.Counts, timing, error) {
	cpu0 := cpuSeconds()
	start := time.Now()
	c, err := t.CountWith(k)
	return c, timing{time.Since(start).Seconds(), cpuSeconds() - cpu0}, err
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
	out, err := cmd.Output()
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
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return tree.Counts{Nodes: n, Depth: d, Leaves: l}, timing{sec, cpu}, nil
}

func wallOf(t timing) float64 { return t.wall }
func cpuOf(t timing) float64  { return t.cpu }

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
