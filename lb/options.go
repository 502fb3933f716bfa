package lb

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
)

// Options are one balancer's own options. Each registered balancer declares
// a struct type (RPOptions, PSOptions, StaticOptions, …) whose zero value is
// its defaults and whose fields carry their command-line names in a `flag`
// tag; its Factory reads that type from Env.Options and no other. A nil
// Options is the balancer's defaults.
type Options interface {
	// Validate reports a value out of range.
	Validate() error
}

// MaxSplitLevels is the largest number of split levels of static placement:
// the permutations of package lb/perm reach 2^32 leaves.
const MaxSplitLevels = 32

// RPOptions are random polling's (rp).
type RPOptions struct {
	// FastInit broadcasts the root and splits it log P times following the
	// bits of the rank (seed 002, §4.3), instead of starting on rank 0 only.
	FastInit bool `flag:"fast-init"`
	// QueueLimit rejects requests without splitting once more than this
	// many arrived in one polling interval (seed 002, §4.2); 0 means
	// 2·⌈√P⌉.
	QueueLimit int `flag:"queue-limit"`
	// Drain replaces the local rejection by the radical variant of §4.2:
	// a rank whose queue exceeds the queue limit (c·√P, c = 2 by default)
	// interrupts the whole computation until the system holds no request,
	// all of them rejected, then every rank resumes.
	Drain bool `flag:"drain"`
}

// Validate checks the queue limit.
func (o RPOptions) Validate() error { return validQueue(o.QueueLimit) }

// RPLocalOptions are localised random polling's (rp-local); its fast
// initialisation is always on. Radius, Growth and OrderedInit are the
// variants seed 002 (§6.2) reports trying and finding slower than global
// random polling.
type RPLocalOptions struct {
	// QueueLimit is RPOptions.QueueLimit.
	QueueLimit int `flag:"queue-limit"`
	// Radius fixes the neighbour set: an idle rank always asks within this
	// ring distance of itself, and never globally; 0 means the growing set.
	Radius int `flag:"radius"`
	// Growth is the factor by which the neighbour set grows after every
	// request (at least by one rank); 0 means 2, doubling. Values between
	// 1 and 2 grow more slowly.
	Growth float64 `flag:"growth"`
	// OrderedInit gives rank r the fast-initialisation piece r, instead of
	// placing the P pieces by a pseudo-random permutation.
	OrderedInit bool `flag:"ordered-init"`
}

// Validate checks the queue limit, the radius and the growth factor.
func (o RPLocalOptions) Validate() error {
	switch {
	case o.Radius < 0:
		return fmt.Errorf("--radius %d: must not be negative (0: the growing neighbour set)", o.Radius)
	case o.Growth != 0 && !(o.Growth > 1 && o.Growth <= 1<<20):
		return fmt.Errorf("--growth %g: need a factor above 1, at most 2^20 (0: doubling)", o.Growth)
	case o.Radius > 0 && o.Growth != 0:
		return fmt.Errorf("--radius %d and --growth %g: a fixed radius does not grow", o.Radius, o.Growth)
	}
	return validQueue(o.QueueLimit)
}

// PSOptions are poll-and-shuffle's (ps): the refinements of seed 002, §5.3.
type PSOptions struct {
	// FastInit is RPOptions.FastInit.
	FastInit bool `flag:"fast-init"`
	// PairSync synchronises only the pairs after each phase, and all ranks
	// only at the end of a cycle.
	PairSync bool `flag:"pair-sync"`
	// AskLower lets idle ranks also ask along the dimensions j < i of the
	// cycle.
	AskLower bool `flag:"ask-lower"`
	// ShuffleBelow permutes the subproblems after a cycle only when fewer
	// than this fraction of the ranks are busy; 0 always permutes.
	ShuffleBelow float64 `flag:"shuffle-below"`
}

// Validate checks the shuffle fraction.
func (o PSOptions) Validate() error {
	if math.IsNaN(o.ShuffleBelow) || o.ShuffleBelow < 0 || o.ShuffleBelow > 1 {
		return fmt.Errorf("lb: shuffle-below %g: need a fraction from 0 to 1", o.ShuffleBelow)
	}
	return nil
}

// StaticOptions are randomized static load balancing's (static).
type StaticOptions struct {
	// Levels is k, the root split into 2^k leaves; 0 means a default
	// derived from the seeds' bounds (DefaultLevels).
	Levels int `flag:"levels"`
	// Permutation is the pseudo-random permutation of the placement: "gf"
	// (the default, also for "") or "lcg".
	Permutation string `flag:"perm"`
}

// Validate checks the levels and the permutation.
func (o StaticOptions) Validate() error { return validStatic(o.Levels, o.Permutation) }

// HybridOptions are the hybrid balancer's: static placement, then random
// polling within clusters of ranks.
type HybridOptions struct {
	// Levels and Permutation are StaticOptions'.
	Levels      int    `flag:"levels"`
	Permutation string `flag:"perm"`
	// Clusters is the number of clusters of ranks that poll each other;
	// 0 means 1, and more than the ranks one rank a cluster.
	Clusters int `flag:"clusters"`
	// QueueLimit is RPOptions.QueueLimit.
	QueueLimit int `flag:"queue-limit"`
}

