package gobcheck

import (
	"reflect"
	"strings"
	"testing"
)

//lint:ignore U1000 the field is unexported on purpose: MarshalBinary, not gob, encodes the type
type selfEncoded struct{ hidden int }

func (selfEncoded) MarshalBinary() ([]byte, error) { return nil, nil }

// TestExported: fields that gob would drop are found anywhere in a type,
// and a type that encodes itself is left alone.
func TestExported(t *testing.T) {
	type inner struct {
		A int
		b []int //lint:ignore U1000 unexported on purpose: Exported must refuse it
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
		items  []int64 //lint:ignore U1000 unexported on purpose: Exported must refuse it
	}
	type nested struct {
		Parts []inner
	}
	if err := Exported(reflect.TypeFor[ok](), "the type"); err != nil {
		t.Errorf("exported fields: %v", err)
	}
	if err := Exported(reflect.TypeFor[[]int](), "the type"); err != nil {
		t.Errorf("a slice: %v", err)
	}
	for _, c := range []struct {
		name  string
		err   error
		field string
	}{
		{"bad", Exported(reflect.TypeFor[bad](), "the type"), "items"},
		{"nested", Exported(reflect.TypeFor[nested](), "the type"), "b"},
		{"slice of bad", Exported(reflect.TypeFor[[]bad](), "the type"), "items"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), "unexported field "+c.field+" ") {
			t.Errorf("%s: %v, want the unexported field %s named", c.name, c.err, c.field)
		}
	}
	// gob ignores exported func and chan fields as it does unexported ones.
	type withFunc struct {
		N int
		F func() int
	}
	type withChan struct{ C chan int }
	type withPointers struct {
		N int
		F *func() int
	}
	for name, err := range map[string]error{
		"func":            Exported(reflect.TypeFor[withFunc](), "the type"),
		"chan":            Exported(reflect.TypeFor[[]withChan](), "the type"),
		"pointer to func": Exported(reflect.TypeFor[withPointers](), "the type"),
	} {
		if err == nil || !strings.Contains(err.Error(), "gob sends no functions or channels") {
			t.Errorf("a %s field: %v", name, err)
		}
	}
}
