package campaign

import (
	"slices"
	"strings"
	"testing"
)

func TestScalingNPs(t *testing.T) {
	for cores, want := range map[int][]int{0: {1, 2}, 1: {1, 2}, 2: {1, 2, 4}, 6: {1, 2, 4, 6, 12}, 16: {1, 2, 4, 8, 16, 32}} {
		if got := ScalingNPs(cores); !slices.Equal(got, want) {
			t.Errorf("%d cores: P %v, want %v", cores, got, want)
		}
	}
}

// TestScalingPresets: both presets plan, for every instance of every size,
// the baseline before the parallel runs of each repeat, and refuse an
// unknown size.
func TestScalingPresets(t *testing.T) {
	for _, name := range []string{"scaling", "scaling-mpi"} {
		p, err := LookupPreset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range scalingSizes {
			params, err := p.Resolve([]string{"size=" + size})
			if err != nil {
				t.Fatal(err)
			}
			plan := p.Defaults
			plan.NPs = []int{1, 2}
			s, err := p.Setup(plan, params)
			if err != nil {
				t.Fatalf("%s size %s: %v", name, size, err)
			}
			ins, _ := scalingInstances(size)
			if want := len(ins) * plan.Repeats * 3; len(s.Keys) != want || s.Report == nil {
				t.Fatalf("%s size %s: %d runs, want %d", name, size, len(s.Keys), want)
			}
			for i := 0; i < len(s.Keys); i += 3 {
				if !s.Keys[i].Baseline() || s.Keys[i+1].Baseline() || s.Keys[i+2].Baseline() || s.Keys[i].Repeat != s.Keys[i+2].Repeat {
					t.Fatalf("%s size %s: runs %v do not alternate the baseline and the parallel runs", name, size, s.Keys[i:i+3])
				}
			}
		}
		params, _ := p.Resolve([]string{"size=huge"})
		if _, err := p.Setup(p.Defaults, params); err == nil || !strings.Contains(err.Error(), "standard") {
			t.Errorf("%s: size huge: %v", name, err)
		}
	}
}

// TestScalingReport checks the report's figures on three repeats worked
// out by hand: T_seq the median of 10, 12 and 11 s (11), T_par 5.5, 6 and
// 5 s on P = 2.
func TestScalingReport(t *testing.T) {
	var tb Table
	add := func(k Key, seconds, nodes, work, idle, start, end string) {
		f := []Field{}
		for i, c := range RunColumns()[:6] {
			f = append(f, Field{c, k.Values()[i]})
		}
		f = append(f, Field{ColLoadBefore, "0.5"}, Field{"seconds", seconds}, Field{"nodes", nodes})
		if work != "" {
			f = append(f, Field{"stats.total.work_seconds", work}, Field{"stats.total.idle_seconds", idle},
				Field{"stats.total.idle_start_seconds", start}, Field{"stats.total.idle_end_seconds", end})
		}
		if _, err := tb.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	for r, x := range []struct{ seq, par, nodes, work, idle, start, end string }{
		{"10", "5.5", "1100", "11", "0.55", "0.11", "0.22"}, {"12", "6", "1100", "12", "0.6", "0.12", "0.36"}, {"11", "5", "1210", "11", "0.5", "0.1", "0.1"}} {
		add(Key{World: "embedded --stats", NP: 1, Balancer: Seq, Instance: "golomb 9", Repeat: r}, x.seq, "1000", "", "", "", "")
		add(Key{World: "embedded --stats", NP: 2, Balancer: "rp", Instance: "golomb 9", Seed: 1, Repeat: r}, x.par, x.nodes, x.work, x.idle, x.start, x.end)
	}
	var b strings.Builder
	if err := ScalingReport(&b, &tb); err != nil {
		t.Fatal(err)
	}
	var row []string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == "embedded" {
			row = f
		}
	}
	// world (2 words) instance (2) balancer P runs speedup (2) efficiency
	// overhead (2) idle (2) at start (2) at end (2) rate (2) load
	want := []string{"embedded", "--stats", "golomb", "9", "rp", "2", "3", "2", "(1.83–2.2)", "1.000", "1.100", "(1.100–1.210)",
		"0.050", "(0.050–0.050)", "0.010", "0.020", "(0.010–0.030)", "1.100", "(1.008–1.210)", "0.500"} // idle: equal but for rounding; at start: equal
	if !slices.Equal(row, want) {
		t.Errorf("report row\n%q\nwant\n%q\n%s", row, want, b.String())
	}
}

