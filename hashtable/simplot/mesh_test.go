package simplot

import (
	"bytes"
	"image/png"
	"testing"

	"gonum.org/v1/plot"

	"github.com/treelb/treelb/hashtable"
)

func TestMeshPNG(t *testing.T) {
	mp := hashtable.MeshParams{Beta: 4, Seed: 1, Rounds: 1, Bytes: 24, OverheadNS: 20000, LatencyNS: 10000, HopNS: 5000, ByteNS: 550, Contention: true}
	pts, err := hashtable.MeshDispatch(hashtable.MeshConfigs(64), mp)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := MeshPNG(&buf, pts, "test"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 300 {
		t.Errorf("image of %v", b)
	}
	if err := MeshPNG(&buf, nil, ""); err == nil {
		t.Error("empty figure accepted")
	}
}

// TestMeshPNGDegenerate: models whose times are all 0 (the unit machine,
// every point skipped) or equal at every p (one p, one round) draw, where
// gonum's log scale panicked on an empty or a zero-width range (dht mesh
// --machine unit --out DIR, and --max-p 4 --rounds 1, exited 70).
func TestMeshPNGDegenerate(t *testing.T) {
	for name, mp := range map[string]hashtable.MeshParams{
		"unit":     {Beta: 4, Seed: 1, Rounds: 1, Bytes: 24, LatencyNS: 1},
		"one p":    {Beta: 4, Seed: 1, Rounds: 1, Bytes: 24, OverheadNS: 20000, LatencyNS: 10000, HopNS: 5000, ByteNS: 550},
		"no costs": {Beta: 4, Seed: 1, Rounds: 3, Bytes: 24},
	} {
		maxP := 16
		if name == "one p" {
			maxP = 4
		}
		pts, err := hashtable.MeshDispatch(hashtable.MeshConfigs(maxP), mp)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var buf bytes.Buffer
		if err := MeshPNG(&buf, pts, name); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if _, err := png.Decode(&buf); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	zeros := []hashtable.MeshPoint{{P: 4, QLabel: "1", Alloc: "block", Routing: "cut-through"}, {P: 16, QLabel: "1", Alloc: "block", Routing: "cut-through"}}
	if err := MeshPNG(new(bytes.Buffer), zeros, "zeros"); err != nil {
		t.Errorf("zeros: %v", err)
	}
}

// TestLabelledLogTicks: an axis within one decade gets labels (gonum's log
// ticks label only the powers of ten: none there), and a wide one keeps
// gonum's.
func TestLabelledLogTicks(t *testing.T) {
	labelled := func(ts []plot.Tick, min, max float64) (n int) {
		for _, t := range ts {
			if t.Label != "" && t.Value >= min && t.Value <= max {
				n++
			}
		}
		return n
	}
	for _, r := range [][2]float64{{0.07, 0.09}, {0.15, 0.8}, {0.045, 0.25}, {3, 40}, {1e-3, 1e3}} {
		if n := labelled(labelledLogTicks{}.Ticks(r[0], r[1]), r[0], r[1]); n < 2 {
			t.Errorf("[%g, %g]: %d labels", r[0], r[1], n)
		}
	}
	got, want := labelledLogTicks{}.Ticks(1e-3, 1e3), plot.LogTicks{Prec: -1}.Ticks(1e-3, 1e3)
	if len(got) != len(want) {
		t.Errorf("a wide axis: %d ticks, gonum's %d", len(got), len(want))
	}
}
