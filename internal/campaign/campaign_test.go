package campaign

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
	} {
		got, err := ParseInts(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseInts(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "5-3", "0..8*2", "1..8*1", "1..8", "4..2*2"} {
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
	// mpi: seq baseline, then 2 balancers × 2 P; sim: 2 × 2.
	if len(keys) != 9 || !keys[0].Baseline() || keys[0].NP != 1 || keys[2].Balancer != "rp" || keys[2].NP != 4 || keys[3].Balancer != "rp --fast-init" {
		t.Fatalf("keys %v", keys)
	}
	cmd, err := Command(keys[0], "/b", []string{"srun", "-n", "{np}"})
	if want := "srun -n 1 /b/golomb --json --balancer seq 9"; err != nil || strings.Join(cmd, " ") != want {
		t.Errorf("baseline %q, %v; want %q", cmd, err, want)
	}
	cmd, _ = Command(keys[8], "", nil)
	if want := "golomb --json --world sim --np 4 --machine unit --balancer rp --fast-init --seed 1 9"; strings.Join(cmd, " ") != want {
		t.Errorf("sim %q; want %q", cmd, want)
	}
	for _, bad := range []Plan{
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}},
		{Worlds: []string{"sim"}, NPs: []int{0}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp", " rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim"}, NPs: []int{2}, Balancers: []string{"rp"}, Seeds: []int64{1}, Repeats: 1},
		{Worlds: []string{"sim"}, NPs: []int{2, 2}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1},
	} {
		if _, err := bad.Keys(); err == nil {
			t.Errorf("plan %+v accepted", bad)
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

// fake returns a runner's Exec that answers every command with JSON made
// from its flags and counts the calls. Runs with --np 8 report an extra
// field, so the header grows after the first rows.
func fake(calls *int) func(context.Context, []string) ([]byte, error) {
	return func(_ context.Context, cmd []string) ([]byte, error) {
		*calls++
		arg := func(flag, def string) string {
			if i := slices.Index(cmd, flag); i >= 0 {
				return cmd[i+1]
			}
			return def
		}
		np := arg("--np", "1")
		if arg("--balancer", "") == "bad" {
			return nil, fmt.Errorf("exit status 2")
		}
		var p, seq float64
		fmt.Sscan(np, &p)
		seq = 100
		extra := ""
		if np == "8" {
			extra = `,"late":"yes"`
		}
		if slices.Contains(cmd, "sim") {
			par := seq / p * 1.25
			return fmt.Appendf(nil, `{"app":"golomb","ranks":%s,"world":"sim","marks":9,"seconds":0.5,"messages":{"request":%g,"work":3},"machine":{"name":"unit","node_ns":1},"virtual_seconds":%g,"seq_virtual_seconds":%g,"speedup":%g,"busy_fraction":0.8%s}`,
				np, 10*p, par, seq, seq/par, extra), nil
		}
		if arg("--balancer", "") == "seq" {
			return []byte(`{"app":"golomb","ranks":1,"world":"embedded","marks":9,"seconds":2}`), nil
		}
		return fmt.Appendf(nil, `{"app":"golomb","ranks":%s,"world":"embedded","marks":9,"seconds":%g,"messages":{"request":%g}%s}`, np, 2/p, 5*p, extra), nil
	}
}

func TestRunnerResume(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "c.csv")
	calls := 0
	var progress bytes.Buffer
	r := Runner{CSV: csvPath, BinDir: "/bin", Progress: &progress, Exec: fake(&calls), JSONL: filepath.Join(dir, "c.jsonl")}
	plan := Plan{Worlds: []string{"sim:unit", "embedded"}, NPs: []int{2, 4}, Balancers: []string{"rp"}, Instances: []string{"golomb 9"}, Seeds: []int64{1}, Repeats: 1}
	keys, err := plan.Keys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), keys); err != nil {
		t.Fatal(err)
	}
	if calls != 5 || !strings.Contains(progress.String(), "run 5 of 5 (ETA") {
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
	if want := len(keys) - 5; calls != want {
		t.Errorf("resumed campaign made %d runs, want %d", calls, want)
	}
	got, err := ReadTable(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := append(RunColumns(), "app", "ranks", "world", "marks", "seconds", "messages.request", "messages.work",
		"machine.name", "machine.node_ns", "virtual_seconds", "seq_virtual_seconds", "speedup", "busy_fraction", "late")
	if !slices.Equal(got.Columns, wantCols) || !slices.Equal(got.Columns, tab.Columns) {
		t.Errorf("columns\n%q\nwant\n%q", got.Columns, wantCols)
	}
	if len(got.Rows) != len(keys) {
		t.Errorf("%d rows, want %d", len(got.Rows), len(keys))
	}
	ks, err := got.Keys()
	if err != nil || !slices.Equal(sortedBy(ks, Key.String), sortedBy(keys, Key.String)) {
		t.Errorf("keys in the CSV %v, %v", ks, err)
	}
	for i := range got.Rows {
		load, world := got.Get(i, ColLoad), got.Get(i, ColWorld)
		if (world == "embedded") != (load != "") {
			t.Errorf("row %d (%s): load %q", i, world, load)
		}
		if got.Get(i, "late") != "" && got.Get(i, ColNP) != "8" {
			t.Errorf("row %d: late = %q", i, got.Get(i, "late"))
		}
		if c := got.Get(i, ColCommand); strings.Contains(c, "/bin/") || !strings.HasPrefix(c, "golomb --json") {
			t.Errorf("row %d: command %q", i, c)
		}
	}
	if b, err := os.ReadFile(r.JSONL); err != nil || bytes.Count(b, []byte("\n")) != len(keys) {
		t.Errorf("JSONL: %v, %d lines", err, bytes.Count(b, []byte("\n")))
	}
	// Everything is done: nothing runs.
	calls = 0
	if _, err := r.Run(context.Background(), keys); err != nil || calls != 0 {
		t.Errorf("third run: %d calls, %v", calls, err)
	}
	// A failing run is an error and leaves the rows before it.
	plan.Balancers = []string{"rp", "bad"}
	keys, _ = plan.Keys()
	if _, err := r.Run(context.Background(), keys); err == nil || !strings.Contains(err.Error(), "--balancer bad") {
		t.Errorf("failing run: %v", err)
	}
	if again, _ := ReadTable(csvPath); len(again.Rows) != len(got.Rows) {
		t.Errorf("%d rows after the failure, want %d", len(again.Rows), len(got.Rows))
	}
	// A CSV whose rows have no key is refused.
	os.WriteFile(csvPath, []byte("a,b\n1,2\n"), 0o644)
	if _, err := r.Run(context.Background(), keys); err == nil {
		t.Error("a CSV without keys accepted")
	}
}

func TestDeriveAndPlots(t *testing.T) {
	dir := t.TempDir()
	calls := 0
	r := Runner{CSV: filepath.Join(dir, "c.csv"), BinDir: "/bin", Progress: &bytes.Buffer{}, Exec: fake(&calls)}
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
	for _, p := range pts {
		want := float64(p.NP)
		if p.World == "sim:unit" {
			want /= 1.25
		}
		if math.Abs(p.Speedup-want) > 1e-9 || p.Height != 9 {
			t.Errorf("%s: speedup %g, want %g; height %g", p.Key, p.Speedup, want, p.Height)
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
	if !strings.Contains(sum.String(), "| sim:unit | golomb 9 | rp | 4 | 2 | 100 | 31.25 | 3.2 | 0.800 | 0.800 | 10.8 | 9 | 1.19 |") {
		t.Errorf("summary:\n%s", sum.String())
	}
	files, err := Plots(filepath.Join(dir, "p"), "test", pts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"speedup", "messages", "seqtime"} {
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
}
