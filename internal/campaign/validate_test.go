package campaign

import (
	"bytes"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
)

// The validate preset runs every configuration Repeats times in the real
// world, with a sequential baseline per instance and repeat, and then once
// in the simulator with the world's calibrated model; a simulated run gets
// no launcher.
func TestValidateKeys(t *testing.T) {
	p, err := LookupPreset("validate")
	if err != nil {
		t.Fatal(err)
	}
	params, err := p.Resolve([]string{"world=openmpi", "machines=m", "budgets=10,1000"})
	if err != nil {
		t.Fatal(err)
	}
	plan := p.Defaults
	plan.Instances = []string{"golomb 10", "uts --tree T1"}
	s, err := p.Setup(plan, params)
	if err != nil {
		t.Fatal(err)
	}
	// 3 repeats × 2 instances × (1 baseline + 2 budgets × 2 P), then
	// 2 instances × (1 + 2 × 2) simulated.
	if want := 3*2*5 + 2*5; len(s.Keys) != want {
		t.Fatalf("%d runs, want %d", len(s.Keys), want)
	}
	sawSim := false
	for _, k := range s.Keys {
		w, err := ParseWorld(k.World)
		if err != nil {
			t.Fatal(err)
		}
		if !w.Real() {
			sawSim = true
			budget := int64(10) // the sequential row's: the first budget's model
			if f := strings.Fields(k.World); len(f) > 2 && f[len(f)-2] == "--budget" {
				budget, _ = strconv.ParseInt(f[len(f)-1], 10, 64)
			}
			if want := MachineFile("m", "openmpi", App(k.Instance), budget); w.Machine != want || k.Repeat != 0 {
				t.Errorf("%s: want machine %s, repeat 0", k, want)
			}
			cmd, err := Command(k, CommandOptions{Launcher: []string{"mpirun", "-np", "{np}"}})
			if err != nil {
				t.Fatal(err)
			}
			if cmd[0] == "mpirun" {
				t.Errorf("%s: a simulated run under the launcher: %q", k, cmd)
			}
		} else if sawSim {
			t.Errorf("%s: a real run after the simulated ones", k)
		} else if w.Name != "mpi" {
			t.Errorf("%s: openmpi runs as %s, want mpi", k, w.Name)
		}
	}
	if got := MachineFile("m", "openmpi", "golomb", 100); got != filepath.Join("m", "openmpi-golomb-b100.json") {
		t.Errorf("MachineFile: %s", got)
	}
	for _, bad := range [][]string{{"world=lam"}, {"budgets=0"}, {"budgets="}, {"machines=a b"}} {
		pa, err := p.Resolve(bad)
		if err == nil {
			_, err = p.Setup(plan, pa)
		}
		if err == nil {
			t.Errorf("--set %s: no error", bad)
		}
	}
	plan.Worlds = []string{"embedded"}
	if _, err := p.Setup(plan, params); err == nil {
		t.Error("--world with the validate preset: no error")
	}
}

