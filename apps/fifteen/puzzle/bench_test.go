package puzzle

import (
	"fmt"
	"testing"
)

// benchIDs are mid-size Korf instances: 11, 32, 63 and 101 million nodes.
var benchIDs = []int{5, 6, 4, 25}

func benchInstance(b *testing.B, id int) Instance {
	for _, in := range loadKorf(b) {
		if in.ID == id {
			return in
		}
	}
	b.Fatalf("no instance %d", id)
	return Instance{}
}

// BenchmarkSolve solves whole instances with Solve and reports the rate in
// generated nodes per second.
func BenchmarkSolve(b *testing.B) {
	for _, id := range benchIDs {
		in := benchInstance(b, id)
		b.Run(fmt.Sprint("id", id), func(b *testing.B) {
			var nodes int64
			for b.Loop() {
				res, err := Solve(in.State)
				if err != nil || res.Length != in.Optimal || res.Nodes != in.Nodes {
					b.Fatalf("id %d: %+v %v", id, res, err)
				}
				nodes += res.Nodes
			}
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
		})
	}
}

// BenchmarkSearchWork runs the same instances iteration by iteration
// through Search.Work in slices of a fixed budget, as a load balancer does,
// to compare its rate with Solve's.
func BenchmarkSearchWork(b *testing.B) {
	for _, budget := range []int64{1e3, 1e4, 1e5} {
		for _, id := range benchIDs[:2] {
			in := benchInstance(b, id)
			b.Run(fmt.Sprintf("id%d/budget%d", id, budget), func(b *testing.B) {
				var nodes int64
				for b.Loop() {
					n := int64(1)
					for threshold := in.State.Manhattan(); ; threshold += 2 {
						s, err := NewIteration(in.State, threshold)
						if err != nil {
							b.Fatal(err)
						}
						for !s.Empty() {
							s.Work(budget)
						}
						n += s.Nodes()
						if s.Solved() {
							break
						}
					}
					if n != in.Nodes {
						b.Fatalf("id %d: %d nodes, want %d", id, n, in.Nodes)
					}
					nodes += n
				}
				b.ReportMetric(float64(nodes)/b.Elapsed().Seconds()/1e6, "Mnodes/s")
			})
		}
	}
}
