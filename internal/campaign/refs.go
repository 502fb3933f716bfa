package campaign

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/treelb/treelb/apps/uts/tree"
	"github.com/treelb/treelb/lb"
)

// The races against reference solvers: treelb's UTS against the C
// reference UTS 1.1 (sequentially, and at P = 2 against its MPI work
// stealing) and treelb's knapsack searches against Pisinger's expknap.
// The references are fetched from their public repositories into a
// temporary directory and built there (never committed); their runs are
// rows of the campaign's CSV like ours, and each preset's report sets them
// side by side.

// The UTS reference's commits: the code of "Original UTS version 1.1" and
// the sample list in sh syntax added later.
const (
	utsRefRepo     = "https://github.com/perarnau/uts"
	utsCodeCommit  = "8b0c41a"
	utsSampleCommt = "e10c4fe"
)

// The knapsack peer: the last revision of expknap.c in its repository (its
// fix of the greedy loop's bound included).
const (
	expknapRepo   = "https://github.com/pl225/set_covering_lagrangean_rl"
	expknapCommit = "943028c44dba13e90753bdec4ad2572587c16ff8"
)

// ExpknapDriver is our main for expknap.c: it reads "n, n lines p w, c",
// calls expknap() between two readings of the process's CPU time and of
// the monotonic clock, and prints the profit, the packed weight, the CPU
// and wall seconds and expknap's iteration count.
const ExpknapDriver = `#include "expknap.c"
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

func utsRefPreset() Preset {
	return Preset{Name: "uts-ref", Doc: "UTS, sequential: treelb's search with each hashing kernel against the C reference UTS 1.1 (gcc -O3), alternately",
		Defaults: Plan{Worlds: []string{"embedded"}, NPs: []int{1}, Balancers: []string{Seq}, Seeds: []int64{1}, Repeats: 3},
		Params: []Param{{"ref", utsRefRepo, "git repository of the reference: a local clone (bare or not) or a URL"},
			{"trees", "T1L,T3L", "sample trees, comma-separated"},
			{"kernels", "", "our hashing kernels, comma-separated: avx512, avx2, crypto/sha1 (default: every one this machine supports)"}},
		CSV: "results/uts-ref/uts-ref.csv", Title: "UTS against the C reference",
		Make: func(plan Plan, p Params) (Setup, error) {
			trees, err := utsTrees(p["trees"])
			if err != nil {
				return Setup{}, err
			}
			var kernels []string
			for k := tree.AVX512; k >= tree.CryptoSHA1; k-- {
				if k.Supported() {
					kernels = append(kernels, k.String())
				}
			}
			if p["kernels"] != "" {
				kernels = nil
				for _, name := range strings.Split(p["kernels"], ",") {
					k, err := tree.ParseKernel(name)
					if err != nil {
						return Setup{}, err
					}
					kernels = append(kernels, k.String())
				}
			}
			var keys []Key
			for r := range plan.Repeats {
				for _, t := range trees {
					for _, k := range kernels {
						keys = append(keys, Key{World: "embedded", NP: 1, Balancer: Seq, Instance: "uts --tree " + t + " --kernel " + k, Repeat: r})
					}
					keys = append(keys, Key{World: "embedded", NP: 1, Balancer: Seq, Instance: "uts-ref " + t, Repeat: r})
				}
			}
			src := &Source{Repo: utsRefRepo, Commit: utsCodeCommit, Build: utsRefBuild}
			return Setup{Keys: keys, NoPlots: true, Report: utsRefReport, Sources: map[string]*Source{"uts-ref": src},
				Build: func(ctx context.Context, bin string, log io.Writer) error {
					return buildUTSRef(ctx, p["ref"], trees, bin, src, log)
				}}, nil
		}}
}

func utsRefMPIPreset() Preset {
	return Preset{Name: "uts-ref-mpi", Doc: "UTS at P = 2 under mpirun: the C reference's MPI work stealing against the uts command (-tags mpi) under each balancer and budget",
		Defaults: Plan{Worlds: []string{"mpi"}, NPs: []int{2}, Balancers: lb.Names(), Seeds: []int64{1}, Repeats: 3},
		Params: []Param{{"ref", utsRefRepo, "git repository of the reference: a local clone (bare or not) or a URL"},
			{"trees", "T1L,T3L", "sample trees, comma-separated"},
			{"budgets", strconv.Itoa(lb.DefaultBudget), "our budgets Δt in nodes, comma-separated"},
			{"kernel", tree.BestKernel().String(), "our hashing kernel"}},
		CSV: "results/uts-ref-mpi/uts-ref-mpi.csv", Title: "UTS at P = 2 against UTS-MPI", Tags: "mpi",
		Make: func(plan Plan, p Params) (Setup, error) {
			trees, err := utsTrees(p["trees"])
			if err != nil {
				return Setup{}, err
			}
			budgets, err := ParseInts(p["budgets"])
			if err != nil {
				return Setup{}, fmt.Errorf("--set budgets: %w", err)
			}
			if _, err := tree.ParseKernel(p["kernel"]); err != nil {
				return Setup{}, err
			}
			var keys []Key
			for r := range plan.Repeats {
				for _, np := range plan.NPs {
					for _, t := range trees {
						// One round: every program once, the order rotating
						// from round to round.
						round := []Key{{World: "mpi", NP: np, Balancer: "ws", Instance: "uts-ref-mpi " + t, Repeat: r}}
						for _, b := range plan.Balancers {
							for _, d := range budgets {
								round = append(round, Key{World: "mpi", NP: np, Balancer: b, Seed: plan.Seeds[0], Repeat: r,
									Instance: fmt.Sprintf("uts --tree %s --budget %d --kernel %s", t, d, p["kernel"])})
							}
						}
						for i := range round {
							keys = append(keys, round[(i+r)%len(round)])
						}
					}
				}
			}
			src := &Source{Repo: utsRefRepo, Commit: utsCodeCommit, Build: utsRefMPIBuild}
			return Setup{Keys: keys, NoPlots: true, Report: utsRefMPIReport, Sources: map[string]*Source{"uts-ref-mpi": src},
				Build: func(ctx context.Context, bin string, log io.Writer) error {
					return buildUTSRef(ctx, p["ref"], trees, bin, src, log)
				}}, nil
		}}
}

// utsTrees parses a list of sample trees.
func utsTrees(s string) ([]string, error) {
	var out []string
	for _, n := range strings.Split(s, ",") {
		if _, ok := tree.SampleNamed(n); !ok {
			return nil, fmt.Errorf("--set trees: no sample tree %q (%s)", n, strings.Join(tree.SampleNames(), " "))
		}
		out = append(out, n)
	}
	return out, nil
}

// The UTS reference's builds: the sequential program (uts_shm.c with the
// BRG SHA-1) and the MPI work stealing.
const (
	utsRefBuild    = "gcc -O3 -DBRG_RNG uts_shm.c rng/brg_sha1.c uts.c -lm"
	utsRefMPIBuild = "mpicc -O3 -DBRG_RNG -D__MPI__ uts_dm.c stats.c dequeue.c dlist.c mpi_workstealing.c rng/brg_sha1.c uts.c -lm"
)

// buildUTSRef extracts the UTS reference's code at utsCodeCommit from the
// repository ref (a directory, or a URL to clone), checks that the trees'
// flags are those of its sample_trees.sh, and builds src's program
// (utsRefBuild as bin/uts-ref, or utsRefMPIBuild as bin/uts-ref-mpi,
// noting in src the MPI of mpicc).
func buildUTSRef(ctx context.Context, ref string, trees []string, bin string, src *Source, log io.Writer) error {
	dir, err := os.MkdirTemp("", "uts-reference")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	repo := ref
	if st, err := os.Stat(ref); err != nil || !st.IsDir() {
		repo = filepath.Join(dir, "clone")
		if err := run(ctx, dir, log, "git", "clone", "--quiet", "--bare", ref, repo); err != nil {
			return fmt.Errorf("cloning %s: %w", ref, err)
		}
	}
	code := filepath.Join(dir, "src")
	if err := os.Mkdir(code, 0o755); err != nil {
		return err
	}
	tarball, err := exec.CommandContext(ctx, "git", "-C", repo, "archive", utsCodeCommit).Output()
	if err != nil {
		return fmt.Errorf("git archive %s in %s: %w", utsCodeCommit, repo, err)
	}
	untar := exec.CommandContext(ctx, "tar", "-x")
	untar.Dir, untar.Stdin = code, bytes.NewReader(tarball)
	if out, err := untar.CombinedOutput(); err != nil {
		return fmt.Errorf("unpacking the reference: %w: %s", err, out)
	}
	sh, err := exec.CommandContext(ctx, "git", "-C", repo, "show", utsSampleCommt+":sample_trees.sh").Output()
	if err != nil {
		return fmt.Errorf("git show %s:sample_trees.sh: %w", utsSampleCommt, err)
	}
	samples := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^export (\w+)="([^"]*)"`).FindAllStringSubmatch(string(sh), -1) {
		samples[m[1]] = m[2]
	}
	for _, t := range trees {
		s, _ := tree.SampleNamed(t)
		if got := samples[s.Name]; got != s.Args {
			return fmt.Errorf("%s: the reference's sample_trees.sh says %q, our table %q", s.Name, got, s.Args)
		}
	}
	args := strings.Fields(src.Build)
	name := "uts-ref"
	if args[0] == "mpicc" {
		name = "uts-ref-mpi"
		src.MPI = wrapperMPI(ctx)
	}
	args = append([]string{args[0], "-o", filepath.Join(bin, name)}, args[1:]...)
	return run(ctx, code, log, args...)
}