// With --set simulate=no (scripts/validate.sh's runs between two
// calibrations) the preset plans the real runs only and reports no
// comparison; any other value than yes or no is refused.
func TestValidateKeysRealOnly(t *testing.T) {
	p, err := LookupPreset("validate")
	if err != nil {
		t.Fatal(err)
	}
	plan := p.Defaults
	plan.Instances = []string{"golomb 10"}
	plan.Repeats = 2
	params, err := p.Resolve([]string{"world=mpich", "budgets=100", "simulate=no"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Setup(plan, params)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * (1 + 2); len(s.Keys) != want { // 2 repeats × (the baseline + 2 P)
		t.Errorf("%d runs, want %d: %v", len(s.Keys), want, s.Keys)
	}
	for _, k := range s.Keys {
		if w, err := ParseWorld(k.World); err != nil || !w.Real() {
			t.Errorf("%s: a simulated run with simulate=no (%v)", k, err)
		}
	}
	var out bytes.Buffer
	if err := s.Report(&out, &Table{}); err != nil || !strings.Contains(out.String(), "no comparison") {
		t.Errorf("report: %q, %v", out.String(), err)
	}
	bad, err := p.Resolve([]string{"simulate=maybe"})
	if err == nil {
		_, err = p.Setup(plan, bad)
	}
	if err == nil {
		t.Error("simulate=maybe: no error")
	}
}

// MedianMachine takes each cost's median over the models (the middle of
// three, the lower middle of two, as every median of the repository),
// keeps the fields that are no costs, names every calibration in the
// source, and refuses models that disagree on anything but costs.
func TestMedianMachine(t *testing.T) {
	a := lb.Machine{Name: "calibrated-mpi", Source: "one", NodeNS: 16, LatencyNS: 500, PollNS: 100, SendNS: 900, SliceNS: 250}
	b := lb.Machine{Name: "calibrated-mpi", Source: "two", NodeNS: 20, LatencyNS: 400, PollNS: 300, SendNS: 700, SliceNS: 260}
	c := lb.Machine{Name: "calibrated-mpi", Source: "three", NodeNS: 17, LatencyNS: 450, PollNS: 90, SendNS: 800, SliceNS: 1000}
	m, err := MedianMachine([]lb.Machine{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	want := lb.Machine{Name: "calibrated-mpi", Source: m.Source, NodeNS: 17, LatencyNS: 450, PollNS: 100, SendNS: 800, SliceNS: 260}
	if m != want {
		t.Errorf("median of three:\n%+v\nwant\n%+v", m, want)
	}
	if !strings.Contains(m.Source, "3 calibrations: one; then two; then three") {
		t.Errorf("source %q", m.Source)
	}
	if m, err := MedianMachine([]lb.Machine{a, b}); err != nil || m.NodeNS != 16 || m.PollNS != 100 || m.LatencyNS != 400 {
		t.Errorf("median of two (the lower middle): %+v, %v", m, err)
	}
	d := c
	d.MeshWidth = 4
	for _, bad := range [][]lb.Machine{nil, {a, b, d}, {{Name: "x", NodeNS: -1}}} {
		if m, err := MedianMachine(bad); err == nil {
			t.Errorf("%+v: no error, %+v", bad, m)
		}
	}
}

// Validation pairs the real runs' median with the simulated run, computes
// the error, and names the larger part of a miss.
func TestValidation(t *testing.T) {
	tab := &Table{}
	add := func(world, bal string, np int, seconds, nodes, work string) {
		t.Helper()
		f := []Field{{ColWorld, world}, {ColNP, itoa(np)}, {ColBalancer, bal}, {ColInstance, "golomb 10"}, {ColSeed, "1"}, {ColRepeat, "0"},
			{ColLoadBefore, "0.50"}, {ColLoadAfter, "1.50"}, {ColWall, seconds}, {"nodes", nodes}, {"stats.total.work_seconds", work},
			{"stats.total.slices", "100"}, {"stats.total.messages_sent", "10"}}
		if strings.HasPrefix(world, "sim") {
			f = append(f, Field{"virtual_seconds", seconds}, Field{"machine.node_ns", "10"}, Field{"machine.poll_ns", "4"},
				Field{"machine.slice_ns", "96"})
		} else {
			f = append(f, Field{"seconds", seconds}, Field{"provenance.commit", "c" + seconds}, Field{"provenance.host", "vm"})
		}
		if _, err := tab.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	// Real: 1.0, 1.2, 1.1 s at P = 2 (median 1.1), their work 2 s of 10⁸
	// nodes (20 ns a node); simulated 1.0 s of 1 s of work (10 ns a node).
	for _, s := range []string{"1.0", "1.2", "1.1"} {
		add("embedded --stats --budget 10", "rp", 2, s, "100000000", "2.0")
	}
	add("sim:m/embedded-golomb-b10.json --stats --budget 10", "rp", 2, "1.0", "100000000", "1.0")
	// And a configuration that only ran for real: no row.
	add("embedded --stats --budget 100", "rp", 2, "1.0", "100000000", "2.0")
	rows, err := Validation(tab)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	r := rows[0]
	if r.Real.Median != 1.1 || r.Real.N != 3 || r.Sim != 1.0 || math.Abs(r.ErrorPct-(-100.0/11)) > 1e-9 {
		t.Errorf("median %g of %d, simulated %g, error %g %%", r.Real.Median, r.Real.N, r.Sim, r.ErrorPct)
	}
	if r.SliceNS != 100 || r.NodeNS != [2]float64{20, 10} || math.Abs(r.DWork-0.5) > 1e-9 || math.Abs(r.DRest-(-0.4)) > 1e-9 || r.Explains != "" {
		t.Errorf("ns/node %v, ns/slice %g, Δwork %g, Δloop %g, explains %q", r.NodeNS, r.SliceNS, r.DWork, r.DRest, r.Explains)
	}
	// The provenance of the configuration's first real run.
	if want := []Field{{"provenance.commit", "c1.0"}, {"provenance.host", "vm"}}; !slices.Equal(r.Provenance, want) {
		t.Errorf("provenance %v, want %v", r.Provenance, want)
	}
	if r.LoadMin != 0.5 || r.LoadMax != 1.5 {
		t.Errorf("load %g–%g, want 0.5–1.5", r.LoadMin, r.LoadMax)
	}
	var md bytes.Buffer
	if err := ValidationMarkdown(&md, "embedded", rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "0 outside ±15 %") || !strings.Contains(md.String(), "meets the target") {
		t.Errorf("markdown:\n%s", md.String())
	}
	path := filepath.Join(t.TempDir(), "v.csv")
	if err := WriteValidation(path, rows, "made by a test"); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTable(path)
	if err != nil || len(back.Rows) != 1 || !slices.Equal(back.Columns, append(ValidationColumns(), "provenance.commit", "provenance.host")) ||
		back.Get(0, "campaign") != "made by a test" || back.Get(0, "provenance.commit") != "c1.0" || back.Get(0, "error_pct") != "-9.09091" {
		t.Errorf("the table's CSV read back: %v, %+v", err, back)
	}
	// At P > 1 the model's node cost is its busy one, when it has one.
	busy := Table{Columns: append(slices.Clone(tab.Columns), "machine.busy_node_ns")}
	for _, row := range tab.Rows {
		busy.Rows = append(busy.Rows, append(slices.Clone(row), "12"))
	}
	if rows, err := Validation(&busy); err != nil || rows[0].NodeNS != [2]float64{20, 12} {
		t.Errorf("with a busy node cost: ns/node %v (%v), want [20 12]", rows[0].NodeNS, err)
	}
	// A miss twice as slow in the model, all of it in the work: node cost.
	tab.Rows[3][tab.Col("virtual_seconds")] = "2.2"
	tab.Rows[3][tab.Col("stats.total.work_seconds")] = "4.4"
	if rows, err = Validation(tab); err != nil || rows[0].Explains != "node cost" {
		t.Errorf("explains %q (%v), want node cost", rows[0].Explains, err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestValidationBias checks the report's line of the signed error's median
// by kind of row: the sequential rows first, then each P, whatever the
// order of the rows.
func TestValidationBias(t *testing.T) {
	rows := []ValidationRow{
		{NP: 2, Budget: 10, ErrorPct: 1},
		{NP: 1, Budget: 10, ErrorPct: -5},
		{NP: 1, Budget: 0, ErrorPct: 6, Balancer: Seq},
		{NP: 1, Budget: 100, ErrorPct: -3},
		{NP: 1, Budget: 0, ErrorPct: 4, Balancer: Seq},
		{NP: 1, Budget: 1000, ErrorPct: -4},
	}
	got := validationBias(rows)
	// Of two, the median is the lesser (gonum's empirical quantile).
	if want := "sequential +4.0 % (n = 2), P = 1 -4.0 % (n = 3), P = 2 +1.0 % (n = 1);"; !strings.Contains(got, want) {
		t.Errorf("got %q, want it to contain %q", got, want)
	}
	var md bytes.Buffer
	if err := ValidationMarkdown(&md, "embedded", rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), got) {
		t.Errorf("the report lacks the line %q:\n%s", got, md.String())
	}
}
