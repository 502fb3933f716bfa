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
	add := func(k Key, seconds, nodes, work, idle string) {
		f := []Field{}
		for i, c := range RunColumns()[:6] {
			f = append(f, Field{c, k.Values()[i]})
		}
		f = append(f, Field{ColLoadBefore, "0.5"}, Field{"seconds", seconds}, Field{"nodes", nodes})
		if work != "" {
			f = append(f, Field{"stats.total.work_seconds", work}, Field{"stats.total.idle_seconds", idle})
		}
		if _, err := tb.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	for r, x := range []struct{ seq, par, nodes, work, idle string }{
		{"10", "5.5", "1100", "11", "0.55"}, {"12", "6", "1100", "12", "0.6"}, {"11", "5", "1210", "11", "0.5"}} {
		add(Key{World: "embedded --stats", NP: 1, Balancer: Seq, Instance: "golomb 9", Repeat: r}, x.seq, "1000", "", "")
		add(Key{World: "embedded --stats", NP: 2, Balancer: "rp", Instance: "golomb 9", Seed: 1, Repeat: r}, x.par, x.nodes, x.work, x.idle)
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
	// overhead (2) idle rate (2) load
	want := []string{"embedded", "--stats", "golomb", "9", "rp", "2", "3", "2", "(1.83–2.2)", "1.000", "1.100", "(1.100–1.210)",
		"0.050", "(0.050–0.050)", "1.100", "(1.008–1.210)", "0.500"} // idle: equal but for rounding
	if !slices.Equal(row, want) {
		t.Errorf("report row\n%q\nwant\n%q\n%s", row, want, b.String())
	}
}
