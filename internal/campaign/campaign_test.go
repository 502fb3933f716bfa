package campaign

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/treelb/treelb/version"
)

func TestParseWorld(t *testing.T) {
	for _, c := range []struct {
		in, norm string
		args     []string
		real     bool
	}{
		{"sim:gcel", "sim:gcel", []string{"--world", "sim", "--np", "8", "--machine", "gcel"}, false},
		{" sim  --latency-ns 0 ", "sim --latency-ns 0", []string{"--world", "sim", "--np", "8", "--latency-ns", "0"}, false},
		{"embedded", "embedded", []string{"--world", "embedded", "--np", "8"}, true},
		{"mpi --idle yield", "mpi --idle yield", []string{"--idle", "yield"}, true},
	} {
		w, err := ParseWorld(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if w.String() != c.norm || !slices.Equal(w.Args(8), c.args) || w.Real() != c.real {
			t.Errorf("%q: %q %q real %v", c.in, w.String(), w.Args(8), w.Real())
		}
	}
	for _, bad := range []string{"", "cloud", "embedded:gcel", "sim --np 4", "sim --world=sim"} {
		if _, err := ParseWorld(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestKeyRoundTrip(t *testing.T) {
	k := Key{World: "sim:gcel --hop-ns 0", NP: 1024, Balancer: "rp --fast-init", Instance: "golomb --count 60 11", Seed: 7, Repeat: 2}
	cols := map[string]int{}
	for i, c := range RunColumns() {
		cols[c] = i
	}
	row := append(k.Values(), "cmd", "", "1.0")
	got, err := KeyOf(cols, row)
	if err != nil || got != k {
		t.Fatalf("KeyOf(%q) = %v, %v; want %v", row, got, err, k)
	}
	if k.Baseline() || !(Key{Balancer: "seq"}).Baseline() {
		t.Error("Baseline")
	}
	for i, v := range []string{"cloud", "x", "", "", "1.5", "-1"} {
		bad := slices.Clone(row)
		bad[i] = v
		if _, err := KeyOf(cols, bad); err == nil {
			t.Errorf("column %s = %q accepted", RunColumns()[i], v)
		}
	}
	delete(cols, ColSeed)
	if _, err := KeyOf(cols, row); err == nil {
		t.Error("a row without run_seed accepted")
	}
}

func TestParseInts(t *testing.T) {
	for in, want := range map[string][]int64{
		"1024":         {1024},
		"64..4096*4":   {64, 256, 1024, 4096},
		"64..4096*2":   {64, 128, 256, 512, 1024, 2048, 4096},
		"1-3, 8":       {1, 2, 3, 8},
		"1..1000*10,3": {1, 10, 100, 1000, 3},
		"3..10*2":      {3, 6},
		// The series stops before it would overflow.
		"1..9223372036854775807*1024": {1, 1 << 10, 1 << 20, 1 << 30, 1 << 40, 1 << 50, 1 << 60},
		// The largest int64, alone and ending a range (v <= b looped for ever).
		"9223372036854775807":                     {math.MaxInt64},
		"9223372036854775806-9223372036854775807": {math.MaxInt64 - 1, math.MaxInt64},
	} {
		got, err := ParseInts(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseInts(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "5-3", "0..8*2", "1..8*1", "1..8", "4..2*2", "1-4096,9000", "1-1000000000"} {
		if _, err := ParseInts(bad); err == nil {
			t.Errorf("ParseInts(%q) accepted", bad)
		}
	}
}

func TestPlanAndCommand(t *testing.T) {
	p := Plan{Worlds: []string{"mpi", "sim:unit"}, NPs: []int{2, 4}, Balancers: []string{"rp", "rp  --fast-init"},
		Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1}
	keys, err := p.Keys()
	if err != nil {
		t.Fatal(err)
	}
	// mpi: seq baseline, then 2 balancers × 2 P; sim: its baseline (world
	// "sim", once per instance), then 2 × 2.
	if len(keys) != 10 || !keys[0].Baseline() || keys[0].NP != 1 || keys[2].Balancer != "rp" || keys[2].NP != 4 || keys[3].Balancer != "rp --fast-init" ||
		keys[5] != (Key{World: SimBaselineWorld, NP: 1, Balancer: Seq, Instance: "golomb 9"}) {
		t.Fatalf("keys %v", keys)
	}
	cmd, err := Command(keys[0], CommandOptions{BinDir: "/b", Launcher: []string{"srun", "-n", "{np}"}})
	if want := "srun -n 1 /b/golomb --json --balancer seq 9"; err != nil || strings.Join(cmd, " ") != want {
		t.Errorf("baseline %q, %v; want %q", cmd, err, want)
	}
	cmd, _ = Command(keys[5], CommandOptions{SeqNodes: 99})
	if want := "golomb --json --world sim --np 1 --balancer seq 9"; strings.Join(cmd, " ") != want {
		t.Errorf("sim baseline %q; want %q", cmd, want)
	}
	cmd, _ = Command(keys[9], CommandOptions{SeqNodes: 1234})
	if want := "golomb --json --world sim --np 4 --machine unit --balancer rp --fast-init --seed 1 --seq-nodes 1234 9"; strings.Join(cmd, " ") != want {
		t.Errorf("sim %q; want %q", cmd, want)
	}
	cmd, _ = Command(keys[2], CommandOptions{SeqNodes: 1234}) // a real world: no --seq-nodes
	if want := "golomb --json --balancer rp --seed 1 9"; strings.Join(cmd, " ") != want {
		t.Errorf("mpi %q; want %q", cmd, want)
	}
	p.NoBaselines = true
	if keys, err := p.Keys(); err != nil || len(keys) != 8 || slices.ContainsFunc(keys, Key.Baseline) {
		t.Errorf("without baselines: %v, %v", keys, err)
	}
	for _, bad := range []Plan{
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}},
		{Worlds: []string{"sim"}, NPs: []int{0}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp", " rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim"}, NPs: []int{2, 2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		// seq on two ranks: its rows would say P = 2 of a run on one.
		{Worlds: []string{"embedded"}, NPs: []int{1, 2}, Balancers: []string{"seq"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		// A balancer and a machine that are none (a dry run listed them).
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"bogus"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim:nosuch"}, NPs: []int{2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		// 10⁹ repeats ran out of memory listing them.
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1_000_000_000},
	} {
		if _, err := bad.Keys(); err == nil {
			t.Errorf("plan %+v accepted", bad)
		}
	}
}

func TestInstanceArgs(t *testing.T) {
	in := "knapsack --search hs <(knapsack gen --class sanders -m 20 --seed 5) <(x)"
	args, err := InstanceArgs(in)
	if err != nil || len(args) != 4 || args[2].Word != "<(knapsack gen --class sanders -m 20 --seed 5)" ||
		strings.Join(args[2].Gen, " ") != "knapsack gen --class sanders -m 20 --seed 5" || args[0].Gen != nil || strings.Join(args[3].Gen, ",") != "x" {
		t.Fatalf("InstanceArgs(%q) = %+v, %v", in, args, err)
	}
	k := Key{World: "embedded", NP: 2, Balancer: "rp", Instance: in, Seed: 1}
	var gens []string
	cmd, err := Command(k, CommandOptions{Input: func(gen []string) (string, error) {
		gens = append(gens, strings.Join(gen, " "))
		return fmt.Sprintf("/in/%d", len(gens)), nil
	}})
	if want := "knapsack --json --world embedded --np 2 --balancer rp --seed 1 --search hs /in/1 /in/2"; err != nil || strings.Join(cmd, " ") != want {
		t.Errorf("%q, %v; want %q", cmd, err, want)
	}
	for _, bad := range []string{"knapsack <(gen", "knapsack <()", ""} {
		if _, err := InstanceArgs(bad); err == nil {
			t.Errorf("InstanceArgs(%q) accepted", bad)
		}
	}
}

func TestFlatten(t *testing.T) {
	fs, err := Flatten([]byte(`{"app":"golomb","ranks":4,"ruler":[0, 1, 3],"messages":{"request":5,"inner":{"x":true}},"n":null,"s":"a,\"b\""}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{"app", "golomb"}, {"ranks", "4"}, {"ruler", "[0,1,3]"}, {"messages.request", "5"}, {"messages.inner.x", "true"}, {"n", ""}, {"s", `a,"b"`}}
	if !slices.Equal(fs, want) {
		t.Errorf("Flatten = %q; want %q", fs, want)
	}
	for _, bad := range []string{"", "[1]", `{"a":1}{"b":2}`, `{"a":1`, "7"} {
		if _, err := Flatten([]byte(bad)); err == nil {
			t.Errorf("Flatten(%q) accepted", bad)
		}
	}
}

// The fake commands' figures: the sequential solver expands fakeSeqNodes
// nodes; a parallel run 1.5 times as many (search overhead), in a virtual
// time 1.25 times the ideal one of the sequential nodes at fakeNodeNS.
const (
	fakeSeqNodes = 1000
	fakeNodeNS   = 2e6
)

// fake returns a runner's Exec that answers every command with JSON made
// from its flags, as the commands print it, and counts the calls. Runs with
// --np 8 report an extra field, so the header grows after the first rows;
// real sequential runs take 2, 2.4, 1.6, 2, … s, one after the other.
// "gen" writes an instance.
func fake(calls *int) func(context.Context, []string) (Output, error) {
	seqRuns := 0
	var mu sync.Mutex // the runner calls it from its jobs at once (TestJobs)
	return func(_ context.Context, cmd []string) (Output, error) {
		mu.Lock()
		defer mu.Unlock()
		*calls++
		if filepath.Base(cmd[0]) == "gen" {
			return Output{Stdout: []byte("instance " + strings.Join(cmd[1:], " ") + "\n")}, nil
		}
		arg := func(flag, def string) string {
			if i := slices.Index(cmd, flag); i >= 0 {
				return cmd[i+1]
			}
			return def
		}
		np := arg("--np", "1")
		if arg("--balancer", "") == "koso-star" { // the fake fails it
			return Output{}, fmt.Errorf("exit status 2")
		}
		var p float64
		fmt.Sscan(np, &p)
		extra := ""
		if np == "8" {
			extra = `,"late":"yes"`
		}
		sim := slices.Contains(cmd, "sim")
		if arg("--balancer", "") == "seq" {
			secs := 2.0
			if !sim {
				secs += []float64{0, 0.4, -0.4}[seqRuns%3]
				seqRuns++
			}
			return Output{Stdout: fmt.Appendf(nil, `{"app":"golomb","ranks":1,"world":"%s","marks":9,"seconds":%g,"nodes":%d}`, arg("--world", "embedded"), secs, fakeSeqNodes)}, nil
		}
		nodes := 1.5 * fakeSeqNodes
		if sim {
			par := fakeSeqNodes * fakeNodeNS * 1e-9 / p * 1.25
			out := fmt.Sprintf(`{"app":"golomb","ranks":%s,"world":"sim","marks":9,"seconds":0.5,"nodes":%g,"messages":{"request":%g,"work":3},"machine":{"name":"unit","node_ns":%g},"virtual_seconds":%g,"work_virtual_seconds":%g`,
				np, nodes, 10*p, fakeNodeNS, par, nodes*fakeNodeNS*1e-9)
			if s := arg("--seq-nodes", ""); s != "" {
				var n float64
				fmt.Sscan(s, &n)
				out += fmt.Sprintf(`,"seq_nodes":%s,"seq_virtual_seconds":%g,"speedup":%g`, s, n*fakeNodeNS*1e-9, n*fakeNodeNS*1e-9/par)
			}
			return Output{Stdout: fmt.Appendf(nil, `%s,"busy_fraction":0.8%s}`, out, extra)}, nil
		}
		return Output{Stdout: fmt.Appendf(nil, `{"app":"golomb","ranks":%s,"world":"embedded","marks":9,"seconds":%g,"nodes":%g,"messages":{"request":%g}%s}`, np, 2/p, nodes, 5*p, extra), CPUSeconds: 2}, nil
	}
}

// fakeRunner returns a runner of the fake commands on a 2-core machine whose
// load average is always load.
func fakeRunner(dir string, calls *int, load float64) *Runner {
	return &Runner{CSV: filepath.Join(dir, "c.csv"), BinDir: "/bin", Progress: &bytes.Buffer{}, Exec: fake(calls),
		JSONL: filepath.Join(dir, "c.jsonl"), Cores: 2, Load: func() float64 { return load }}
}

func TestRunnerResume(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	r := fakeRunner(dir, &calls, 0)
	var progress bytes.Buffer
	r.Progress = &progress
	plan := Plan{Worlds: []string{"sim:unit", "embedded"}, NPs: []int{2, 4}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1}
	keys, err := plan.Keys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), keys); err != nil {
		t.Fatal(err)
	}
	if calls != 6 || !strings.Contains(progress.String(), "run 6 of 6 (ETA") {
		t.Fatalf("%d calls; progress:\n%s", calls, progress.String())
	}
	// A bigger plan: only the new runs are made, and the header grows.
	plan.NPs = []int{2, 4, 8}
	plan.Seeds = []int64{1, 2}
	keys, err = plan.Keys()
	if err != nil {
		t.Fatal(err)
	}
	calls = 0
	tab, err := r.Run(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(keys) - 6; calls != want {
		t.Errorf("resumed campaign made %d runs, want %d", calls, want)
	}
	got, err := ReadTable(r.CSV)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Columns[:len(RunColumns())], RunColumns()) || !slices.Equal(got.Columns, tab.Columns) || got.Col("late") != len(got.Columns)-1 {
		t.Errorf("columns %q", got.Columns)
	}
	if len(got.Rows) != len(keys) {
		t.Errorf("%d rows, want %d", len(got.Rows), len(keys))
	}
	if st, err := os.Stat(r.CSV); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("the CSV's mode: %v, %v; want 0644", st.Mode(), err)
	}
	ks, err := got.Keys()
	if err != nil || !slices.Equal(sortedBy(ks, Key.String), sortedBy(keys, Key.String)) {
		t.Errorf("keys in the CSV %v, %v", ks, err)
	}
	for i := range got.Rows {
		np, world := got.Get(i, ColNP), got.Get(i, ColWorld)
		if got.Get(i, ColLoadBefore) != "0.00" || got.Get(i, ColLoadAfter) != "0.00" || got.Get(i, ColCores) != "2" || got.Get(i, ColWall) == "" {
			t.Errorf("row %d: load %q %q, cores %q", i, got.Get(i, ColLoadBefore), got.Get(i, ColLoadAfter), got.Get(i, ColCores))
		}
		// On 2 idle cores only the runs of more ranks than cores are disturbed.
		if w := got.Get(i, ColWarning); (w != "") != (world == "embedded" && (np == "4" || np == "8")) {
			t.Errorf("row %d (%s, P = %s): warning %q", i, world, np, w)
		}
		if got.Get(i, "late") != "" && np != "8" {
			t.Errorf("row %d: late = %q", i, got.Get(i, "late"))
		}
		if c := got.Get(i, ColCommand); strings.Contains(c, "/bin/") || !strings.HasPrefix(c, "golomb --json") {
			t.Errorf("row %d: command %q", i, c)
		}
		if c := got.Get(i, ColCommand); world == "sim:unit" && !strings.Contains(c, fmt.Sprintf(" --seq-nodes %d ", fakeSeqNodes)) {
			t.Errorf("row %d: a simulated run without the sequential nodes: %q", i, c)
		}
	}
	checkProvenance(t, got)
	if b, err := os.ReadFile(r.JSONL); err != nil || bytes.Count(b, []byte("\n")) != len(keys) {
		t.Errorf("JSONL: %v, %d lines", err, bytes.Count(b, []byte("\n")))
	}
	// Everything is done: nothing runs.
	calls = 0
	if _, err := r.Run(context.Background(), keys); err != nil || calls != 0 {
		t.Errorf("third run: %d calls, %v", calls, err)
	}
	// A failing run is an error and leaves the rows before it.
	plan.Balancers = []string{"rp", "koso-star"}
	keys, _ = plan.Keys()
	if _, err := r.Run(context.Background(), keys); err == nil || !strings.Contains(err.Error(), "--balancer koso-star") {
		t.Errorf("failing run: %v", err)
	}
	if again, _ := ReadTable(r.CSV); len(again.Rows) != len(got.Rows) {
		t.Errorf("%d rows after the failure, want %d", len(again.Rows), len(got.Rows))
	}
	// A CSV whose rows have no key is refused.
	os.WriteFile(r.CSV, []byte("a,b\n1,2\n"), 0o644)
	if _, err := r.Run(context.Background(), keys); err == nil {
		t.Error("a CSV without keys accepted")
	}
}

// checkProvenance fails t unless every row of tab has every provenance
// column, filled in.
func checkProvenance(t *testing.T, tab *Table) {
	t.Helper()
	for _, f := range []string{"version", "commit", "modified", "go", "host", "cpu", "cores", "gomaxprocs", "world", "mpi", "mpi_library", "load"} {
		if tab.Col("provenance."+f) < 0 {
			t.Errorf("no column provenance.%s", f)
			continue
		}
		for i := range tab.Rows {
			if tab.Get(i, "provenance."+f) == "" {
				t.Errorf("row %d: provenance.%s empty", i, f)
			}
		}
	}
}

// TestLoadWarning: a real run is flagged when the load leaves it fewer
// cores than it has ranks.
func TestLoadWarning(t *testing.T) {
	for _, c := range []struct {
		before, after, ownBefore, ownAfter float64
		cores, ranks                       int
		warn                               bool
	}{
		{0.1, 0.2, 0, 0, 4, 2, false},
		{2.0, 2.0, 0, 0, 4, 2, false},  // exactly the 2 cores left free
		{2.5, 2.0, 0, 0, 4, 2, true},   // others wanted more than the 2 left free
		{0.5, 4.6, 0, 2, 4, 2, true},   // after, less the run's 2: 2.6 > 2
		{0.5, 4.0, 0, 2, 4, 2, false},  // after: the run's own 2 ranks and 2 others
		{0.5, 4.0, 0, 0.1, 4, 2, true}, // a short run adds little: the rest is others'
		{0, 0, 0, 0, 2, 4, true},       // more ranks than cores
		{0.9, 1.0, 0, 0, 2, 1, false},
		{1.1, 1.0, 0, 0, 2, 1, false}, // within the slack
		{1.3, 1.0, 0, 0, 2, 1, true},
		{1.3, 1.9, 1.25, 1.85, 2, 2, false}, // the load the campaign's earlier runs left behind
		{1.3, 1.9, 0.25, 1.85, 2, 2, true},
		{-1, -1, 0, 0, 2, 1, false}, // unknown load
	} {
		w := LoadWarning(c.before, c.after, c.ownBefore, c.ownAfter, c.cores, c.ranks)
		if (w != "") != c.warn {
			t.Errorf("load %g, %g (own %g, %g) on %d cores, %d ranks: warning %q, want %v", c.before, c.after, c.ownBefore, c.ownAfter, c.cores, c.ranks, w, c.warn)
		}
	}
}

// TestOwnLoad: the campaign's estimate of its own share of the load
// average follows the kernel's exponential average: a minute of 2 busy
// CPUs from nothing leaves 2(1 − 1/e), which then decays by 1/e a minute.
func TestOwnLoad(t *testing.T) {
	var o ownLoad
	t0 := time.Unix(1000, 0)
	if o.share(t0) != 0 {
		t.Fatal("a share before any run")
	}
	o.add(t0, t0.Add(time.Minute), 2)
	want := 2 * (1 - 1/math.E)
	if got := o.share(t0.Add(time.Minute)); math.Abs(got-want) > 1e-12 {
		t.Errorf("after a minute of 2 busy CPUs: %g, want %g", got, want)
	}
	if got := o.share(t0.Add(2 * time.Minute)); math.Abs(got-want/math.E) > 1e-12 {
		t.Errorf("a minute later: %g, want %g", got, want/math.E)
	}
	// A second run starts from what is left.
	o.add(t0.Add(2*time.Minute), t0.Add(3*time.Minute), 1)
	if got, w := o.share(t0.Add(3*time.Minute)), want/math.E/math.E+(1-1/math.E); math.Abs(got-w) > 1e-12 {
		t.Errorf("after a second run: %g, want %g", got, w)
	}
}

// TestSpread: the medians are gonum's (the lower middle value for an even
// count), with the extremes, NaN left out.
func TestSpread(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		xs   []float64
		want Spread
	}{
		{[]float64{3, 1, 2}, Spread{3, 2, 1, 3}},
		{[]float64{4, 1, 3, 2}, Spread{4, 2, 1, 4}},
		{[]float64{5}, Spread{1, 5, 5, 5}},
		{[]float64{nan, 7, 9}, Spread{2, 7, 7, 9}},
	} {
		in := slices.Clone(c.xs)
		if got := SpreadOf(c.xs); got != c.want {
			t.Errorf("SpreadOf(%v) = %+v, want %+v", c.xs, got, c.want)
		}
		if !slices.EqualFunc(in, c.xs, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Errorf("SpreadOf changed its argument: %v", c.xs)
		}
	}
	if s := SpreadOf(nil); s.N != 0 || !math.IsNaN(s.Median) || s.Format("%g") != "" {
		t.Errorf("SpreadOf(nil) = %+v", s)
	}
	if got := (Spread{3, 2, 1, 3}).Format("%.1f"); got != "2.0 (1.0–3.0)" {
		t.Errorf("Format = %q", got)
	}
}

// TestNumber: tick labels a reader reads, never an exponent.
func TestNumber(t *testing.T) {
	for v, want := range map[float64]string{1000: "1 000", 2000: "2 000", 5000: "5 000", 16384: "16 384", 1e6: "1 000 000",
		0.005: "0.005", 2.5: "2.5", 1: "1", 0.30000000000000004: "0.3", 1e-5: "0.00001", 123456789: "123 457 000", 1024: "1 024"} {
		if got := Number(v); got != want {
			t.Errorf("Number(%v) = %q, want %q", v, got, want)
		}
	}
	for _, tk := range (Steps125{}).Ticks(500, 20000) {
		if strings.ContainsAny(tk.Label, "e+") {
			t.Errorf("tick %q", tk.Label)
		}
	}
	var labels []string
	for _, tk := range (PowersOfTwo{}).Ticks(60, 5000) {
		labels = append(labels, tk.Label)
	}
	if strings.Join(labels, ",") != "64,128,256,512,1 024,2 048,4 096" {
		t.Errorf("ticks of P: %q", labels)
	}
	if got := Seconds(1500); got != "1 500 s" {
		t.Errorf("Seconds(1500) = %q", got)
	}
	if got := Seconds(2e-4); got != "200 µs" {
		t.Errorf("Seconds(2e-4) = %q", got)
	}
}

// TestSeriesName: a plot's legend names the world and P only when the
// plot has several of them (the title names the one there is).
func TestSeriesName(t *testing.T) {
	g := Group{World: "sim:gcel --budget 1000", Instance: "golomb 12", Balancer: "rp", NP: 1024}
	for _, c := range []struct {
		instance, worlds, ps bool
		want                 string
	}{
		{false, false, false, "rp"},
		{true, false, false, "rp · golomb 12"},
		{false, true, false, "rp · sim:gcel --budget 1000"},
		{false, true, true, "rp · sim:gcel --budget 1000 · P = 1 024"},
	} {
		if got := seriesName(g, c.instance, c.worlds, c.ps); got != c.want {
			t.Errorf("seriesName(%v, %v, %v) = %q, want %q", c.instance, c.worlds, c.ps, got, c.want)
		}
	}
}

// TestJobs: a simulated campaign run several at a time gives the rows of
// one run at a time; a real world refuses it.
func TestJobs(t *testing.T) {
	plan := Plan{Worlds: []string{"sim:unit"}, NPs: []int{2, 4, 8}, Balancers: []string{"rp", "ps"}, Instances: []string{"golomb 9", "golomb 10"},
		Seeds: []int64{1, 2}, Repeats: 1}
	keys, err := plan.Keys()
	if err != nil {
		t.Fatal(err)
	}
	var tabs []*Table
	for _, jobs := range []int{1, 3} {
		calls := 0
		r := fakeRunner(t.TempDir(), &calls, 0)
		r.Jobs = jobs
		tab, err := r.Run(context.Background(), keys)
		if err != nil || calls != len(keys) {
			t.Fatalf("%d jobs: %v, %d calls", jobs, err, calls)
		}
		tabs = append(tabs, tab)
	}
	speedups := func(tab *Table) map[string]string {
		m := map[string]string{}
		ks, _ := tab.Keys()
		for i, k := range ks {
			m[k.String()] = tab.Get(i, "speedup") + " " + tab.Get(i, ColCommand)
		}
		return m
	}
	if a, b := speedups(tabs[0]), speedups(tabs[1]); len(a) != len(keys) || !maps.Equal(a, b) {
		t.Errorf("one job:\n%v\nthree:\n%v", a, b)
	}
	calls := 0
	r := fakeRunner(t.TempDir(), &calls, 0)
	r.Jobs = 2
	plan.Worlds = []string{"embedded"}
	keys, _ = plan.Keys()
	if _, err := r.Run(context.Background(), keys); err == nil || calls != 0 {
		t.Errorf("2 jobs in a real world: %v, %d calls", err, calls)
	}
}

// TestGeneratedInput: an instance's <(...) is made once and its file
// given to every run; the CSV keeps the generator.
func TestGeneratedInput(t *testing.T) {
	calls := 0
	r := fakeRunner(t.TempDir(), &calls, 0)
	var gens, files []string
	inner := r.Exec
	r.Exec = func(ctx context.Context, cmd []string) (Output, error) {
		if filepath.Base(cmd[0]) == "gen" {
			gens = append(gens, strings.Join(cmd, " "))
			return inner(ctx, cmd)
		}
		files = append(files, cmd[len(cmd)-1])
		out, err := inner(ctx, cmd)
		// The command names its input, as knapsack's "file" does.
		out.Stdout = bytes.Replace(out.Stdout, []byte("{"), []byte(`{"file":"`+cmd[len(cmd)-1]+`",`), 1)
		return out, err
	}
	plan := Plan{Worlds: []string{"sim:unit"}, NPs: []int{2, 4}, Balancers: []string{"rp"}, Instances: []string{"golomb <(gen --seed 5)"},
		Seeds: []int64{1}, Repeats: 1}
	keys, _ := plan.Keys()
	tab, err := r.Run(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 1 || gens[0] != "/bin/gen --seed 5" || len(files) != 3 || files[0] != files[2] {
		t.Fatalf("generators %q, inputs %q", gens, files)
	}
	if c := tab.Get(2, ColCommand); !strings.HasSuffix(c, " <(gen --seed 5)") {
		t.Errorf("command %q", c)
	}
	// The command's own record of its input names the generator too, not
	// the temporary file, gone after the campaign.
	for i := range tab.Rows {
		if f := tab.Get(i, "file"); f != "<(gen --seed 5)" {
			t.Errorf("row %d: file %q, want the generator", i+1, f)
		}
	}
	if _, err := os.Stat(files[0]); !os.IsNotExist(err) {
		t.Errorf("the generated input outlives the campaign: %v", err)
	}
	// An input that cannot be written (a directory where its file goes)
	// is an output error (74) that names --inputs.
	r = fakeRunner(t.TempDir(), &calls, 0)
	r.InputDir = t.TempDir()
	if err := os.Mkdir(filepath.Join(r.InputDir, "gen_--seed_5.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	var ec interface{ ExitCode() int }
	if _, err := r.Run(context.Background(), keys); err == nil || !strings.Contains(err.Error(), "--inputs") || !errors.As(err, &ec) || ec.ExitCode() != 74 {
		t.Errorf("an input that cannot be written: %v", err)
	}
}

func TestDeriveAndPlots(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	r := fakeRunner(dir, &calls, 0)
	plan := Plan{Worlds: []string{"sim:unit", "embedded"}, NPs: []int{2, 4, 8}, Balancers: []string{"rp", "ps"},
		Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 2}
	keys, _ := plan.Keys()
	tab, err := r.Run(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := Derive(tab, "length,marks")
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 24 {
		t.Fatalf("%d points, want 24 (no baselines)", len(pts))
	}
	ks, _ := tab.Keys()
	for _, p := range pts {
		want, seq := float64(p.NP), 2.0 // real: the median of the baselines' 2 and 2.4 s
		if p.World == "sim:unit" {
			want /= 1.25
			seq = fakeSeqNodes * fakeNodeNS * 1e-9
		}
		if math.Abs(p.Speedup-want) > 1e-9 || p.Height != 9 || p.Seq != seq || math.Abs(p.Overhead-1.5) > 1e-12 || p.SeqNodes != fakeSeqNodes {
			t.Errorf("%s: speedup %g, want %g; T_seq %g, want %g; overhead %g; height %g", p.Key, p.Speedup, want, p.Seq, seq, p.Overhead, p.Height)
		}
		if p.World == "embedded" && (p.SeqSpread != Spread{2, 2, 2, 2.4}) {
			t.Errorf("%s: T_seq spread %+v", p.Key, p.SeqSpread)
		}
		// The speedup in the CSV (printed by the command with --seq-nodes)
		// is the sequential nodes × node cost / virtual time.
		if p.World == "sim:unit" {
			i := slices.Index(ks, p.Key)
			csv, _ := tab.Float(i, "speedup")
			virt, _ := tab.Float(i, "virtual_seconds")
			if math.Abs(csv-fakeSeqNodes*fakeNodeNS*1e-9/virt) > 1e-9*csv || math.Abs(csv-p.Speedup) > 1e-9*csv {
				t.Errorf("%s: the CSV's speedup %g, derived %g", p.Key, csv, p.Speedup)
			}
		}
	}
	gs := Groups(pts)
	if len(gs) != 12 || gs[0].Runs != 2 {
		t.Fatalf("groups %+v", gs)
	}
	var sum bytes.Buffer
	if err := Summarize(&sum, gs); err != nil {
		t.Fatal(err)
	}
	// sim, rp, P = 4: 40 requests + 3 work messages over 4 ranks, h = 9.
	// embedded: the sequential 2 and 2.4 s (median 2, gonum's lower middle).
	// sim, rp, P = 4: T_seq = 1000 nodes × 2 ms.
	for _, want := range []string{"| sim:unit | golomb 9 | rp | 4 | 2 | 2 | 0.625 | 3.2 | 0.800 | 1.5 | 0.800 |  | 10.8 | 9 | 1.19 |  |  |",
		"| embedded | golomb 9 | rp | 2 | 2 | 2 (2–2.4) | 1 | 2 | 1.000 | 1.5 |  |  | 5.0 | 9 | 0.56 | 0.00, 0.00 | 0 |",
		"| embedded | golomb 9 | ps | 8 | 2 |", "| 2 |\n",
		// Both kinds of T_seq in the table: each named.
		"T_seq (real worlds): the median wall time", "T_seq (simulated worlds): the sequential solver's nodes × the machine's node cost"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary without %q:\n%s", want, sum.String())
		}
	}
	sum.Reset()
	if err := SummarizeBySize(&sum, pts); err != nil || !strings.Contains(sum.String(), "| embedded | rp | 2 | 1 s – 10 s | 1 | 2 | 2 | 1.5 |") {
		t.Errorf("by size: %v\n%s", err, sum.String())
	}
	summary := filepath.Join(dir, "summary.csv")
	if err := WriteSummary(summary, tab, gs); err != nil {
		t.Fatal(err)
	}
	st, err := ReadTable(summary)
	if err != nil || len(st.Rows) != 12 || st.Get(0, "speedup_median") != "1.6" || st.Get(0, "search_overhead_median") != "1.5" {
		t.Fatalf("summary CSV %v: %+v", err, st)
	}
	for i := range st.Rows {
		if st.Get(i, "provenance.host") == "" || st.Get(i, "provenance.commit") == "" {
			t.Errorf("summary row %d without provenance", i)
		}
	}
	files, err := Plots(filepath.Join(dir, "p"), "", pts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"speedup", "messages", "seqtime", "overhead"} {
		for ext, magic := range map[string]string{".png": "\x89PNG", ".svg": "<?xml"} {
			f := filepath.Join(dir, "p-"+name+ext)
			b, err := os.ReadFile(f)
			if err != nil || !bytes.HasPrefix(b, []byte(magic)) || !slices.Contains(files, f) {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
	if slices.Contains(files, filepath.Join(dir, "p-iterations.png")) {
		t.Error("an iterations plot without iterations")
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "p-seqtime.svg"))
	for _, want := range []string{"golomb 9", "simulated unit", "P = 2, 4, 8", "T_seq"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the seqtime plot does not say %q", want)
		}
	}
}

// TestSameXForEveryBalancer: on the plot against T_seq an instance stands
// at the same x under every balancer, whatever nodes each expanded.
func TestSameXForEveryBalancer(t *testing.T) {
	calls := 0
	r := fakeRunner(t.TempDir(), &calls, 0)
	inner := r.Exec
	r.Exec = func(ctx context.Context, cmd []string) (Output, error) {
		out, err := inner(ctx, cmd)
		if slices.Contains(cmd, "ps") { // ps expands twice rp's nodes
			out.Stdout = bytes.Replace(out.Stdout, []byte(`"nodes":1500`), []byte(`"nodes":3000`), 1)
		}
		return out, err
	}
	plan := Plan{Worlds: []string{"sim:unit"}, NPs: []int{64}, Balancers: []string{"rp", "ps"}, Instances: []string{"golomb 9", "golomb 10"},
		Seeds: []int64{1}, Repeats: 1}
	keys, _ := plan.Keys()
	tab, err := r.Run(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := Derive(tab, "")
	if err != nil {
		t.Fatal(err)
	}
	x := map[string]float64{}
	for _, g := range Groups(pts) {
		if v, ok := x[g.Instance]; ok && v != g.Seq.Median {
			t.Errorf("%s: T_seq %g under %s, %g before", g.Instance, g.Seq.Median, g.Balancer, v)
		}
		x[g.Instance] = g.Seq.Median
		if want := map[string]float64{"rp": 1.5, "ps": 3}[g.Balancer]; g.Overhead.Median != want {
			t.Errorf("%s %s: search overhead %g, want %g", g.Instance, g.Balancer, g.Overhead.Median, want)
		}
	}
}

// TestGroupSpeedup: a configuration's speedup is the instance's T_seq
// over the median time of its runs, its extremes over the extreme times,
// so that the median speedup is that of the median run.
func TestGroupSpeedup(t *testing.T) {
	nan := math.NaN()
	pt := func(par, nodes float64) Point {
		return Point{Key: Key{World: "embedded", NP: 2, Balancer: "rp", Instance: "golomb 9"}, Seq: 6, SeqSpread: Spread{1, 6, 6, 6},
			Par: par, Speedup: 6 / par, Nodes: nodes, SeqNodes: 100, Overhead: nodes / 100, Messages: nan, Busy: nan, Idle: nan, Height: nan,
			LoadBefore: nan, LoadAfter: nan}
	}
	gs := Groups([]Point{pt(3, 120), pt(1, 100), pt(2, 150), pt(4, 90)})
	if len(gs) != 1 {
		t.Fatalf("groups %+v", gs)
	}
	g := gs[0]
	if g.Par != (Spread{4, 2, 1, 4}) || g.Speedup != (Spread{4, 3, 1.5, 6}) || g.Overhead != (Spread{4, 1.0, 0.9, 1.5}) {
		t.Errorf("T_par %+v, speedup %+v, overhead %+v", g.Par, g.Speedup, g.Overhead)
	}
}

// TestGroupOrder: each series (world, instance, balancer) in the order of
// its first run, its P ascending, whatever order the runs finished in.
func TestGroupOrder(t *testing.T) {
	nan := math.NaN()
	pt := func(balancer string, np int) Point {
		return Point{Key: Key{World: "sim:gcel", NP: np, Balancer: balancer, Instance: "golomb 9"}, Seq: 6, Par: 1, Speedup: 6,
			Messages: nan, Busy: nan, Idle: nan, Height: nan, LoadBefore: nan, LoadAfter: nan}
	}
	var got []string
	for _, g := range Groups([]Point{pt("rp", 8), pt("rp", 4), pt("static", 16), pt("rp", 16), pt("static", 2)}) {
		got = append(got, fmt.Sprint(g.Balancer, g.NP))
	}
	if want := []string{"rp4", "rp8", "rp16", "static2", "static16"}; !slices.Equal(got, want) {
		t.Errorf("groups %v, want %v", got, want)
	}
}

// TestPresetLayout: every preset writes its campaign into a directory of
// its own under results/, named after it (results/NAME/NAME.csv, the
// summary and plots beside it), where the campaign's README goes.
func TestPresetLayout(t *testing.T) {
	for _, p := range Presets() {
		if want := "results/" + p.Name + "/" + p.Name + ".csv"; p.CSV != want {
			t.Errorf("preset %s writes %s, want %s", p.Name, p.CSV, want)
		}
	}
}

// A foreign program's rows carry its source (repository, commit, build and
// MPI) in their provenance, not the campaign's version; without a Source
// they say it is unknown.
func TestForeignProvenance(t *testing.T) {
	r := fakeRunner(t.TempDir(), new(int), 0)
	r.Exec = func(ctx context.Context, cmd []string) (Output, error) {
		return Output{Stdout: []byte("Tree size = 102181082, tree depth = 13, num leaves = 81746377\nWallclock time = 12.5 sec\n")}, nil
	}
	r.Launcher = []string{"mpirun", "-np", "{np}"}
	r.Sources = map[string]*Source{"uts-ref-mpi": {Repo: "https://example.org/uts", Commit: "8b0c41a", Build: "mpicc -O3", MPI: "openmpi"}}
	keys := []Key{{World: "mpi", NP: 2, Balancer: "ws", Instance: "uts-ref-mpi T1L"}, {World: "embedded", NP: 1, Balancer: Seq, Instance: "uts-ref T1L"}}
	tab, err := r.Run(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	want := [][4]string{
		{"uts-ref-mpi: https://example.org/uts at 8b0c41a, built with mpicc -O3", "8b0c41a", "mpi", "openmpi"},
		{"uts-ref: source unknown", version.Unknown, "embedded", "none"},
	}
	checkProvenance(t, tab)
	for i, w := range want {
		got := [4]string{tab.Get(i, "provenance.version"), tab.Get(i, "provenance.commit"), tab.Get(i, "provenance.world"), tab.Get(i, "provenance.mpi")}
		if got != w {
			t.Errorf("row %d (%s): provenance %q, want %q", i, tab.Get(i, ColInstance), got, w)
		}
	}
}

// TestRunAsKeyed: a run whose output reports other ranks or another world
// than its row's key fails the campaign and leaves no row (an instance's
// own --np 4 under --np 2 was recorded as P = 2, an embedded build's run as
// an MPI world's).
func TestRunAsKeyed(t *testing.T) {
	for name, out := range map[string]string{
		"ranks": `{"app":"golomb","ranks":4,"world":"embedded","seconds":1,"nodes":5}`,
		"world": `{"app":"golomb","ranks":2,"world":"embedded","seconds":1,"nodes":5}`,
		"none":  `{"app":"golomb","seconds":1,"nodes":5}`,
	} {
		dir := t.TempDir()
		calls := 0
		r := fakeRunner(dir, &calls, 0)
		r.Exec = func(_ context.Context, cmd []string) (Output, error) {
			if slices.Contains(cmd, "seq") {
				return Output{Stdout: []byte(`{"app":"golomb","ranks":1,"world":"mpi","seconds":2,"nodes":5}`)}, nil
			}
			return Output{Stdout: []byte(out)}, nil
		}
		world := "embedded"
		if name == "world" {
			world = "mpi"
		}
		r.Launcher = []string{"mpirun", "-np", "{np}"}
		keys, err := Plan{Worlds: []string{world}, NPs: []int{2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1}.Keys()
		if err != nil {
			t.Fatal(err)
		}
		if name != "world" {
			keys = keys[1:] // the baseline's fake says mpi
		}
		tab, err := r.Run(context.Background(), keys)
		if err == nil || !strings.Contains(err.Error(), "the run") {
			t.Errorf("%s: %v; want the run refused", name, err)
		}
		if tab != nil && slices.ContainsFunc(tab.Rows, func(row []string) bool { return row[tab.Col(ColNP)] == "2" }) {
			t.Errorf("%s: the run's row was recorded", name)
		}
	}
}

// TestExecCommandTerminates: a cancelled run (--timeout, or the campaign's
// SIGINT or SIGTERM) gets SIGTERM, which a treelb command and mpirun pass
// on to their ranks, not a SIGKILL that left mpirun's ranks running.
func TestExecCommandTerminates(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "term")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	_, err := ExecCommand(ctx, []string{"bash", "-c", "trap 'echo term > " + mark + "; exit 143' TERM; while :; do sleep 0.05; done"})
	if err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if b, _ := os.ReadFile(mark); string(b) != "term\n" {
		t.Errorf("the run did not get SIGTERM (%v)", err)
	}
	if d := time.Since(start); d > KillGrace {
		t.Errorf("the run ended after %v", d)
	}
}

// TestTornRowDryRun: a last row cut off while it was written is left out of
// the plan by Todo, which writes nothing (a dry run rewrote the CSV), and
// Run writes the table again without it and runs its key again.
func TestTornRowDryRun(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	r := fakeRunner(dir, &calls, 0)
	keys, err := Plan{Worlds: []string{"sim:unit"}, NPs: []int{2, 4}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1}.Keys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), keys); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.CSV)
	if err != nil {
		t.Fatal(err)
	}
	// The last row cut in the middle.
	torn := b[:len(b)-len(b[bytes.LastIndexByte(b[:len(b)-1], '\n')+1:])/2]
	if err := os.WriteFile(r.CSV, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	_, todo, err := r.Todo(keys)
	if err != nil || len(todo) != 1 || todo[0] != keys[len(keys)-1] {
		t.Fatalf("todo %v, %v; want the torn row's key", todo, err)
	}
	if now, _ := os.ReadFile(r.CSV); !bytes.Equal(now, torn) {
		t.Error("Todo changed the CSV")
	}
	calls = 0
	if _, err := r.Run(context.Background(), keys); err != nil || calls != 1 {
		t.Fatalf("resumed: %d runs, %v", calls, err)
	}
	if tab, err := ReadTable(r.CSV); err != nil || tab.Torn != 0 || len(tab.Rows) != len(keys) {
		t.Errorf("after the run: %v, %+v; want %d whole rows", err, tab, len(keys))
	}
}

// TestSeqWarningsCount: a load warning on a baseline run counts in every
// group whose T_seq it is part of (the summary's load warnings left them
// out: three warned baselines under a speedup read 0).
func TestSeqWarningsCount(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	r := fakeRunner(dir, &calls, 0)
	keys, err := Plan{Worlds: []string{"embedded"}, NPs: []int{2, 4}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 2}.Keys()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := r.Run(context.Background(), keys)
	if err != nil {
		t.Fatal(err)
	}
	warned := 0
	for i := range tab.Rows {
		tab.Rows[i][tab.Col(ColWarning)] = "" // the fake's own load is what it is
	}
	for i, k := range keys {
		if k.Baseline() && warned == 0 {
			tab.Rows[i][tab.Col(ColWarning)] = "the load rose"
			warned++
		}
		if k.NP == 4 && k.Repeat == 1 {
			tab.Rows[i][tab.Col(ColWarning)] = "the load rose"
		}
	}
	pts, err := Derive(tab, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range Groups(pts) {
		if want := map[int]int{2: 1, 4: 2}[g.NP]; g.Warnings != want {
			t.Errorf("P = %d: %d warnings, want %d", g.NP, g.Warnings, want)
		}
	}
}

// TestSeqNamedAsBalancer: --balancer seq beside others is the baseline
// every campaign runs, once per world, instance and repeat (it ran twice,
// seeds 0 and 1, and both counted in T_seq); alone it is refused before
// anything runs (the report then found "no parallel run").
func TestSeqNamedAsBalancer(t *testing.T) {
	plan := Plan{Worlds: []string{"embedded"}, NPs: []int{1}, Balancers: []string{"seq", "rp"}, Instances: []string{"golomb 8"}, Seeds: []int64{1}, Repeats: 2}
	keys, err := plan.Keys()
	if err != nil {
		t.Fatal(err)
	}
	base := 0
	for _, k := range keys {
		if k.Baseline() {
			base++
			if k.Seed != 0 {
				t.Errorf("a baseline with seed %d: %s", k.Seed, k)
			}
		}
	}
	if base != 2 || len(keys) != 4 {
		t.Errorf("%d keys, %d of them baselines; want 4 and 2 (one per repeat): %v", len(keys), base, keys)
	}
	plan.Balancers = []string{"seq"}
	if _, err := plan.Keys(); err == nil || !strings.Contains(err.Error(), "--balancer seq alone") {
		t.Errorf("--balancer seq alone: %v, want a refusal", err)
	}
}

// TestSeqMeaningFits: what T_seq is, said on the speedup plot's vertical
// axis, fits its height in every mix of worlds: lines of at most 60
// characters (real and simulated together made one of 95, and the label
// was cut off).
func TestSeqMeaningFits(t *testing.T) {
	for _, pts := range [][]Point{{{Simulated: true}}, {{Simulated: false}}, {{Simulated: true}, {Simulated: false}}} {
		for _, line := range strings.Split("T_seq = "+seqMeaning(pts), "\n") {
			if n := len([]rune(line)); n > 60 {
				t.Errorf("%d characters: %q", n, line)
			}
		}
	}
}