// wrapperMPI returns the MPI that mpicc belongs to: "openmpi" or "mpich"
// and the version it states, "unknown" when it says neither.
func wrapperMPI(ctx context.Context) string {
	if out, err := exec.CommandContext(ctx, "mpicc", "--showme:version").CombinedOutput(); err == nil && strings.Contains(string(out), "Open MPI") {
		return "openmpi (" + strings.TrimSpace(string(out)) + ")"
	}
	if out, err := exec.CommandContext(ctx, "mpicc", "-show").CombinedOutput(); err == nil && strings.Contains(strings.ToLower(string(out)), "mpich") {
		return "mpich"
	}
	return "unknown"
}

// run runs a command in dir, saying so on log; its output is in the error.
func run(ctx context.Context, dir string, log io.Writer, args ...string) error {
	fmt.Fprintf(log, "campaign: (cd %s && %s)\n", dir, strings.Join(args, " "))
	c := exec.CommandContext(ctx, args[0], args[1:]...)
	c.Dir = dir
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// sample is the figures of one program's runs in a race: its nodes and
// the spread of its own timer's seconds, of the wall time of its process
// (a launcher's included) and of its CPU time.
type sample struct {
	nodes          []string
	own, wall, cpu []float64
}

// samples returns the runs of t by instance and balancer.
func samples(t *Table) (map[[2]string]*sample, error) {
	keys, err := t.Keys()
	if err != nil {
		return nil, err
	}
	out := map[[2]string]*sample{}
	for i, k := range keys {
		s := out[[2]string{k.Instance, k.Balancer}]
		if s == nil {
			s = &sample{}
			out[[2]string{k.Instance, k.Balancer}] = s
		}
		own, _ := t.Float(i, "seconds")
		wall, _ := t.Float(i, ColWall)
		cpu, _ := t.Float(i, ColCPU)
		if c, ok := t.Float(i, "cpu_seconds"); ok {
			cpu = c // the program's own CPU time of its search (knapsack, expknap)
		}
		s.nodes = append(s.nodes, t.Get(i, "nodes"))
		s.own, s.wall, s.cpu = append(s.own, own), append(s.wall, wall), append(s.cpu, cpu)
	}
	return out, nil
}

// sameNodes checks that every run counted the published nodes of the
// sample tree t.
func sameNodes(t string, s *sample, who string) error {
	want, _ := tree.SampleNamed(t)
	for _, n := range s.nodes {
		if n != strconv.FormatInt(want.Nodes, 10) {
			return fmt.Errorf("%s: %s counted %s nodes, the published count is %d", t, who, n, want.Nodes)
		}
	}
	return nil
}

// utsRefReport sets treelb's sequential UTS beside the reference's, per
// tree and kernel: medians (spread) of each program's own timer of the
// search, the rates, and the ratios of the reference's time to ours (by
// the timers and by CPU time).
func utsRefReport(w io.Writer, t *Table) error {
	ss, err := samples(t)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "\nUTS, sequential: medians (min–max) of each program's own timer of the search; ours/C = C's time over ours (> 1: ours faster)")
	fmt.Fprintln(tw, "tree\tnodes\tkernel\tours s\tC s\tours Mnodes/s\tC Mnodes/s\tours/C\tCPU: ours/C\t")
	for _, k := range sortedKeys(ss) {
		f := strings.Fields(k[0])
		if f[0] != "uts" || len(f) != 5 {
			continue
		}
		name, kernel := f[2], f[4]
		ref := ss[[2]string{"uts-ref " + name, Seq}]
		ours := ss[k]
		if ref == nil {
			continue
		}
		if err := sameNodes(name, ours, "ours"); err != nil {
			return err
		}
		if err := sameNodes(name, ref, "the reference"); err != nil {
			return err
		}
		s, _ := tree.SampleNamed(name)
		mo, mt := SpreadOf(ours.own), SpreadOf(ref.own)
		n := float64(s.Nodes)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t\n", name, s.Nodes, kernel, mo.Format("%.2f"), mt.Format("%.2f"),
			n/mo.Median/1e6, n/mt.Median/1e6, mt.Median/mo.Median, Median(ref.cpu)/Median(ours.cpu))
	}
	return tw.Flush()
}

