package fmtmirror

import (
	"reflect"

	"github.com/replhost/replhost/internal/yaegix"
)

// isWrapped reports whether t is yaegi's wrapper of a value of an
// interpreted type with methods, as native code gets it from an []any, a
// map value or a field of interface type (yaegix.IsWrapped).
func isWrapped(t reflect.Type) bool { return yaegix.IsWrapped(t) }

// ifaceWrapped returns what v holds if v is yaegi's wrapper of an
// interpreted value converted to a compiled interface
// (yaegix.IfaceWrapped), which has that interface's methods only (an
// Error, not a Format); nil if it cannot be read.
func ifaceWrapped(v reflect.Value) (any, bool) {
	inner, ok := yaegix.IfaceWrapped(v)
	if !ok {
		return nil, false
	}
	if !inner.IsValid() || !inner.CanInterface() {
		return nil, true
	}
	return inner.Interface(), true
}

// unwrap returns the value such a wrapper holds; nil if none.
func unwrap(v reflect.Value) any { return yaegix.Unwrap(v) }

// Unwrap returns what v holds if v is yaegi's wrapper of a value, as
// native code sees a value of its type (methods gone).
func Unwrap(v any) (any, bool) {
	if v == nil || !isWrapped(reflect.TypeOf(v)) {
		return nil, false
	}
	return unwrap(reflect.ValueOf(v)), true
}
