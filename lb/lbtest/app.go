package lbtest

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/treelb/treelb/lb"
)

// AppOptions says what TestApp may expect of an app.
type AppOptions struct {
	// Exhaustive says that the app's search visits the same nodes however
	// it is split, worked and moved (no pruning by an incumbent that
	// depends on the order, no early stop): TestApp then checks that the
	// nodes of the parts of every split add up to the whole's.
	Exhaustive bool
	// MaxNodes bounds the nodes TestApp works in all (0: 10⁷); the root's
	// search should hold fewer than a tenth of them, so that every check
	// runs to the end.
	MaxNodes int64
	// Overshoot is how many nodes more than its budget a Work may expand
	// (Task.Work: "at most about budget"), as an app that works in
	// batches documents it; 0 holds Work to its budget.
	Overshoot int64
	// NoHalving says that the app's fresh tasks may refuse to split (a
	// task holding one node that is not split before it is expanded):
	// the halving check then only checks that the parts cover the root.
	// Static placement, hybrid and fast initialisation leave ranks
	// without work on such an app.
	NoHalving bool
	// Result, when set, checks the apps' results (lb.Reducer): after the
	// work, split and halving checks it compares the result of the App
	// that searched the root alone with those of the Apps that searched
	// its parts (SameResult builds one). Node counts cannot see a result
	// counted twice, lost in an encoding or combined wrongly; this can.
	Result ResultCheck
}

// ResultCheck compares results: whole is the App that searched the root
// alone, parts the Apps that searched the root's parts in one of
// TestApp's checks, in the order they were made (the first made the root;
// the others decoded pieces that travelled). It returns an error that says
// how they differ.
type ResultCheck func(whole lb.App, parts []lb.App) error

// SameResult returns a ResultCheck for Apps that are lb.Reducer[R]: the
// results of the parts, combined by Combine, must equal the whole's.
// equal compares them (nil: reflect.DeepEqual); give one that leaves out
// what may differ with the splits, such as a count of replayed nodes or
// the rounding of a floating-point sum taken in another order
// (skeleton.SameOptimum for an Optimisation's). R must be a type lb.Run
// takes (lb.CheckResult), or the check fails.
func SameResult[R any](equal func(whole, parts R) bool) ResultCheck {
	return func(whole lb.App, parts []lb.App) error {
		if err := lb.CheckResult[R](); err != nil {
			return fmt.Errorf("SameResult: %w (lb.Run refuses it)", err)
		}
		w, ok := whole.(lb.Reducer[R])
		if !ok {
			return fmt.Errorf("SameResult: the app %T is no lb.Reducer[%T]", whole, *new(R))
		}
		want := w.Result()
		var got R
		for i, a := range parts {
			r, ok := a.(lb.Reducer[R])
			if !ok {
				return fmt.Errorf("SameResult: the app %T is no lb.Reducer[%T]", a, *new(R))
			}
			if i == 0 {
				got = r.Result()
			} else {
				got = w.Combine(got, r.Result())
			}
		}
		if equal == nil && reflect.DeepEqual(want, got) || equal != nil && equal(want, got) {
			return nil
		}
		return fmt.Errorf("the results of the %d apps that searched the parts combine to %+v, the root's search alone gives %+v", len(parts), got, want)
	}
}

