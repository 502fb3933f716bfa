package tree

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Type is a family of UTS trees, numbered as the reference's -t flag.
type Type int

const (
	// Binomial: the root has ⌊b⌋ children; every other node has m children
	// with probability q and none otherwise.
	Binomial Type = iota
	// Geometric: the number of children is geometric with a mean b_i set
	// by the shape function at the node's depth, at most MaxChildren.
	Geometric
	// Hybrid: geometric above depth f·d, binomial from there on.
	Hybrid
	// Balanced: every node above depth d has ⌊b⌋ children.
	Balanced
)

var typeNames = [...]string{"binomial", "geometric", "hybrid", "balanced"}

// String returns the family's name.
func (t Type) String() string { return enumName(typeNames[:], int(t), "Type") }

// enumName returns names[i], or kind(i) when i is out of range.
func enumName(names []string, i int, kind string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s(%d)", kind, i)
}

// ParseType returns the tree family of a name (binomial, geometric,
// hybrid, balanced, any case) or of its number as the reference's -t.
func ParseType(v string) (Type, error) {
	i, err := parseEnum(typeNames[:], v)
	if err != nil {
		return 0, fmt.Errorf("uts: tree type %q: need 0 (binomial), 1 (geometric), 2 (hybrid) or 3 (balanced)", v)
	}
	return Type(i), nil
}

// parseEnum returns the index of v in names (any case) or v as a number
// that indexes names.
func parseEnum(names []string, v string) (int, error) {
	for i, n := range names {
		if strings.EqualFold(n, v) {
			return i, nil
		}
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 || i >= len(names) {
		return 0, errors.New("unknown")
	}
	return i, nil
}

// Shape is the shape function of geometric trees, numbered as the
// reference's -a flag: it gives the mean number of children b_i at depth
// i ≥ 1 from the root's b_0 = b and the depth parameter d.
type Shape int

const (
	// Linear: b_i = b·(1 − i/d).
	Linear Shape = iota
	// ExpDec: b_i = b·i^(−ln b / ln d).
	ExpDec
	// Cyclic: b_i = b^sin(2πi/d) for i ≤ 5d, then 0.
	Cyclic
	// Fixed: b_i = b for i < d, then 0.
	Fixed
)

var shapeNames = [...]string{"linear", "expdec", "cyclic", "fixed"}

// String returns the shape's name.
func (s Shape) String() string { return enumName(shapeNames[:], int(s), "Shape") }

// ParseShape returns the shape function of a name (linear, expdec,
// cyclic, fixed, any case) or of its number as the reference's -a.
func ParseShape(v string) (Shape, error) {
	i, err := parseEnum(shapeNames[:], v)
	if err != nil {
		return 0, fmt.Errorf("uts: shape %q: need 0 (linear), 1 (expdec), 2 (cyclic) or 3 (fixed)", v)
	}
	return Shape(i), nil
}

// MaxChildren caps the number of children of every node but the root of a
// binomial tree and the nodes of a balanced tree (the reference's
// MAXNUMCHILDREN).
const MaxChildren = 100

// Params are the parameters of a UTS tree. The field comments give the
// reference's flag letter and default; Defaults returns those defaults.
type Params struct {
	Type  Type    // -t: tree family (default Geometric)
	B     float64 // -b: branching factor of the root, b_0 (default 4)
	Root  int     // -r: seed of the root's state (default 0)
	M     int     // -m: Binomial, Hybrid: children of a non-leaf (default 4)
	Q     float64 // -q: Binomial, Hybrid: probability of a non-leaf (default 15/64)
	Depth int     // -d: Geometric, Hybrid, Balanced: depth parameter d, gen_mx (default 6)
	Shape Shape   // -a: Geometric, Hybrid: shape function (default Linear)
	Shift float64 // -f: Hybrid: geometric above depth Shift·Depth (default 0.5)
	Gran  int     // -g: compute granularity, hashes per child (default 1)
}

// Defaults returns the reference's default parameters: a geometric tree of
// linear shape with b = 4, d = 6 and seed 0.
func Defaults() Params {
	return Params{Type: Geometric, B: 4, Root: 0, M: 4, Q: 15.0 / 64.0, Depth: 6, Shape: Linear, Shift: 0.5, Gran: 1}
}

// Validate reports the first parameter that the reference rejects (a type
// other than 0–3, a shape other than 0–3) or that makes no tree: b ≤ 0 or
// not finite, q outside [0, 1], m < 1, a granularity below 1, a seed,
// depth or m outside the 32-bit range of the reference's C ints, or a
// non-finite f. (The reference clamps -g to at least 1; an explicit value
// below 1 is an error here.)
func (p Params) Validate() error {
	var errs []error
	if p.Type < Binomial || p.Type > Balanced {
		errs = append(errs, fmt.Errorf("-t %d: tree type must be 0 (binomial), 1 (geometric), 2 (hybrid) or 3 (balanced) (--tree-type)", int(p.Type)))
	}
	if p.Shape < Linear || p.Shape > Fixed {
		errs = append(errs, fmt.Errorf("-a %d: shape must be 0 (linear), 1 (expdec), 2 (cyclic) or 3 (fixed) (--shape)", int(p.Shape)))
	}
	if !(p.B > 0) || math.IsInf(p.B, 0) {
		errs = append(errs, fmt.Errorf("-b %v: branching factor must be positive and finite (--branching)", p.B))
	}
	if !(p.Q >= 0 && p.Q <= 1) {
		errs = append(errs, fmt.Errorf("-q %v: probability must be in [0, 1] (--prob)", p.Q))
	}
	if p.M < 1 || p.M > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("-m %d: children of a non-leaf must be in 1..%d (--children)", p.M, math.MaxInt32))
	}
	if p.Root < math.MinInt32 || p.Root > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("-r %d: seed must be a signed 32-bit integer, %d..%d (--root-seed)", p.Root, math.MinInt32, math.MaxInt32))
	}
	if p.Depth < math.MinInt32 || p.Depth > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("-d %d: depth must fit in 32 bits (--depth)", p.Depth))
	}
	if math.IsNaN(p.Shift) || math.IsInf(p.Shift, 0) {
		errs = append(errs, fmt.Errorf("-f %v: fraction must be finite (--shift-depth)", p.Shift))
	}
	if p.Gran < 1 || p.Gran > math.MaxInt32 {
		errs = append(errs, fmt.Errorf("-g %d: granularity must be in 1..%d (--granularity)", p.Gran, math.MaxInt32))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("uts: %w", err)
	}
	return nil
}

