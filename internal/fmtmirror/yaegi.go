package fmtmirror

import (
	"reflect"
	"unsafe"
)

// What yaegi v0.16.1 hands native code for a value of an interpreted type
// with methods held in an interface (an element of an []any, a map value,
// a struct field of interface type): its unexported valueInterface, a
// struct of the value's *node (its interpreted type) and the value as a
// reflect.Value. fmt prints it as `{0xc000… {…}}`. This file is the one
// place that knows that layout; a moved layout makes isWrapped false, and
// the value is then handed over as it is.
// TODO(yaegix): move beside the other yaegi internals in internal/yaegix.

var reflectValueType = reflect.TypeFor[reflect.Value]()

// isWrapped reports whether t is yaegi's valueInterface.
func isWrapped(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.Name() == "valueInterface" &&
		t.PkgPath() == "github.com/traefik/yaegi/interp" &&
		t.NumField() == 2 && t.Field(1).Type == reflectValueType
}

// unwrap returns the value a valueInterface holds, as native code sees a
// value of its type (its underlying type, methods gone); nil if it holds
// none or cannot be read.
func unwrap(v reflect.Value) any {
	c := reflect.New(v.Type()).Elem() // addressable, so its field can be read
	c.Set(v)
	inner := *(*reflect.Value)(unsafe.Pointer(c.Field(1).UnsafeAddr()))
	if !inner.IsValid() || !inner.CanInterface() {
		return nil
	}
	return inner.Interface()
}

// Unwrap returns what v holds if v is yaegi's wrapper of a value, as
// native code sees a value of its type (methods gone).
func Unwrap(v any) (any, bool) {
	if v == nil || !isWrapped(reflect.TypeOf(v)) {
		return nil, false
	}
	return unwrap(reflect.ValueOf(v)), true
}