// TestSimTargetsReport checks the targets table on runs worked out by
// hand: the Korf group is judged by Σ T_seq / (P · Σ T_par), not by the
// mean of its instances' efficiencies (0.625, 0.625 and 1.25: a mean of
// 0.833 against the group's 0.714, which misses 0.90); an rp variant gets
// rows of its own (1.042, met); a balancer on golomb 13 is held to 0.5,
// by the medians of its three seeds' runs.
func TestSimTargetsReport(t *testing.T) {
	var tb Table
	add := func(k Key, f ...Field) {
		for i, c := range RunColumns()[:6] {
			f = append(f, Field{c, k.Values()[i]})
		}
		if _, err := tb.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	const world = "sim:cluster"
	sim := func(b, instance string, virtual, nodes, busy string) {
		add(Key{World: world, NP: 16, Balancer: b, Instance: instance, Seed: 1},
			Field{"virtual_seconds", virtual}, Field{"machine.node_ns", "1000"}, Field{"nodes", nodes}, Field{"busy_fraction", busy})
	}
	korf := []struct{ instance, seqNodes, rp, variant string }{
		{"fifteen --korf 82", "1000", "1e-4", "6e-5"},
		{"fifteen --korf 88", "2000", "2e-4", "1.2e-4"},
		{"fifteen --korf 60", "1000", "0.5e-4", "6e-5"},
	}
	for _, k := range korf {
		add(Key{World: SimBaselineWorld, NP: 1, Balancer: Seq, Instance: k.instance}, Field{"nodes", k.seqNodes}, Field{"seconds", "1"})
		sim("rp", k.instance, k.rp, k.seqNodes, "0.5")
		sim("rp --min-budget 3000", k.instance, k.variant, k.seqNodes, "1")
	}
	add(Key{World: SimBaselineWorld, NP: 1, Balancer: Seq, Instance: "golomb 13"}, Field{"nodes", "1600"}, Field{"seconds", "1"})
	sim("koso", "golomb 13", "4e-4", "1700", "0.3") // 1.6e-3 / (16 · 4e-4) = 0.25
	// Two more seeds, one either side: the medians are seed 1's, where the
	// last seed's run alone (a first version) reads 0.125.
	for _, r := range []struct {
		seed                 int64
		virtual, nodes, busy string
	}{{2, "2e-4", "1600", "0.6"}, {3, "8e-4", "1800", "0.1"}} {
		add(Key{World: world, NP: 16, Balancer: "koso", Instance: "golomb 13", Seed: r.seed},
			Field{"virtual_seconds", r.virtual}, Field{"machine.node_ns", "1000"}, Field{"nodes", r.nodes}, Field{"busy_fraction", r.busy})
	}
	var b strings.Builder
	if err := SimTargetsReport(&b, &tb); err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == world {
			rows[strings.Join(f[:len(f)-6], " ")] = f[len(f)-6:]
		}
	}
	for key, want := range map[string][]string{
		"sim:cluster hard Korf sum (#82, #88, #60) rp":                   {"16", "0.714", "1.000", "0.500", "0.90", "missed"},
		"sim:cluster hard Korf sum (#82, #88, #60) rp --min-budget 3000": {"16", "1.042", "1.000", "1.000", "0.90", "met"},
		"sim:cluster golomb 13, every balancer koso":                     {"16", "0.250", "1.062", "0.300", "0.50", "missed"},
	} {
		if got := rows[key]; !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q\n%s", key, got, want, b.String())
		}
	}
	if len(rows) != 3 {
		t.Errorf("%d rows, want 3 (no target without all its runs)\n%s", len(rows), b.String())
	}
}

// TestSimTargetsPreset: the plan runs rp on every target instance and
// every other balancer on golomb 13 only, each once, after a baseline.
func TestSimTargetsPreset(t *testing.T) {
	p, err := LookupPreset("scaling-sim")
	if err != nil {
		t.Fatal(err)
	}
	s, err := p.Setup(p.Defaults, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Key]bool{}
	base := map[string]bool{}
	for _, k := range s.Keys {
		if seen[k] {
			t.Fatalf("%s twice", k)
		}
		seen[k] = true
		switch {
		case k.Baseline():
			base[k.Instance] = true
		case !base[k.Instance]:
			t.Errorf("%s before its baseline", k)
		case k.Balancer != "rp" && k.Instance != simTargetsBalancers:
			t.Errorf("%s: another balancer than rp on a target instance", k)
		}
	}
	for _, b := range []string{"koso", "static", "rp --fast-init"} {
		if !seen[Key{World: "sim:cluster --stats", NP: 64, Balancer: b, Instance: simTargetsBalancers, Seed: 1}] {
			t.Errorf("no run of %s on %s", b, simTargetsBalancers)
		}
	}
	if len(base) != 9 {
		t.Errorf("%d baselines, want one per target instance (9)", len(base))
	}
}
