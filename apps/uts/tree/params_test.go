package tree

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDefaults(t *testing.T) {
	p, err := ParseArgs(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Params{Type: Geometric, B: 4, Root: 0, M: 4, Q: 0.234375, Depth: 6, Shape: Linear, Shift: 0.5, Gran: 1}
	if p != want || Defaults() != want {
		t.Errorf("defaults %+v, want %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
}

func TestParseArgs(t *testing.T) {
	p, err := ParseArgs(strings.Fields("-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4 -r 7 -f 0.25 -g 3"))
	if err != nil {
		t.Fatal(err)
	}
	want := Params{Type: Hybrid, B: 6, Root: 7, M: 4, Q: 0.234375, Depth: 16, Shape: Linear, Shift: 0.25, Gran: 3}
	if p != want {
		t.Errorf("got %+v, want %+v", p, want)
	}
	for _, bad := range []string{"-t", "-x 1", "-b four", "-q 0.1x", "t 1", "-tt 1", "-d 1.5"} {
		if _, err := ParseArgs(strings.Fields(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestArgsRoundTrip checks that Args says everything that shapes the tree.
func TestArgsRoundTrip(t *testing.T) {
	for _, s := range Samples() {
		p := s.Params()
		q, err := ParseArgs(p.Args())
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := q.Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		// Parameters that do not matter to the type keep their defaults.
		if q.Type != p.Type || q.B != p.B || q.Root != p.Root {
			t.Errorf("%s: %v → %+v", s.Name, p, q)
		}
		if p.Type != Binomial && (q.Depth != p.Depth || q.Shape != p.Shape) {
			t.Errorf("%s: %v → %+v", s.Name, p, q)
		}
		if p.Type != Geometric && (q.Q != p.Q || q.M != p.M) {
			t.Errorf("%s: %v → %+v", s.Name, p, q)
		}
	}
	if got := Defaults().String(); got != "-t 1 -a 0 -d 6 -b 4 -r 0" {
		t.Errorf("defaults as flags: %q", got)
	}
}

func TestValidate(t *testing.T) {
	bad := map[string]string{
		"-t 4":           "tree type",
		"-t -1":          "tree type",
		"-a 4":           "shape",
		"-a -1":          "shape",
		"-b 0":           "branching factor",
		"-b -2":          "branching factor",
		"-b NaN":         "branching factor",
		"-b +Inf":        "branching factor",
		"-q 1.5":         "probability",
		"-q -0.1":        "probability",
		"-m 0":           "children",
		"-g 0":           "granularity",
		"-f NaN":         "fraction",
		"-t 9 -b 0 -q 2": "tree type",
		"-t 0 -m -3":     "children",
	}
	if strconv.IntSize == 64 {
		bad["-r 2147483648"], bad["-d -2147483649"] = "seed", "depth"
	} else {
		// On 32 bits they do not fit an int: refused as read, not wrapped.
		for _, args := range []string{"-r 2147483648", "-d -2147483649"} {
			if _, err := ParseArgs(strings.Fields(args)); err == nil || !strings.Contains(err.Error(), "out of range") {
				t.Errorf("%s: ParseArgs error %v, want out of range", args, err)
			}
		}
	}
	for args, want := range bad {
		p, err := ParseArgs(strings.Fields(args))
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		err = p.Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one about the %s", args, err, want)
		}
		if _, err := New(p); err == nil {
			t.Errorf("%s: New accepted it", args)
		}
	}
	// Accepted: the extremes the reference accepts.
	for _, args := range []string{"-q 0", "-q 1 -t 0 -m 1", "-r -2147483648", "-d 0", "-d -3", "-m 1000", "-f -1 -t 2", "-b 1e-300"} {
		p, _ := ParseArgs(strings.Fields(args))
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", args, err)
		}
	}
	// Several errors are all reported.
	p, _ := ParseArgs(strings.Fields("-t 9 -b 0 -q 2"))
	if err := p.Validate(); strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("three errors expected: %v", err)
	}
}

func TestSampleTable(t *testing.T) {
	names := SampleNames()
	want := []string{"T1", "T5", "T2", "T3", "T4", "T1L", "T2L", "T3L", "T1XL", "T1XXL", "T3XXL", "T2XXL", "T1WL", "T2WL", "T3WL"}
	if !slices.Equal(names, want) {
		t.Errorf("samples %v, want %v", names, want)
	}
	for _, s := range Samples() {
		if err := s.Params().Validate(); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
	}
	if s, ok := SampleNamed("t3l"); !ok || s.Params().Q != 0.200014 || s.Params().M != 5 {
		t.Errorf("T3L: %+v %v", s, ok)
	}
	if _, ok := SampleNamed("T9"); ok {
		t.Error("T9 found")
	}
}

// TestCountOverflow: parameters whose child counts pass the reference's
// 32-bit int are named (the command warns; the tree stays the
// reference's), the usual ones are not.
func TestCountOverflow(t *testing.T) {
	for args, overflows := range map[string]bool{
		"-t 1 -a 0 -d 3 -b 1e9 -r 1":         true,
		"-t 2 -a 0 -d 3 -b 2e8 -q 0.1 -m 2":  true,
		"-t 0 -b 3e9 -q 0.1 -m 2":            true,
		"-t 0 -b 2000 -q 0.200014 -m 5 -r 7": false, // T3L's
		"-t 1 -a 3 -d 13 -b 4 -r 29":         false, // T1L's
		"-t 1 -a 0 -d 3 -b 1e8 -r 1":         false,
	} {
		p, err := ParseArgs(strings.Fields(args))
		if err != nil {
			t.Fatal(err)
		}
		if got := CountOverflow(p); (got != "") != overflows {
			t.Errorf("%s: %q, want an overflow %v", args, got, overflows)
		}
	}
}