// Validate checks every option.
func (o HybridOptions) Validate() error {
	if o.Clusters < 0 {
		return fmt.Errorf("--clusters %d: must not be negative", o.Clusters)
	}
	if err := validQueue(o.QueueLimit); err != nil {
		return err
	}
	return validStatic(o.Levels, o.Permutation)
}

// KOSOOptions are the ring schedulers' (koso, koso-star).
type KOSOOptions struct {
	// FastInit is RPOptions.FastInit.
	FastInit bool `flag:"fast-init"`
}

// Validate accepts every value.
func (KOSOOptions) Validate() error { return nil }

// Compile-time checks that every options type is an Options.
var (
	_ Options = RPOptions{}
	_ Options = RPLocalOptions{}
	_ Options = PSOptions{}
	_ Options = StaticOptions{}
	_ Options = HybridOptions{}
	_ Options = KOSOOptions{}
)

func validQueue(n int) error {
	if n < 0 {
		return fmt.Errorf("lb: queue limit %d: must not be negative", n)
	}
	return nil
}

func validStatic(levels int, perm string) error {
	if levels < 0 || levels > MaxSplitLevels {
		return fmt.Errorf("lb: %d split levels: need 0 (default) to %d", levels, MaxSplitLevels)
	}
	if perm != "" && perm != "gf" && perm != "lcg" {
		return fmt.Errorf("lb: permutation %q: need gf or lcg", perm)
	}
	return nil
}

// optionsOf returns the options of type T in env: the zero value (the
// defaults) when env has none, an error when they are another balancer's.
func optionsOf[T Options](env Env, balancer string) (T, error) {
	var zero T
	switch o := env.Options.(type) {
	case nil:
		return zero, nil
	case T:
		return o, o.Validate()
	default:
		return zero, fmt.Errorf("lb: %s takes options of type %T, not %T", balancer, zero, env.Options)
	}
}

// optionFields returns the settable fields of o's struct type by their
// flag names, in declaration order.
func optionFields(o Options) (reflect.Value, []string, map[string]int) {
	v := reflect.ValueOf(o)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return v, nil, nil
	}
	t := v.Type()
	var names []string
	idx := map[string]int{}
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("flag"); name != "" && t.Field(i).IsExported() {
			names = append(names, name)
			idx[name] = i
		}
	}
	return v, names, idx
}

// OptionNames returns the command-line names of o's options ("fast-init",
// "queue-limit"), in the order its type declares them; none for nil.
func OptionNames(o Options) []string {
	if o == nil {
		return nil
	}
	_, names, _ := optionFields(o)
	return names
}

// HasOption reports whether o has the option called name.
func HasOption(o Options, name string) bool {
	for _, n := range OptionNames(o) {
		if n == name {
			return true
		}
	}
	return false
}

// SetOption returns a copy of o with the option called name set to value,
// written as on a command line ("true", "3", "0.5", "lcg"). It fails when o
// has no such option or value does not parse as its type; it does not
// validate the result (Options.Validate does).
func SetOption(o Options, name, value string) (Options, error) {
	if o == nil {
		return nil, fmt.Errorf("lb: option --%s: no options to set it in", name)
	}
	v, _, idx := optionFields(o)
	i, ok := idx[name]
	if !ok {
		return nil, fmt.Errorf("lb: %T has no option --%s", o, name)
	}
	cp := reflect.New(v.Type()).Elem()
	cp.Set(v)
	f := cp.Field(i)
	switch f.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return nil, fmt.Errorf("lb: option --%s %q: need true or false", name, value)
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || f.OverflowInt(n) {
			return nil, fmt.Errorf("lb: option --%s %q: need an integer", name, value)
		}
		f.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("lb: option --%s %q: need a number", name, value)
		}
		f.SetFloat(x)
	case reflect.String:
		f.SetString(value)
	default:
		return nil, fmt.Errorf("lb: option --%s of unsupported kind %v", name, f.Kind())
	}
	return cp.Interface().(Options), nil
}

// OptionValues returns o's options that differ from their zero values (the
// defaults), by name, written as SetOption reads them; SetOption of each on
// the balancer's zero options gives o back.
func OptionValues(o Options) map[string]string {
	out := map[string]string{}
	if o == nil {
		return out
	}
	v, names, idx := optionFields(o)
	for _, name := range names {
		f := v.Field(idx[name])
		if f.IsZero() {
			continue
		}
		switch f.Kind() {
		case reflect.Bool:
			out[name] = strconv.FormatBool(f.Bool())
		case reflect.Int, reflect.Int64:
			out[name] = strconv.FormatInt(f.Int(), 10)
		case reflect.Float64:
			out[name] = strconv.FormatFloat(f.Float(), 'g', -1, 64)
		case reflect.String:
			out[name] = f.String()
		}
	}
	return out
}

// OptionValue returns the value of o's option called name as OptionValues
// writes it, "" when it is the default, and false when o has no such
// option.
func OptionValue(o Options, name string) (string, bool) {
	if !HasOption(o, name) {
		return "", false
	}
	return OptionValues(o)[name], true
}
