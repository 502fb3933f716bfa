package campaign_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/treelb/treelb/internal/campaign"
)

// A campaign of random polling on 1 and 2 goroutine ranks, twice each: the
// plan adds a sequential baseline before every repeat, the runner runs
// each key once and keeps a CSV row per run, and Derive and Groups give
// every configuration its speedup against the median baseline. Exec stands
// in for the golomb command here, with the times a run might report; left
// nil, the runner starts the commands.
func Example() {
	plan := campaign.Plan{Worlds: []string{"embedded"}, NPs: []int{1, 2}, Balancers: []string{"rp"},
		Instances: []string{"golomb 12"}, Seeds: []int64{1}, Repeats: 2}
	keys, err := plan.Keys()
	if err != nil {
		fmt.Println(err)
		return
	}

	dir, err := os.MkdirTemp("", "campaign-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	times := []float64{1.60, 1.61, 0.85, 1.62, 1.63, 0.83} // in the order of the keys
	runs := 0
	r := campaign.Runner{CSV: filepath.Join(dir, "golomb.csv"), BinDir: "bin", Progress: io.Discard,
		Cores: 2, Load: func() float64 { return 0 },
		Exec: func(ctx context.Context, cmd []string) (campaign.Output, error) {
			fmt.Println(strings.Join(cmd, " "))
			np := "1"
			if i := slices.Index(cmd, "--np"); i >= 0 {
				np = cmd[i+1]
			}
			out := fmt.Sprintf(`{"app":"golomb","ranks":%s,"world":"embedded","seconds":%g,"nodes":104625166}`, np, times[runs])
			runs++
			return campaign.Output{Stdout: []byte(out)}, nil
		}}
	table, err := r.Run(context.Background(), keys)
	if err != nil {
		fmt.Println(err)
		return
	}
	points, err := campaign.Derive(table, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range campaign.Groups(points) {
		fmt.Printf("%s, %s on %d: T_seq %.2f s, T_par %.2f s (median of %d), speedup %.2f\n",
			g.Instance, g.Balancer, g.NP, g.Seq.Median, g.Par.Median, g.Runs, g.Speedup.Median)
	}
	// Output:
	// bin/golomb --json --world embedded --np 1 --balancer seq 12
	// bin/golomb --json --world embedded --np 1 --balancer rp --seed 1 12
	// bin/golomb --json --world embedded --np 2 --balancer rp --seed 1 12
	// bin/golomb --json --world embedded --np 1 --balancer seq 12
	// bin/golomb --json --world embedded --np 1 --balancer rp --seed 1 12
	// bin/golomb --json --world embedded --np 2 --balancer rp --seed 1 12
	// golomb 12, rp on 1: T_seq 1.60 s, T_par 1.61 s (median of 2), speedup 0.99
	// golomb 12, rp on 2: T_seq 1.60 s, T_par 0.83 s (median of 2), speedup 1.93
}
