// Command compare measures treelb's apps against their sequential baseline,
// in one run: it builds an app, runs it with --balancer seq and with each
// balancer at each rank count, several times, and prints the medians of the
// wall times the app reports, the efficiency T_seq/(P·T_par) and the
// balancers' counters (requests, splits, messages, idle time).
//
//	go run ./scripts/compare -app golomb -np 1,2 -reps 3 -- 12
//	go run ./scripts/compare -app golomb -world mpi -np 2 -balancers rp -- 13
//
// With -world mpi it builds with -tags mpi and starts the ranks with
// mpirun (Open MPI, -mpirun to change). The machine's load average is printed
// first: compare figures only within one run.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/treelb/treelb/internal/cmdutil"
	"github.com/treelb/treelb/lb"
)

type result = cmdutil.Record

func main() {
	app := flag.String("app", "golomb", "the app under apps/ to measure")
	nps := flag.String("np", "1,2", "rank counts, comma-separated")
	balancers := flag.String("balancers", strings.Join(lb.Names(), ","), "balancers, comma-separated")
	reps := flag.Int("reps", 3, "runs of each configuration (median reported)")
	world := flag.String("world", "embedded", "embedded or mpi")
	mpirun := flag.String("mpirun", "mpirun --oversubscribe --allow-run-as-root", "launcher for -world mpi")
	extra := flag.String("flags", "", "extra flags for every parallel run, e.g. --fast-init")
	flag.Parse()
	if err := run(*app, *nps, *balancers, *reps, *world, *mpirun, *extra, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(app, nps, balancers string, reps int, world, mpirun, extra string, args []string) error {
	dir, err := os.MkdirTemp("", "compare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, app)
	build := []string{"build", "-o", bin}
	if world == "mpi" {
		build = append(build, "-tags", "mpi")
	}
	if out, err := exec.Command("go", append(build, "./apps/"+app)...).CombinedOutput(); err != nil {
		return fmt.Errorf("building %s: %v\n%s", app, err, out)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("# %s %s, world %s, %d runs each, median; load average at start: %s", app, strings.Join(args, " "), world, reps, load)

	measure := func(np int, balancer string) (result, error) {
		var runs []result
		for range reps {
			cmd := append([]string{bin, "--json", "--stats", "--balancer", balancer}, strings.Fields(extra)...)
			if balancer == "seq" {
				cmd = []string{bin, "--json", "--balancer", "seq"}
			}
			if world == "mpi" {
				cmd = append(append(strings.Fields(mpirun), "-np", strconv.Itoa(np)), cmd...)
			} else {
				cmd = append(cmd, "--np", strconv.Itoa(np))
			}
			cmd = append(cmd, args...)
			var out, errb bytes.Buffer
			c := exec.Command(cmd[0], cmd[1:]...)
			c.Stdout, c.Stderr = &out, &errb
			if world != "mpi" {
				c.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(max(np, 1)))
			}
			if err := c.Run(); err != nil {
				return result{}, fmt.Errorf("%s: %v\n%s", strings.Join(cmd, " "), err, errb.String())
			}
			var r result
			if err := json.Unmarshal(lastLine(out.Bytes()), &r); err != nil {
				return result{}, fmt.Errorf("%s: %v", strings.Join(cmd, " "), err)
			}
			runs = append(runs, r)
		}
		slices.SortFunc(runs, func(a, b result) int {
			switch {
			case a.Seconds < b.Seconds:
				return -1
			case a.Seconds > b.Seconds:
				return 1
			}
			return 0
		})
		return runs[len(runs)/2], nil
	}

	seq, err := measure(1, "seq")
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "balancer\tP\tseconds\tspeedup\tefficiency\tnodes\trequests\trejected\tsplits\tmessages\tidle s\t")
	fmt.Fprintf(tw, "seq\t1\t%.3f\t1.000\t1.000\t%d\t\t\t\t\t\t\n", seq.Seconds, seq.Nodes)
	for _, b := range strings.Split(balancers, ",") {
		for _, f := range strings.Split(nps, ",") {
			np, err := strconv.Atoi(f)
			if err != nil {
				return fmt.Errorf("-np: %v", err)
			}
			r, err := measure(np, b)
			if err != nil {
				return err
			}
			sp := seq.Seconds / r.Seconds
			row := fmt.Sprintf("%s\t%d\t%.3f\t%.3f\t%.3f\t%d\t", b, np, r.Seconds, sp, sp/float64(np), r.Nodes)
			if s := r.Stats; s != nil {
				t := s.Total
				row += fmt.Sprintf("%d\t%d\t%d\t%d\t%.3f\t", t.RequestsSent, t.RequestsReject, t.Splits, t.MessagesSent, t.IdleSeconds)
			} else {
				row += "\t\t\t\t\t"
			}
			fmt.Fprintln(tw, row)
		}
	}
	return tw.Flush()
}

// lastLine returns the last non-empty line of out (the JSON object).
func lastLine(out []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return lines[len(lines)-1]
}