// utsRefMPIReport sets every program of the race at P = 2 beside the
// reference's MPI work stealing, per tree: its own timer, the wall time
// of the whole launcher (start-up included), the CPU time of the launcher
// and its ranks, the rate, and the reference's medians over ours.
func utsRefMPIReport(w io.Writer, t *Table) error {
	ss, err := samples(t)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nUTS at P = 2: medians (min–max); own s: the program's timer of the search; launcher s: wall time of the whole mpirun; CPU s: mpirun and its ranks; ×: UTS-MPI's median over ours (> 1: ours faster or less CPU)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tree\tprogram\tΔt\town s\tlauncher s\tCPU s\tMnodes/s\t× own\t× launcher\t× CPU\t")
	for _, k := range sortedKeys(ss) {
		f := strings.Fields(k[0])
		if f[0] != "uts-ref-mpi" {
			continue
		}
		name := f[1]
		ref := ss[k]
		if err := sameNodes(name, ref, "UTS-MPI"); err != nil {
			return err
		}
		s, _ := tree.SampleNamed(name)
		line := func(prog, budget string, x *sample) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%.2f\t%.2f\t%.2f\t\n", name, prog, budget, SpreadOf(x.own).Format("%.2f"),
				SpreadOf(x.wall).Format("%.2f"), SpreadOf(x.cpu).Format("%.2f"), float64(s.Nodes)/Median(x.own)/1e6,
				Median(ref.own)/Median(x.own), Median(ref.wall)/Median(x.wall), Median(ref.cpu)/Median(x.cpu))
		}
		line("UTS-MPI", "-", ref)
		for _, o := range sortedKeys(ss) {
			g := strings.Fields(o[0])
			if g[0] != "uts" || len(g) != 7 || g[2] != name {
				continue
			}
			if err := sameNodes(name, ss[o], o[1]); err != nil {
				return err
			}
			line(o[1], g[4], ss[o])
		}
	}
	return tw.Flush()
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[[2]string]V) [][2]string {
	var out [][2]string
	for k := range m {
		out = append(out, k)
	}
	return sortedBy(out, func(k [2]string) string { return k[0] + "\x00" + k[1] })
}

