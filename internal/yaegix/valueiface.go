package yaegix

import (
	"reflect"
	"unsafe"
)

// What yaegi hands native code for a value of an interpreted type with
// methods held in an interface (an element of an []any, a map value, a
// field of interface type): its unexported valueInterface, a struct of the
// value's *node (its interpreted type) and the value as a reflect.Value.
// fmt prints it as `{0xc000… {…}}`.

var reflectValueType = reflect.TypeFor[reflect.Value]()

// IsWrapped reports whether t is yaegi's valueInterface; false if its
// layout moved (the value is then handed over as it is).
func IsWrapped(t reflect.Type) bool {
	return t != nil && t.Kind() == reflect.Struct && t.Name() == "valueInterface" &&
		t.PkgPath() == "github.com/traefik/yaegi/interp" &&
		t.NumField() == 2 && t.Field(1).Type == reflectValueType
}

// Unwrap returns the value a valueInterface v holds, as native code sees a
// value of its type (its underlying type, methods gone); nil if it holds
// none (any(s) of a nil interface s) or cannot be read.
func Unwrap(v reflect.Value) any {
	c := reflect.New(v.Type()).Elem() // addressable, so its field can be read
	c.Set(v)
	inner := *(*reflect.Value)(unsafe.Pointer(c.Field(1).UnsafeAddr()))
	if !inner.IsValid() || !inner.CanInterface() {
		return nil
	}
	return inner.Interface()
}

// IfaceWrapped returns what v holds if v is one of yaegi's wrappers of an
// interpreted value converted to an interface of a compiled package (its
// `_error` and the `_pkg_Iface` structs of the symbol tables: IValue, the
// value, first, then a func field per method), as native code sees it.
func IfaceWrapped(v reflect.Value) (reflect.Value, bool) {
	if !v.IsValid() || v.Kind() != reflect.Struct || v.NumField() < 2 {
		return v, false
	}
	f := v.Type().Field(0)
	if f.Name != "IValue" || f.Type.Kind() != reflect.Interface || f.Type.NumMethod() != 0 || !v.Field(0).CanInterface() {
		return v, false
	}
	for i := 1; i < v.NumField(); i++ {
		if v.Type().Field(i).Type.Kind() != reflect.Func {
			return v, false
		}
	}
	return v.Field(0).Elem(), true
}

// IfaceMethods returns the names of the methods of the compiled interface
// whose yaegi wrapper v is (its func fields, each named with one extra
// first character, which yaegi's own lookup drops too); ok is false when v
// is no such wrapper.
func IfaceMethods(v reflect.Value) (names []string, ok bool) {
	if _, ok := IfaceWrapped(v); !ok {
		return nil, false
	}
	for i := 1; i < v.NumField(); i++ {
		names = append(names, v.Type().Field(i).Name[1:])
	}
	return names, true
}
