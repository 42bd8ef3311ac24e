package fmtmirror

import (
	"reflect"
	"weak"
)

// A value of a non-struct type of the session's without methods stored in
// an interface (`var c any = Celsius(1)` of `type Celsius float64`) is, to
// yaegi and to native code, a plain value of its underlying type (a
// float64): yaegi wraps only values whose type has methods, and a struct
// is known by its layout. So %T printed `float64`. The front end makes
// the interface value itself (TagName, given the type's name) in a box of
// its own and records the box, as TagBox does for arrays; %T looks an
// interface value up by its data word (TaggedTypeName). Values the
// runtime stores in the data word itself (pointers, maps, channels,
// funcs) have no box and are not named.

// TagName returns v as an interface value in a box of its own, recorded
// as holding a value of the type named name.
func TagName(v any, name string) any {
	if v == nil {
		return v
	}
	out, p := rebox(reflect.ValueOf(v))
	if p == nil {
		return v
	}
	recordName(nameKey{addr: uintptr(p)}, weak.Make((*byte)(p)), name)
	return out
}

// TagPointerName records that v, a pointer (or a map or channel), is of
// the type named name (`*main.Celsius`); it returns v. It has no box (the
// interface's data word is the pointer), but what it points to is an
// identity.
func TagPointerName(v any, name string) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return v
	}
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan:
	default:
		return v
	}
	if rv.IsNil() || rv.Kind() == reflect.Pointer && rv.Type().Elem().Size() == 0 {
		return v
	}
	p := rv.UnsafePointer()
	recordName(nameKey{uintptr(p), rv.Type()}, weak.Make((*byte)(p)), name)
	return v
}

// recordedName is the name TagName or TagPointerName recorded for the
// interface value v.
func recordedName(v any) (string, bool) {
	if v == nil {
		return "", false
	}
	typ := reflect.TypeOf(v)
	switch typ.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan:
		rv := reflect.ValueOf(v)
		if rv.IsNil() || typ.Kind() == reflect.Pointer && typ.Elem().Size() == 0 {
			return "", false
		}
		return nameAt(nameKey{uintptr(rv.UnsafePointer()), typ})
	}
	if !boxed(typ) {
		return "", false
	}
	p := boxOf(v)
	if p == nil {
		return "", false
	}
	return nameAt(nameKey{addr: uintptr(p)})
}

// SameRecordedType reports whether the interface values a and b, whose
// native values are of one type, are not recorded as of two types (by
// TagName or TagPointerName; a value recorded by neither is of its native
// type): `var c any = Celsius(2)` is not any(2.0), as in Go.
func SameRecordedType(a, b any) bool {
	if !namesUsed.Load() {
		return true
	}
	na, _ := recordedName(a)
	nb, _ := recordedName(b)
	return na == nb
}