func expknapPreset() Preset {
	return Preset{Name: "expknap", Doc: "knapsack, sequential: treelb's searches against Pisinger's expknap (gcc -O2, our driver) on the same instances, by CPU time",
		Defaults: Plan{Worlds: []string{"embedded"}, NPs: []int{1}, Balancers: []string{Seq}, Seeds: []int64{1}, Repeats: 3},
		Params: []Param{{"repo", expknapRepo, "git repository holding expknap.c (URL or local path)"},
			{"commit", expknapCommit, "revision of expknap.c"},
			{"class", "sanders", "instance class of knapsack gen"},
			{"m", "2000", "items"},
			{"seeds", "1-10", "instances: seeds of knapsack gen"},
			{"search", "core", "our searches, comma-separated: core, hs"}},
		CSV: "results/expknap/expknap.csv", Title: "knapsack against expknap",
		Make: func(plan Plan, p Params) (Setup, error) {
			seeds, err := ParseInts(p["seeds"])
			if err != nil {
				return Setup{}, fmt.Errorf("--set seeds: %w", err)
			}
			m, err := strconv.Atoi(p["m"])
			if err != nil || m < 1 {
				return Setup{}, fmt.Errorf("--set m=%s: want a number of items", p["m"])
			}
			searches := strings.Split(p["search"], ",")
			for _, s := range searches {
				if s != "core" && s != "hs" {
					return Setup{}, fmt.Errorf("--set search: %q: want core or hs", s)
				}
			}
			var keys []Key
			for r := range plan.Repeats {
				for _, seed := range seeds {
					gen := fmt.Sprintf("<(knapsack gen --class %s -m %d --seed %d)", p["class"], m, seed)
					keys = append(keys, Key{World: "embedded", NP: 1, Balancer: Seq, Instance: "expknap " + gen, Repeat: r})
					for _, s := range searches {
						keys = append(keys, Key{World: "embedded", NP: 1, Balancer: Seq, Instance: "knapsack --search " + s + " " + gen, Repeat: r})
					}
				}
			}
			src := &Source{Repo: p["repo"], Commit: p["commit"], Build: "gcc -O2 -w driver.c -lm (driver.c: campaign.ExpknapDriver, including expknap.c)"}
			return Setup{Keys: keys, NoPlots: true, Report: expknapReport, Sources: map[string]*Source{"expknap": src},
				Build: func(ctx context.Context, bin string, log io.Writer) error {
					return buildExpknap(ctx, p["repo"], p["commit"], bin, log)
				}}, nil
		}}
}

