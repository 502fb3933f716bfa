package runner

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// The categories --help groups the common flags in (urfave/cli's
// Category, listed in this order, each flag by name within its own); a
// command's own flags, which have none, come first.
const (
	CategoryBalancer   = "Balancer options"
	CategoryCheckpoint = "Checkpoint options"
	CategoryOutput     = "Output options"
	CategoryRun        = "Run options"
	CategorySimulation = "Simulation options (--world sim)"
)

// flagCategories is the category of each common flag outside the
// simulation's and the checkpoints' lists, which are a category each.
var flagCategories = map[string]string{
	"np": CategoryRun, "world": CategoryRun, "idle": CategoryRun, "seed": CategoryRun, "check": CategoryRun,
	"balancer": CategoryBalancer, "budget": CategoryBalancer, "min-budget": CategoryBalancer, "fast-init": CategoryBalancer,
	"queue-limit": CategoryBalancer, "drain": CategoryBalancer, "radius": CategoryBalancer, "growth": CategoryBalancer, "ordered-init": CategoryBalancer,
	"pair-sync": CategoryBalancer, "ask-lower": CategoryBalancer,
	"shuffle-below": CategoryBalancer, "levels": CategoryBalancer, "perm": CategoryBalancer,
	"clusters": CategoryBalancer,
	"json":     CategoryOutput, "stats": CategoryOutput, "quiet": CategoryOutput, "progress": CategoryOutput,
}

// categorized returns the common flags with their categories set: those of
// flagCategories, and all of checkpoint and sim in those categories.
func categorized(common, checkpoint, sim []cli.Flag) []cli.Flag {
	for _, f := range common {
		setCategory(f, flagCategories[f.Names()[0]])
	}
	for _, f := range checkpoint {
		setCategory(f, CategoryCheckpoint)
	}
	for _, f := range sim {
		setCategory(f, CategorySimulation)
	}
	return append(common, append(checkpoint, sim...)...)
}

// setCategory sets the category of a flag of the types the common flags
// use. A flag of another type is a programming error (TestFlagCategories
// finds it).
func setCategory(f cli.Flag, c string) {
	switch f := f.(type) {
	case *cli.IntFlag:
		f.Category = c
	case *cli.Int64Flag:
		f.Category = c
	case *cli.Uint64Flag:
		f.Category = c
	case *cli.Float64Flag:
		f.Category = c
	case *cli.StringFlag:
		f.Category = c
	case *cli.BoolFlag:
		f.Category = c
	case *cli.DurationFlag:
		f.Category = c
	default:
		panic(fmt.Sprintf("runner: no category for flag --%s of type %T", f.Names()[0], f))
	}
}
