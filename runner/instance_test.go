package runner

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

//lint:ignore U1000 the field is unexported on purpose: MarshalBinary, not gob, encodes the type
type selfEncoded struct{ hidden int }

func (selfEncoded) MarshalBinary() ([]byte, error) { return nil, nil }

func TestCheckInstanceType(t *testing.T) {
	type inner struct {
		A int
		b []int //lint:ignore U1000 unexported on purpose: checkInstanceType must refuse it
	}
	type ok struct {
		X    float64
		S    []string
		M    map[string][]int
		Self selfEncoded
		P    *ok
	}
	type bad struct {
		Target int64
		items  []int64 //lint:ignore U1000 unexported on purpose: checkInstanceType must refuse it
	}
	type nested struct {
		Parts []inner
	}
	if err := checkInstanceType(reflect.TypeFor[ok]()); err != nil {
		t.Errorf("exported fields: %v", err)
	}
	if err := checkInstanceType(reflect.TypeFor[[]int]()); err != nil {
		t.Errorf("a slice: %v", err)
	}
	for _, c := range []struct {
		name  string
		err   error
		field string
	}{
		{"bad", checkInstanceType(reflect.TypeFor[bad]()), "items"},
		{"nested", checkInstanceType(reflect.TypeFor[nested]()), "b"},
		{"slice of bad", checkInstanceType(reflect.TypeFor[[]bad]()), "items"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), "unexported field "+c.field+" ") {
			t.Errorf("%s: %v, want the unexported field %s named", c.name, c.err, c.field)
		}
	}
}

// TestActionUnexportedInstance: an instance type that would lose a field
// on its way to the other ranks ends the command with ExitInternal and a
// message naming the field, in every world, before anything is read.
func TestActionUnexportedInstance(t *testing.T) {
	type lossy struct {
		Target int64
		items  []int64
	}
	spec := Spec[lossy]{
		App: "t",
		Read: func(*cli.Context, Common) (lossy, error) {
			t.Error("Read ran")
			return lossy{Target: 1, items: []int64{1}}, nil
		},
		Solve: func(*Run, lossy) error { return nil },
	}
	for _, args := range [][]string{{"x"}, {"-b", "seq", "x"}, {"--world", "sim", "--np", "8", "x"}} {
		app := testApp(Action(spec))
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		code := Execute(app, append([]string{"t"}, args...))
		if code != ExitInternal || !strings.Contains(out.String(), "unexported field items") {
			t.Errorf("%v: exit %d, %q; want %d and the field named", args, code, out.String(), ExitInternal)
		}
	}
}
