// Command knapsack-vs-expknap measures the sequential knapsack searches of
// apps/knapsack/knap against Pisinger's expknap, side by side in one run,
// on the same instances: seed 002's class (sanders) with m items and seeds
// 1..N by default.
//
// It fetches expknap.c from its public repository into a temporary
// directory (a git clone, never committed: Pisinger's code is for academic
// use and may not be redistributed), compiles it with gcc -O2 and a driver
// of our own that reads the text format and times expknap() alone, and then
// runs, for every repetition, every instance with expknap and with our
// searches, each in a process of its own (ours: this program again, with
// -solve). Both sides time sorting and search, not reading the instance, in
// CPU time (CLOCK_PROCESS_CPUTIME_ID in C, getrusage of the whole process
// in Go), which a shared machine disturbs far less than wall time; wall
// times are printed too. It prints the load average before and after, the
// median times and the ratios ours/expknap, and checks that the optimal
// profits agree.
//
//	go run ./scripts/knapsack-vs-expknap
//	go run ./scripts/knapsack-vs-expknap -search core,hs -reps 5
//	go run ./scripts/knapsack-vs-expknap -repo /path/to/a/clone
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/treelb/treelb/apps/knapsack/knap"
)

// The peer: the last revision of expknap.c in its repository (its fix of
// the greedy loop's bound included).
const (
	defaultRepo   = "https://github.com/pl225/set_covering_lagrangean_rl"
	defaultCommit = "943028c44dba13e90753bdec4ad2572587c16ff8"
)

// driver is our main for expknap.c: it reads "n, n lines p w, c", calls
// expknap() between two readings of the process's CPU time and of the
// monotonic clock, and prints the profit, the packed weight, the CPU and
// wall seconds and expknap's iteration count.
const driver = `#include "expknap.c"
int main(int argc, char **argv) {
  FILE *in = argc > 1 ? fopen(argv[1], "r") : stdin;
  long n, cap, i, pp, ww, sw = 0;
  struct timespec c0, c1, t0, t1;
  exitem *a;
  trace = stderr;
  if (!in || fscanf(in, "%ld", &n) != 1 || n < 1) { fprintf(stderr, "bad input\n"); return 2; }
  a = (exitem *) palloc(n, sizeof(exitem));
  for (i = 0; i < n; i++) {
    if (fscanf(in, "%ld %ld", &pp, &ww) != 2) { fprintf(stderr, "bad item %ld\n", i); return 2; }
    a[i].p = (itype) pp; a[i].w = (itype) ww; a[i].x = 0;
  }
  if (fscanf(in, "%ld", &cap) != 1) { fprintf(stderr, "bad capacity\n"); return 2; }
  iterations = 0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  long z = expknap(a, a + n - 1, cap);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  for (i = 0; i < n; i++) if (a[i].x) sw += a[i].w;
  printf("%ld %ld %.9f %.9f %ld\n", z, sw, (c1.tv_sec - c0.tv_sec) + 1e-9 * (c1.tv_nsec - c0.tv_nsec),
         (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec), iterations);
  return 0;
}
`