// CountOverflow says, for parameters that Validate accepts, when child
// counts pass the reference's 32-bit int, which the tree reproduces as the
// reference computes it (a count that wraps is a leaf): a root branching
// factor of 2^31 or more, or a geometric (or hybrid) tree's mean b above
// 10⁸, whose counts drawn with that mean pass 2^31 with probability about
// exp(−2^31/b), one node in eight at b = 10⁹. It returns "" otherwise.
func CountOverflow(p Params) string {
	switch {
	case p.B >= 1<<31:
		return fmt.Sprintf("-b %v: the root's child count passes the reference's 32-bit int, which makes the root a leaf, as the reference does", p.B)
	case (p.Type == Geometric || p.Type == Hybrid) && p.B > 1e8:
		return fmt.Sprintf("-b %v: child counts drawn with that mean pass the reference's 32-bit int (about %.2g of the nodes), and those nodes are leaves, as in the reference", p.B, math.Exp(-(1<<31)/p.B))
	}
	return ""
}

// ParseArgs parses the reference's command-line parameters, pairs of a
// flag (-t -b -r -m -q -d -a -f -g) and a value, onto Defaults; a later
// pair overrides an earlier one, as in the reference. Numbers must be
// complete (the reference's atoi and atof ignore trailing garbage). The
// result is not validated.
func ParseArgs(args []string) (Params, error) {
	p := Defaults()
	err := p.SetArgs(args)
	return p, err
}

// SetArgs sets the parameters of the reference's command-line flags, pairs
// of a flag and a value as for ParseArgs, leaving the others as they are.
// It stops at the first bad pair; the result is not validated.
func (p *Params) SetArgs(args []string) error {
	for i := 0; i < len(args); i += 2 {
		f := args[i]
		if len(f) != 2 || f[0] != '-' {
			return fmt.Errorf("uts: %q: expected a flag -t -b -r -m -q -d -a -f or -g", f)
		}
		if i+1 == len(args) {
			return fmt.Errorf("uts: %s: missing value", f)
		}
		if err := p.Set(f[1], args[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// Set sets the parameter of the reference's flag letter c from its text
// value v.
func (p *Params) Set(c byte, v string) error {
	var err error
	var n int64
	switch c {
	case 'b', 'q', 'f':
		var x float64
		x, err = strconv.ParseFloat(v, 64)
		switch c {
		case 'b':
			p.B = x
		case 'q':
			p.Q = x
		default:
			p.Shift = x
		}
	case 't', 'r', 'm', 'd', 'a', 'g':
		// An int's size: on 32 bits a larger value is out of range, not
		// wrapped into a valid one.
		n, err = strconv.ParseInt(v, 10, strconv.IntSize)
		switch c {
		case 't':
			p.Type = Type(n)
		case 'r':
			p.Root = int(n)
		case 'm':
			p.M = int(n)
		case 'd':
			p.Depth = int(n)
		case 'a':
			p.Shape = Shape(n)
		default:
			p.Gran = int(n)
		}
	default:
		return fmt.Errorf("uts: unknown flag -%c", c)
	}
	if err != nil {
		want := "an integer"
		if c == 'b' || c == 'q' || c == 'f' {
			want = "a number"
		}
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("uts: -%c %s: out of range", c, v)
		}
		return fmt.Errorf("uts: -%c %q: need %s", c, v, want)
	}
	return nil
}

// Args returns the parameters as reference flags, only those that shape
// the tree of this type (and -g when not 1): ParseArgs(p.Args()) gives a
// tree equal to p's.
func (p Params) Args() []string {
	a := []string{"-t", strconv.Itoa(int(p.Type))}
	f := func(c string, x float64) { a = append(a, c, strconv.FormatFloat(x, 'g', -1, 64)) }
	i := func(c string, x int) { a = append(a, c, strconv.Itoa(x)) }
	if p.Type == Geometric || p.Type == Hybrid {
		i("-a", int(p.Shape))
	}
	if p.Type != Binomial {
		i("-d", p.Depth)
	}
	f("-b", p.B)
	if p.Type == Binomial || p.Type == Hybrid {
		f("-q", p.Q)
		i("-m", p.M)
	}
	if p.Type == Hybrid {
		f("-f", p.Shift)
	}
	i("-r", p.Root)
	if p.Gran != 1 {
		i("-g", p.Gran)
	}
	return a
}

// String returns Args joined by spaces.
func (p Params) String() string { return strings.Join(p.Args(), " ") }
