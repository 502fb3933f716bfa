package runner

import (
	"fmt"
	"io"
	"os"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/treelb/treelb/lb"
)

// progressPrinter prints rank 0's progress lines: elapsed time, nodes so far
// on all ranks, nodes per second, busy ranks and the incumbent, from the
// snapshots the running balancers report (lb.Config.Progress). On a
// terminal it rewrites one line, cut to the terminal's width so that it
// never wraps; elsewhere (--progress into a file) it prints a line per
// snapshot. It belongs to rank 0's goroutine.
type progressPrinter struct {
	w io.Writer
	// width returns the terminal's width in columns (0: unknown); nil
	// when w is no terminal.
	width     func() int
	start     time.Time
	last      lb.Progress
	printed   bool      // a line is on the screen since the last final one
	lastPrint time.Time // when the last line was printed
}

// progressEvery is the least time between two progress lines.
const progressEvery = time.Second

// IsTerminal reports whether f is a terminal (golang.org/x/term; /dev/null,
// a character device too, is none).
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// terminalWidth returns the width of the terminal f in columns, 0 when f
// is no terminal or does not say.
func terminalWidth(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w < 0 {
		return 0
	}
	return w
}

// fit cuts line to fewer than width characters, so that it leaves the
// cursor on the terminal's line (a line as wide as the terminal wraps on
// some terminals); width 0 is unknown and cuts nothing.
func fit(line string, width int) string {
	if width <= 1 || utf8.RuneCountInString(line) < width {
		return line
	}
	n := 0
	for i := range line {
		if n == width-1 {
			return line[:i]
		}
		n++
	}
	return line
}

// report prints a snapshot, unless a line was printed less than
// progressEvery ago.
func (p *progressPrinter) report(s lb.Progress) {
	p.last = s
	if now := time.Now(); now.Sub(p.lastPrint) >= progressEvery {
		p.lastPrint = now
		p.print(false)
	}
}

func (p *progressPrinter) print(final bool) {
	elapsed := time.Since(p.start).Seconds()
	line := fmt.Sprintf("[%7.1fs] nodes %d (%.3g/s)", elapsed, p.last.Nodes, float64(p.last.Nodes)/max(elapsed, 1e-9))
	if !final {
		line += fmt.Sprintf(", %d of %d ranks busy", p.last.Busy, p.last.Ranks)
	}
	if p.last.HasBound {
		line += fmt.Sprintf(", bound %d", p.last.Incumbent)
	}
	p.printed = true
	switch {
	case p.width != nil && final:
		fmt.Fprintf(p.w, "\r%s\033[K\n", fit(line, p.width()))
	case p.width != nil:
		fmt.Fprintf(p.w, "\r%s\033[K", fit(line, p.width()))
	default:
		fmt.Fprintln(p.w, line)
	}
}

// finish prints the last line, the totals so far, before a result is
// printed, when any line was printed since the last result.
func (p *progressPrinter) finish() {
	if p.printed {
		p.print(true)
		p.printed = false
	}
}

// Config returns the run configuration of the flags, with progress reports
// on rank 0 when they are on (--progress, or stderr a terminal and no -q),
// and with --checkpoint and --restart the checkpoint poll and the search to
// resume (Run.Resume).
func (r *Run) Config() lb.Config {
	cfg := r.Common.Config()
	if r.progress != nil {
		cfg.Progress = r.progress.report
	}
	if r.ckpt != nil {
		cfg.Resume = r.ckpt.resume
		switch {
		case r.ckpt.file == "" && !r.ckpt.limited():
		case r.Rank() == 0:
			cfg.CheckpointDue = r.ckpt.due
		case r.WorldName() == "mpi" && r.ckpt.file != "":
			// A signal that reached this rank's process alone (kill on a
			// compute node, scancel --signal to one task) suspends the
			// search too: the suspension spreads from any rank, and rank 0
			// learns of the signal (solveCheckpointed). The embedded
			// world's ranks share rank 0's flag.
			cfg.CheckpointDue = r.ckpt.signal.Load
		}
		if r.ckpt.maxNodes > 0 && r.Rank() == 0 {
			// The nodes of every rank reach rank 0 in progress snapshots:
			// a few a second, fewer on many ranks (a snapshot costs a
			// message up and down every edge of a tree over the ranks).
			k, show := r.ckpt, cfg.Progress
			cfg.Progress = func(p lb.Progress) {
				k.nodes = p.Nodes
				if show != nil {
					show(p)
				}
			}
			cfg.ProgressEvery = limitPoll + time.Duration(r.Ranks())*limitPollPerRank
		}
	}
	return cfg
}

// The period of the progress snapshots that --max-nodes reads: limitPoll,
// and limitPollPerRank more per rank.
const (
	limitPoll        = 100 * time.Millisecond
	limitPollPerRank = 10 * time.Microsecond
)

// CountProgress returns a progress callback for work counted in units (runs,
// instances): each call prints "name: done/total units (percent), elapsed"
// on w, a line each (callers call it about once a second).
func CountProgress(w io.Writer, name, units string) func(done, total int) {
	if w == nil {
		w = os.Stderr
	}
	start := time.Now()
	return func(done, total int) {
		fmt.Fprintf(w, "%s: %d/%d %s (%.0f%%), %.1f s\n", name, done, total, units, 100*float64(done)/float64(max(total, 1)), time.Since(start).Seconds())
	}
}