// TestApp checks that newApp's tasks keep the promises of lb.Task, as
// testing/fstest.TestFS checks a file system; each check is a subtest of t.
// newApp returns a new App of one small instance, one per simulated rank
// (the checks move tasks between them):
//
//   - work: Work(b) expands at most b nodes (b + AppOptions.Overshoot), 0
//     only when the task is Empty (or b is 0), and an Empty task stays
//     Empty and works nothing;
//   - split: a piece Split returns (or SplitEven, for an
//     lb.EvenSplitter, at random instead) is not Empty when it is not nil,
//     an Empty task does not split, and, for exhaustive searches, the parts
//     of every split made anywhere in the search (the root's, pieces' of
//     pieces, between slices of random sizes, each piece and each kept
//     part moved to another rank at random) hold exactly the root's
//     nodes: the parts are disjoint and cover it;
//   - halving: Split keeps succeeding on fresh tasks, as static
//     placement, hybrid and fast initialisation split the root and its
//     parts without working them (six times deep: a fresh part of 64
//     nodes or more must split, unless AppOptions.NoHalving), and for
//     exhaustive searches the parts hold the root's nodes;
//   - encoding: AppendBinary appends to its argument, and a task decoded
//     by another rank's App (Unmarshal) encodes to the same bytes, works
//     the same nodes (exhaustive) and splits the same;
//   - halve: when tasks are lb.Halvers, Halve(true) leaves the piece Split
//     gives and Halve(false) what Split keeps (their encodings), and
//     Reroot makes a task the root again;
//   - results, when AppOptions.Result is set: in the work, split and
//     halving checks, the results of the apps that searched the parts
//     agree with the root's search alone (AppOptions.Result says how).
func TestApp(t *testing.T, newApp func() lb.App, opt AppOptions) {
	t.Helper()
	c, err := newAppCheck(newApp, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, ck := range c.checks() {
		t.Run(ck.name, func(t *testing.T) {
			if err := ck.run(); errors.Is(err, errSkip) {
				t.Skip(err)
			} else if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// CheckApp runs TestApp's checks and returns what they found, all of it
// (nil when the app keeps every promise).
func CheckApp(newApp func() lb.App, opt AppOptions) error {
	c, err := newAppCheck(newApp, opt)
	if err != nil {
		return err
	}
	var errs []error
	for _, ck := range c.checks() {
		if err := ck.run(); err != nil && !errors.Is(err, errSkip) {
			errs = append(errs, fmt.Errorf("%s: %w", ck.name, err))
		}
	}
	return errors.Join(errs...)
}

// overshot explains a Work that expanded k nodes, more than its budget b
// and the overshoot o that AppOptions allows.
func overshot(k, b, o int64) string {
	if k <= b+o {
		return ""
	}
	return fmt.Sprintf(", more than its budget and the %d nodes more that AppOptions.Overshoot allows (an app that works in batches says how far it may go beyond a budget)", o)
}

// errSkip is a check that does not apply.
var errSkip = errors.New("does not apply")

type appCheck struct {
	newApp func() lb.App
	opt    AppOptions
	total  int64  // the root's nodes
	whole  lb.App // the app that searched the root alone
	made   []lb.App
}

// app returns a new App, which the check's results (sameResult) include.
func (c *appCheck) app() lb.App {
	a := c.newApp()
	c.made = append(c.made, a)
	return a
}

// sameResult checks the results of the apps made since the last call
// against the root's alone (AppOptions.Result), and forgets them.
func (c *appCheck) sameResult(what string) error {
	made := c.made
	c.made = nil
	if c.opt.Result == nil {
		return nil
	}
	if err := c.opt.Result(c.whole, made); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func newAppCheck(newApp func() lb.App, opt AppOptions) (*appCheck, error) {
	if opt.MaxNodes <= 0 {
		opt.MaxNodes = 1e7
	}
	if newApp == nil {
		return nil, errors.New("newApp is nil")
	}
	c := &appCheck{newApp: newApp, opt: opt, whole: newApp()}
	if c.whole == nil {
		return nil, errors.New("newApp returned a nil App")
	}
	total, err := c.work1000(c.whole.Root())
	if err != nil {
		return nil, fmt.Errorf("working the root: %w", err)
	}
	if total == 0 {
		return nil, errors.New("the root's search expands no node: give TestApp an instance with work")
	}
	if opt.Exhaustive && 10*total > opt.MaxNodes {
		return nil, fmt.Errorf("the root holds %d nodes, more than a tenth of MaxNodes %d: give a smaller instance", total, opt.MaxNodes)
	}
	c.total = total
	return c, nil
}

// checks returns the checks in their order; each starts with no app made
// (a check that failed left its apps, which the next one's results must
// not count).
func (c *appCheck) checks() []struct {
	name string
	run  func() error
} {
	fresh := func(check func() error) func() error {
		return func() error { c.made = nil; return check() }
	}
	return []struct {
		name string
		run  func() error
	}{{"work", fresh(c.work)}, {"split", fresh(c.split)}, {"halving", fresh(c.halving)}, {"encoding", fresh(c.encoding)}, {"halve", fresh(c.halve)}}
}

// work1000 works t to the end in slices of 1000 nodes and returns its
// nodes, failing on a slice that breaks Work's promises.
func (c *appCheck) work1000(t lb.Task) (int64, error) {
	var n int64
	for !t.Empty() {
		k := t.Work(1000)
		if k < 0 || k > 1000+c.opt.Overshoot {
			return n, fmt.Errorf("Work(1000) returned %d%s", k, overshot(k, 1000, c.opt.Overshoot))
		}
		if k == 0 && !t.Empty() {
			return n, fmt.Errorf("Work(1000) expanded nothing of a task that is not Empty")
		}
		if n += k; n > c.opt.MaxNodes {
			return n, fmt.Errorf("more than %d nodes", c.opt.MaxNodes)
		}
	}
	if k := t.Work(1000); k != 0 {
		return n, fmt.Errorf("an Empty task worked %d nodes", k)
	}
	if !t.Empty() {
		return n, fmt.Errorf("an Empty task is not Empty after Work")
	}
	if p := t.Split(); p != nil && !p.Empty() {
		return n, fmt.Errorf("an Empty task split off a piece with work")
	}
	return n, nil
}

func (c *appCheck) work() error {
	for _, b := range []int64{1, 7, 1000} {
		task := c.app().Root()
		var n int64
		for !task.Empty() && n < c.opt.MaxNodes {
			k := task.Work(b)
			if k < 0 || k > b+c.opt.Overshoot {
				return fmt.Errorf("Work(%d) returned %d%s", b, k, overshot(k, b, c.opt.Overshoot))
			}
			if k == 0 && !task.Empty() {
				return fmt.Errorf("Work(%d) expanded nothing of a task that is not Empty, after %d nodes", b, n)
			}
			n += k
		}
		if k := task.Work(0); k < 0 || k > c.opt.Overshoot {
			return fmt.Errorf("Work(0) returned %d", k)
		}
		if c.opt.Exhaustive && n != c.total {
			return fmt.Errorf("slices of %d nodes: %d nodes, slices of 1000: %d", b, n, c.total)
		}
		if err := c.sameResult(fmt.Sprintf("slices of %d nodes", b)); err != nil {
			return err
		}
	}
	return nil
}

// split splits the root at random moments into a tree of pieces, each
// worked for random slices, and checks that the parts cover the root.
func (c *appCheck) split() error {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 0x5b1f))
		var nodes int64
		splits := 0
		pending := []lb.Task{c.app().Root()}
		for len(pending) > 0 {
			task := pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			for !task.Empty() {
				b := 1 + rng.Int64N(max(1, c.total/8))
				if rng.IntN(4) == 0 {
					b = 1 + rng.Int64N(4) // a few nodes: splits in every state a task passes through
				}
				k := task.Work(b)
				if k < 0 || k > b+c.opt.Overshoot {
					// After splits too: a piece's first Work may owe the
					// nodes above its work (AppOptions.Overshoot); it was
					// checked on unsplit roots alone.
					return fmt.Errorf("seed %d: Work(%d) of a split task returned %d%s", seed, b, k, overshot(k, b, c.opt.Overshoot))
				}
				nodes += k
				if nodes > c.opt.MaxNodes {
					return fmt.Errorf("seed %d: more than %d nodes", seed, c.opt.MaxNodes)
				}
				if rng.IntN(2) == 0 {
					continue
				}
				empty := task.Empty()
				var p lb.Task
				if e, ok := task.(lb.EvenSplitter); ok && rng.IntN(2) == 0 {
					p = e.SplitEven() // poll-and-shuffle's split
				} else {
					p = task.Split()
				}
				var err error
				if p == nil {
					continue
				}
				if empty {
					return fmt.Errorf("seed %d: an Empty task split", seed)
				}
				if p.Empty() {
					return fmt.Errorf("seed %d: Split returned an Empty piece (return nil instead)", seed)
				}
				splits++
				if rng.IntN(2) == 0 {
					// The piece travels to another rank.
					if p, err = c.travel(p); err != nil {
						return fmt.Errorf("seed %d: a piece: %v", seed, err)
					}
				}
				if rng.IntN(2) == 0 {
					// So does what the task kept, as a checkpoint stores
					// it: with the nodes a split in place owes.
					if task, err = c.travel(task); err != nil {
						return fmt.Errorf("seed %d: the part a split kept: %v", seed, err)
					}
				}
				pending = append(pending, p)
			}
		}
		if c.opt.Exhaustive && nodes != c.total {
			return fmt.Errorf("seed %d: %d splits, the parts hold %d nodes, the root %d", seed, splits, nodes, c.total)
		}
		if seed == 0 && splits == 0 {
			return fmt.Errorf("the root's search never split")
		}
		if err := c.sameResult(fmt.Sprintf("seed %d, %d splits", seed, splits)); err != nil {
			return err
		}
	}
	return nil
}

// travel returns t as another rank decodes it.
func (c *appCheck) travel(t lb.Task) (lb.Task, error) {
	b, err := t.AppendBinary(nil)
	if err != nil {
		return nil, fmt.Errorf("encoding: %v", err)
	}
	if t, err = c.app().Unmarshal(b); err != nil {
		return nil, fmt.Errorf("decoding: %v", err)
	}
	return t, nil
}

// halvingDepth is how deep halving splits fresh tasks: 64 pieces, the
// static placement of 64 ranks.
const halvingDepth = 6

// halvingMin is the fewest nodes a fresh task must hold for halving to
// require that it splits.
const halvingMin = 64

// halving splits the fresh root, and every part of it, halvingDepth times
// without working, as static placement, hybrid and fast initialisation
// do: a fresh task of halvingMin nodes or more must split, or those
// balancers leave ranks without work; for exhaustive searches the parts
// must hold the root's nodes.
func (c *appCheck) halving() error {
	parts := []lb.Task{c.app().Root()}
	var nodes int64 // of the parts that did not split
	for d := range halvingDepth {
		var next []lb.Task
		for _, t := range parts {
			if t.Empty() {
				continue
			}
			p := t.Split()
			if p == nil {
				n, err := c.work1000(t)
				if err != nil {
					return fmt.Errorf("a fresh part at depth %d: %v", d, err)
				}
				if n >= halvingMin && !c.opt.NoHalving {
					return fmt.Errorf("Split of a fresh part of %d nodes at depth %d returned nil: static placement, hybrid and fast initialisation would leave ranks without work (expand a task with one child in place and owe the node)", n, d)
				}
				nodes += n
				continue
			}
			if p.Empty() {
				return fmt.Errorf("depth %d: Split returned an Empty piece (return nil instead)", d)
			}
			next = append(next, p, t)
		}
		if parts = next; len(parts) == 0 {
			break
		}
	}
	for _, t := range parts {
		n, err := c.work1000(t)
		if err != nil {
			return fmt.Errorf("a part of the halved root: %v", err)
		}
		nodes += n
	}
	if c.opt.Exhaustive && nodes != c.total {
		return fmt.Errorf("the %d parts of the halved root hold %d nodes, the root %d", len(parts), nodes, c.total)
	}
	return c.sameResult(fmt.Sprintf("the %d parts of the halved root", len(parts)))
}

// encoding checks AppendBinary and Unmarshal at several moments of the
// search.
func (c *appCheck) encoding() error {
	task := c.newApp().Root()
	prefix := []byte("prefix")
	var done int64 // the nodes worked off the root: by task and in its split pieces
	for step := 0; !task.Empty() && step < 50; step++ {
		b, err := task.AppendBinary(bytes.Clone(prefix))
		if err != nil {
			return fmt.Errorf("step %d: AppendBinary: %v", step, err)
		}
		if !bytes.HasPrefix(b, prefix) {
			return fmt.Errorf("step %d: AppendBinary did not append", step)
		}
		b = b[len(prefix):]
		other, err := c.newApp().Unmarshal(bytes.Clone(b))
		if err != nil {
			return fmt.Errorf("step %d: Unmarshal: %v", step, err)
		}
		again, err := other.AppendBinary(nil)
		if err != nil {
			return fmt.Errorf("step %d: AppendBinary of a decoded task: %v", step, err)
		}
		if !bytes.Equal(again, b) {
			return fmt.Errorf("step %d: a decoded task encodes to %x, the original to %x", step, again, b)
		}
		if other.Empty() != task.Empty() {
			return fmt.Errorf("step %d: decoded Empty %v, original %v", step, other.Empty(), task.Empty())
		}
		// Both split alike.
		p, q := task.Split(), other.Split()
		if (p == nil) != (q == nil) {
			return fmt.Errorf("step %d: the original split %v, the decoded %v", step, p != nil, q != nil)
		}
		if p != nil {
			pb, err1 := p.AppendBinary(nil)
			qb, err2 := q.AppendBinary(nil)
			if err1 != nil || err2 != nil || !bytes.Equal(pb, qb) {
				return fmt.Errorf("step %d: the pieces of the original and the decoded differ: %x, %x", step, pb, qb)
			}
			// Put the piece back by working it, so that nodes add up.
			n, err := c.work1000(p)
			if err != nil {
				return fmt.Errorf("step %d: a piece: %v", step, err)
			}
			done += n
		}
		if c.opt.Exhaustive && step&(step-1) == 0 { // steps 0, 1, 2, 4, 8, …
			// A decoding of the task works the nodes the original has
			// left: the root's less those worked so far.
			tb, err := task.AppendBinary(nil)
			if err != nil {
				return fmt.Errorf("step %d: AppendBinary: %v", step, err)
			}
			x, err := c.newApp().Unmarshal(tb)
			if err != nil {
				return fmt.Errorf("step %d: Unmarshal: %v", step, err)
			}
			n, err := c.work1000(x)
			if err != nil {
				return fmt.Errorf("step %d: the decoded task: %v", step, err)
			}
			if n != c.total-done {
				return fmt.Errorf("step %d: the decoded task works %d nodes, the original has %d left of the root's %d", step, n, c.total-done, c.total)
			}
		}
		done += task.Work(1 + c.total/40)
	}
	return nil
}

// halve checks Halve against Split, and Reroot, for Halvers.
func (c *appCheck) halve() error {
	if _, ok := c.newApp().Root().(lb.Halver); !ok {
		return fmt.Errorf("the tasks are no lb.Halver: %w", errSkip)
	}
	app := c.newApp()
	task := app.Root()
	rootEnc, err := task.AppendBinary(nil)
	if err != nil {
		return err
	}
	var failed error
	clone := func(x lb.Task) lb.Halver {
		b, err := x.AppendBinary(nil)
		if err == nil {
			var y lb.Task
			if y, err = c.newApp().Unmarshal(b); err == nil {
				if h, ok := y.(lb.Halver); ok {
					return h
				}
				err = fmt.Errorf("a decoded task %T is no lb.Halver", y)
			}
		}
		failed = cmp.Or(failed, err)
		return x.(lb.Halver)
	}
	enc := func(x lb.Task) []byte {
		b, err := x.AppendBinary(nil)
		failed = cmp.Or(failed, err)
		return b
	}
	for step := 0; step < 40; step++ {
		give, keep := clone(task), clone(task)
		p := task.Split()
		if failed != nil {
			return failed
		}
		g, k := give.Halve(true), keep.Halve(false)
		if g != (p != nil) || k != (p != nil) {
			return fmt.Errorf("step %d: Split gave %v, Halve(true) reports %v, Halve(false) %v", step, p != nil, g, k)
		}
		if p != nil && !bytes.Equal(enc(give), enc(p)) {
			return fmt.Errorf("step %d: Halve(true) left %x, Split gave %x", step, enc(give), enc(p))
		}
		if !bytes.Equal(enc(keep), enc(task)) {
			return fmt.Errorf("step %d: Halve(false) left %x, Split kept %x", step, enc(keep), enc(task))
		}
		if p == nil && task.Empty() {
			break
		}
		task.Work(1 + c.total/60)
	}
	h := task.(lb.Halver)
	h.Reroot()
	if got := enc(h); !bytes.Equal(got, rootEnc) {
		return fmt.Errorf("Reroot: %x, the root %x", got, rootEnc)
	}
	if c.opt.Exhaustive {
		n, err := c.work1000(h)
		if err != nil {
			return fmt.Errorf("a rerooted task: %v", err)
		}
		if n != c.total {
			return fmt.Errorf("a rerooted task works %d nodes, the root %d", n, c.total)
		}
	}
	return nil
}
