// Package gobcheck finds, in a type that travels between ranks with
// encoding/gob (an app's instance, its result), the struct fields that gob
// drops without a word: the unexported ones, and those of func or chan
// type. A rank that receives such a value gets the field's zero value, so
// a certificate or a count computed from it differs between a run that
// sent the value and one that did not (the simulator, the sequential
// solver, one rank).
package gobcheck

import (
	"encoding"
	"encoding/gob"
	"fmt"
	"reflect"
)

// Exported reports the first unexported struct field, or field of func or
// chan type, anywhere in t (its elements, keys, fields, recursively),
// naming t as what (say "the result type"). A type that encodes itself
// (gob.GobEncoder, encoding.BinaryMarshaler, on the type or its pointer) is
// its own business, and so is what an interface holds.
func Exported(t reflect.Type, what string) error {
	return walk(t, t, what, map[reflect.Type]bool{})
}

func walk(t, top reflect.Type, what string, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	if encodes(t) || encodes(reflect.PointerTo(t)) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return walk(t.Elem(), top, what, seen)
	case reflect.Map:
		if err := walk(t.Key(), top, what, seen); err != nil {
			return err
		}
		return walk(t.Elem(), top, what, seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				return fmt.Errorf("%s %s has an unexported field %s (in %s): it would not reach the other ranks (encoding/gob drops it), so export it or give the type a binary encoding", what, top, f.Name, t)
			}
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if k := ft.Kind(); k == reflect.Func || k == reflect.Chan {
				return fmt.Errorf("%s %s has a field %s of type %s (in %s): it would not reach the other ranks (encoding/gob sends no functions or channels), so leave it out or give the type a binary encoding", what, top, f.Name, f.Type, t)
			}
			if err := walk(f.Type, top, what, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

func encodes(t reflect.Type) bool {
	return t.Implements(reflect.TypeFor[gob.GobEncoder]()) || t.Implements(reflect.TypeFor[encoding.BinaryMarshaler]())
}
