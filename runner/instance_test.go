package runner

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

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