func main() {
	repo := flag.String("repo", defaultRepo, "git repository holding expknap.c (URL or local path)")
	commit := flag.String("commit", defaultCommit, "revision of expknap.c")
	class := flag.String("class", "sanders", "instance class")
	m := flag.Int("m", 2000, "items")
	seeds := flag.Int("seeds", 10, "instances: seeds 1..N")
	reps := flag.Int("reps", 3, "runs of each (median reported)")
	searches := flag.String("search", "core", "our searches, comma-separated: core, hs")
	solve := flag.String("solve", "", "internal: solve this instance file with -search and print what the C driver prints")
	flag.Parse()
	if *solve != "" {
		if err := solveFile(*solve, *searches); err != nil {
			fmt.Fprintln(os.Stderr, "knapsack-vs-expknap:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*repo, *commit, *class, *m, *seeds, *reps, strings.Split(*searches, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "knapsack-vs-expknap:", err)
		os.Exit(1)
	}
}

// peerRun is one run of expknap or of ours; iterations are our nodes.
type peerRun struct {
	profit, weight, iterations int64
	cpu, wall                  float64 // seconds
}

func run(repo, commit, className string, m, nSeeds, reps int, searchNames []string) error {
	class, err := knap.ParseClass(className)
	if err != nil {
		return err
	}
	var searches []knap.Search
	for _, name := range searchNames {
		s, err := knap.ParseSearch(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		searches = append(searches, s)
	}
	dir, err := os.MkdirTemp("", "expknap")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := build(dir, repo, commit)
	if err != nil {
		return err
	}
	var ins []*knap.Instance
	for seed := 1; seed <= nSeeds; seed++ {
		in, err := knap.Generate(knap.GenConfig{Class: class, M: m, Seed: uint64(seed)})
		if err != nil {
			return err
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%d.txt", seed)))
		if err != nil {
			return err
		}
		if _, err := in.WriteTo(f); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		ins = append(ins, in)
	}

	loadBefore := loadavg()
	peer := make([][]peerRun, nSeeds)
	ours := make([][][]peerRun, len(searches)) // [search][seed][rep]
	for s := range searches {
		ours[s] = make([][]peerRun, nSeeds)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	start := time.Now()
	for range reps { // interleaved, so that a change of load hits both
		for i := range ins {
			file := filepath.Join(dir, fmt.Sprintf("%d.txt", i+1))
			out, err := exec.Command(bin, file).Output()
			if err != nil {
				return fmt.Errorf("expknap on seed %d: %w", i+1, err)
			}
			pr, err := parsePeer(out)
			if err != nil {
				return fmt.Errorf("expknap on seed %d: %w", i+1, err)
			}
			peer[i] = append(peer[i], pr)
			for s, search := range searches {
				out, err := exec.Command(self, "-solve", file, "-search", search.String()).Output()
				if err != nil {
					return fmt.Errorf("%v on seed %d: %w", search, i+1, err)
				}
				r, err := parsePeer(out)
				if err != nil {
					return fmt.Errorf("%v on seed %d: %w", search, i+1, err)
				}
				if r.profit != pr.profit {
					return fmt.Errorf("seed %d: %v finds profit %d, expknap %d", i+1, search, r.profit, pr.profit)
				}
				ours[s][i] = append(ours[s][i], r)
			}
		}
	}
	loadAfter := loadavg()

	fmt.Printf("# %s, m = %d, seeds 1..%d, %d runs each, median seconds of CPU time (wall in parentheses),\n", class, m, nSeeds, reps)
	fmt.Printf("# sorting and search, no I/O; ratios of CPU times\n")
	fmt.Printf("# expknap: %s at %s, gcc -O2, own driver; ours: %s, this program with -solve\n", repo, commit[:12], runtime.Version())
	fmt.Printf("# load average before: %s# load average after:  %s# wall time of the runs: %.1f s\n", loadBefore, loadAfter, time.Since(start).Seconds())
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "seed\tprofit\texpknap s\texpknap iterations\t"
	for _, s := range searches {
		head += fmt.Sprintf("%v s\t%v nodes\t%v/expknap\t", s, s, s)
	}
	fmt.Fprintln(tw, head)
	worst := make([]float64, len(searches))
	sumPeer, sums := 0.0, make([]float64, len(searches))
	for i := range ins {
		ps, pw := medians(peer[i])
		sumPeer += ps
		line := fmt.Sprintf("%d\t%d\t%.4f (%.4f)\t%d\t", i+1, peer[i][0].profit, ps, pw, peer[i][0].iterations)
		for s := range searches {
			t, tw := medians(ours[s][i])
			sums[s] += t
			worst[s] = max(worst[s], t/ps)
			line += fmt.Sprintf("%.4f (%.4f)\t%d\t%.2f\t", t, tw, ours[s][i][0].iterations, t/ps)
		}
		fmt.Fprintln(tw, line)
	}
	line := fmt.Sprintf("sum\t\t%.4f\t\t", sumPeer)
	for s := range searches {
		line += fmt.Sprintf("%.4f\t\t%.2f\t", sums[s], sums[s]/sumPeer)
	}
	fmt.Fprintln(tw, line)
	tw.Flush()
	for s, search := range searches {
		fmt.Printf("# %v: worst ratio %.2f\n", search, worst[s])
	}
	return nil
}

// build fetches expknap.c and expknap.h at commit into dir and compiles
// them with our driver; it returns the binary's path.
func build(dir, repo, commit string) (string, error) {
	clone := filepath.Join(dir, "repo")
	if out, err := exec.Command("git", "clone", "--quiet", "--no-checkout", repo, clone).CombinedOutput(); err != nil {
		return "", fmt.Errorf("git clone %s: %v\n%s", repo, err, out)
	}
	for _, name := range []string{"expknap.c", "expknap.h"} {
		src, err := exec.Command("git", "-C", clone, "show", commit+":"+name).Output()
		if err != nil {
			return "", fmt.Errorf("git show %s:%s: %w", commit, name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.c"), []byte(driver), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "expknap")
	if out, err := exec.Command("gcc", "-O2", "-w", "-o", bin, filepath.Join(dir, "driver.c"), "-lm").CombinedOutput(); err != nil {
		return "", fmt.Errorf("gcc: %v\n%s", err, out)
	}
	return bin, nil
}

// solveFile solves the instance in file with the search called name and
// prints, like the C driver, the profit, the packed weight, the CPU and wall
// seconds of knap.Solve and its node count.
func solveFile(file, name string) error {
	search, err := knap.ParseSearch(name)
	if err != nil {
		return err
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	in, err := knap.Parse(f, 0)
	if err != nil {
		return err
	}
	c0, t0 := cpuTime(), time.Now()
	r, err := knap.Solve(in, search)
	wall, cpu := time.Since(t0).Seconds(), cpuTime()-c0
	if err != nil {
		return err
	}
	fmt.Printf("%d %d %.9f %.9f %d\n", r.Profit, r.Weight, cpu, wall, r.Nodes)
	return nil
}

// parsePeer parses the driver's output line.
func parsePeer(out []byte) (peerRun, error) {
	f := strings.Fields(string(out))
	if len(f) != 5 {
		return peerRun{}, fmt.Errorf("unexpected output %q", out)
	}
	var r peerRun
	var errs [5]error
	r.profit, errs[0] = strconv.ParseInt(f[0], 10, 64)
	r.weight, errs[1] = strconv.ParseInt(f[1], 10, 64)
	r.cpu, errs[2] = strconv.ParseFloat(f[2], 64)
	r.wall, errs[3] = strconv.ParseFloat(f[3], 64)
	r.iterations, errs[4] = strconv.ParseInt(f[4], 10, 64)
	for _, err := range errs {
		if err != nil {
			return r, fmt.Errorf("output %q: %w", out, err)
		}
	}
	return r, nil
}

// medians returns the median CPU and wall seconds of runs.
func medians(runs []peerRun) (cpu, wall float64) {
	var c, w []float64
	for _, r := range runs {
		c, w = append(c, r.cpu), append(w, r.wall)
	}
	return median(c), median(w)
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	x = slices.Clone(x)
	slices.Sort(x)
	return x[len(x)/2]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown\n"
	}
	return string(b)
}

// cpuTime returns the CPU time this process has used, user and system,
// all threads, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
