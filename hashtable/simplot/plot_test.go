package simplot

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/treelb/treelb/hashtable"
)

func TestFig1PNG(t *testing.T) {
	pts, err := hashtable.Simulate(hashtable.Fig1Configs(64), hashtable.SimParams{Alpha: 4, Beta: 4, Runs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Fig1PNG(&buf, pts, "test"); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 300 {
		t.Errorf("image of %v", b)
	}
	if err := Fig1PNG(&buf, nil, ""); err == nil {
		t.Error("empty figure accepted")
	}
}
