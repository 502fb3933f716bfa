package main

import (
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
)

// rankStackLimit is the goroutine stack a rank of the embedded world must
// fit: a goroutine's stack doubles (2, 4, 8, 16 KB) when its deepest call
// needs more, and at 65536 ranks the stacks are most of the process's
// memory (16 KB a rank: 1 GB; docs/reliability.md, issue 23).
const rankStackLimit = 8 << 10

// TestRankStack runs golomb 10 on 1024 embedded ranks (the pool of
// workers), on 2 (each rank in its own loop) and on 1 in a copy of the
// test binary whose every goroutine may grow its stack to rankStackLimit
// at most (debug.SetMaxStack): a call chain that outgrows it kills the copy
// with "goroutine stack exceeds", and the test prints the chain.
func TestRankStack(t *testing.T) {
	if np := os.Getenv("TREELB_RANK_STACK_NP"); np != "" {
		debug.SetMaxStack(rankStackLimit)
		app := newApp()
		app.Writer = io.Discard
		if err := app.Run([]string{"golomb", "--np", np, "-q", "10"}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("runs golomb 10 on 1024 ranks")
	}
	for _, np := range []string{"1024", "2", "1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRankStack$")
		cmd.Env = append(os.Environ(), "TREELB_RANK_STACK_NP="+np)
		out, err := cmd.CombinedOutput()
		if err != nil {
			s := string(out)
			if i := strings.Index(s, "goroutine stack exceeds"); i >= 0 {
				s = s[i:]
			}
			t.Fatalf("golomb --np %s 10 with goroutine stacks of at most %d bytes: %v\n%.6000s", np, rankStackLimit, err, s)
		}
	}
}