// buildExpknap fetches expknap.c and expknap.h at commit from repo into a
// temporary directory and compiles them with ExpknapDriver into
// bin/expknap. Pisinger's code is for academic use and may not be
// redistributed: it is never kept.
func buildExpknap(ctx context.Context, repo, commit, bin string, log io.Writer) error {
	dir, err := os.MkdirTemp("", "expknap")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	clone := filepath.Join(dir, "repo")
	if err := run(ctx, dir, log, "git", "clone", "--quiet", "--no-checkout", repo, clone); err != nil {
		return err
	}
	for _, name := range []string{"expknap.c", "expknap.h"} {
		src, err := exec.CommandContext(ctx, "git", "-C", clone, "show", commit+":"+name).Output()
		if err != nil {
			return fmt.Errorf("git show %s:%s: %w", commit, name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.c"), []byte(ExpknapDriver), 0o644); err != nil {
		return err
	}
	return run(ctx, dir, log, "gcc", "-O2", "-w", "-o", filepath.Join(bin, "expknap"), "driver.c", "-lm")
}

// expknapReport sets our searches beside expknap per instance: the
// optimal profits (which must agree), medians (min–max) of the CPU time of
// sorting and search, the nodes (expknap's iterations) and the ratios
// ours/expknap; then their sums and the worst ratio.
func expknapReport(w io.Writer, t *Table) error {
	ss, err := samples(t)
	if err != nil {
		return err
	}
	keys, err := t.Keys()
	if err != nil {
		return err
	}
	profit := map[string]string{}
	for i, k := range keys {
		args, err := InstanceArgs(k.Instance)
		if err != nil || len(args) == 0 {
			continue
		}
		gen := args[len(args)-1].Word
		p := t.Get(i, "profit")
		if q, ok := profit[gen]; ok && q != p {
			return fmt.Errorf("%s: %s finds profit %s, another run %s", gen, App(k.Instance), p, q)
		}
		profit[gen] = p
	}
	fmt.Fprintln(w, "\nknapsack against expknap: CPU seconds of sorting and search, medians (min–max); ours/expknap: ratio of the medians")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "instance\tprofit\tprogram\tCPU s\tnodes\tours/expknap\t")
	sums := map[string]float64{}
	worst := map[string]float64{}
	var progs []string
	for _, k := range sortedKeys(ss) {
		if App(k[0]) != "expknap" {
			continue
		}
		args, _ := InstanceArgs(k[0])
		gen := args[len(args)-1].Word
		ref := ss[k]
		rm := Median(ref.cpu)
		sums["expknap"] += rm
		fmt.Fprintf(tw, "%s\t%s\texpknap\t%s\t%s\t\t\n", gen, profit[gen], SpreadOf(ref.cpu).Format("%.4f"), ref.nodes[0])
		for _, o := range sortedKeys(ss) {
			oa, _ := InstanceArgs(o[0])
			if App(o[0]) != "knapsack" || len(oa) == 0 || oa[len(oa)-1].Word != gen {
				continue
			}
			prog := strings.TrimSuffix(o[0], " "+gen)
			if _, ok := sums[prog]; !ok {
				progs = append(progs, prog)
			}
			om := Median(ss[o].cpu)
			sums[prog] += om
			worst[prog] = max(worst[prog], om/rm)
			fmt.Fprintf(tw, "\t\t%s\t%s\t%s\t%.2f\t\n", prog, SpreadOf(ss[o].cpu).Format("%.4f"), ss[o].nodes[0], om/rm)
		}
	}
	fmt.Fprintf(tw, "sum\t\texpknap\t%.4f\t\t\t\n", sums["expknap"])
	for _, p := range progs {
		fmt.Fprintf(tw, "\t\t%s\t%.4f\t\t%.2f\t\n", p, sums[p], sums[p]/sums["expknap"])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range progs {
		fmt.Fprintf(w, "%s: worst ratio %.2f\n", p, worst[p])
	}
	return nil
}
