package campaign

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/treelb/treelb/runner"
)

// checkTimeout bounds one --check: it reads the instance (a knapsack file
// of a million items in a second or two), nothing more.
const checkTimeout = 2 * time.Minute

// check runs each distinct command line of keys (seeds and repeats aside,
// which no command refuses) with --check before any run: the command
// parses its flags, the balancer's options and the instance as the run
// would, then exits without running (runner's --check). A bad option or
// instance failed only when its first run came, after every run before
// it, with exit status 1; now the campaign stops before its first run,
// with the command's message, as a usage error (exit 2). A real world's
// command is checked without its launcher (no MPI_Init: an MPI build
// checks alone), so its P is not checked; foreign programs are not.
func (r *Runner) check(ctx context.Context, keys []Key) error {
	exe := r.Exec
	if exe == nil {
		exe = ExecCommand
	}
	var cmds [][]string
	seen := map[string]bool{}
	for _, k := range keys {
		if _, foreign := LookupForeign(App(k.Instance)); foreign {
			continue
		}
		if !k.Baseline() {
			k.Seed = 1
		}
		k.Repeat = 0
		cmd, err := Command(k, CommandOptions{BinDir: r.BinDir,
			Input: func(gen []string) (string, error) { return r.input(ctx, gen) }})
		if err != nil {
			return err
		}
		cmd = slices.Insert(cmd, 1, "--check")
		if line := strings.Join(cmd, "\x00"); !seen[line] {
			seen[line] = true
			cmds = append(cmds, cmd)
		}
	}
	errs := make([]error, len(cmds))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(cmds)) {
		wg.Go(func() {
			for i := range work {
				cctx, cancel := context.WithTimeout(ctx, checkTimeout)
				_, errs[i] = exe(cctx, cmds[i])
				cancel()
			}
		})
	}
	for i := range cmds {
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i, err := range errs {
		if err != nil {
			shown := slices.Clone(cmds[i])
			shown[0] = filepath.Base(shown[0]) // the BinDir, often a temporary one, aside
			return &runner.UsageError{Err: fmt.Errorf("campaign: a run's command line is refused (%s): %w; nothing ran", strings.Join(shown, " "), err)}
		}
	}
	if len(cmds) > 0 {
		fmt.Fprintf(r.Progress, "campaign: %d command lines checked (--check)\n", len(cmds))
	}
	return nil
}
