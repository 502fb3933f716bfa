package simplot

import (
	"bytes"
	"image/png"
	"testing"

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
