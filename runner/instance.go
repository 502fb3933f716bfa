package runner

import (
	"encoding"
	"encoding/gob"
	"fmt"
	"reflect"
)

// checkInstanceType reports a field of the instance type t that would not
// travel from rank 0 to the other ranks: an unexported field of a struct
// anywhere in t (encoding/gob and encoding/json drop them without a word).
// The check is on the type, so it gives every world the same verdict: the
// simulator and the sequential solver, which need not send the instance,
// would otherwise run with the field while the ranks of the embedded and
// MPI worlds ran without it. A type that encodes itself (gob.GobEncoder,
// encoding.BinaryMarshaler) is its own business.
func checkInstanceType(t reflect.Type) error {
	return walkInstance(t, t.String(), map[reflect.Type]bool{})
}

func walkInstance(t reflect.Type, path string, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	if t.Implements(reflect.TypeFor[gob.GobEncoder]()) || t.Implements(reflect.TypeFor[encoding.BinaryMarshaler]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[gob.GobEncoder]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.BinaryMarshaler]()) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return walkInstance(t.Elem(), path, seen)
	case reflect.Map:
		if err := walkInstance(t.Key(), path, seen); err != nil {
			return err
		}
		return walkInstance(t.Elem(), path, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("the instance type %s has an unexported field %s (in %s): it would not reach the other ranks (encoding/gob drops it), so export it", path, f.Name, t)
			}
			if err := walkInstance(f.Type, path, seen); err != nil {
				return err
			}
		}
	}
	return nil
}
