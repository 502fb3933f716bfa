package cmdtest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/treelb/treelb/lb"
)

// TestOptionFlags: every field of lb.Options, set alone, gives a flag, so
// that Invariant runs every variant with its own options; and the flags are
// the command line's names.
func TestOptionFlags(t *testing.T) {
	typ := reflect.TypeFor[lb.Options]()
	for i := range typ.NumField() {
		var o lb.Options
		f := reflect.ValueOf(&o).Elem().Field(i)
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int:
			f.SetInt(3)
		case reflect.Float64:
			f.SetFloat(0.5)
		case reflect.String:
			f.SetString("lcg")
		default:
			t.Fatalf("field %s of kind %v", typ.Field(i).Name, f.Kind())
		}
		flags := OptionFlags(o)
		if len(flags) == 0 || !strings.HasPrefix(flags[0], "--") {
			t.Errorf("lb.Options.%s set: flags %q", typ.Field(i).Name, flags)
		}
	}
	if got := OptionFlags(lb.Options{}); len(got) != 0 {
		t.Errorf("the zero options: %q", got)
	}
}
