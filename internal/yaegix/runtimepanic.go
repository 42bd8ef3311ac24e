package yaegix

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// PanicValue is v as interpreted code should see it: yaegi hands on the
// value of the code's own panic(v) as its reflect.Value, both in Eval's
// interp.Panic and to recover(); a native function's panic value as it is.
func PanicValue(v any) any {
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		return rv.Interface()
	}
	return v
}

// reflectPanics map the messages of reflect's panics inside yaegi, where Go
// raises a run-time error, to that error's message (without the index and
// length, which the message does not carry).
var reflectPanics = []struct{ prefix, msg string }{
	{"reflect: slice index out of range", "index out of range"},
	{"reflect: array index out of range", "index out of range"},
	{"reflect: string index out of range", "index out of range"},
	{"reflect.Value.Slice: slice index out of bounds", "slice bounds out of range"},
	{"reflect.Value.Slice3: slice index out of bounds", "slice bounds out of range"},
	{"reflect.Value.Slice: string slice index out of bounds", "slice bounds out of range"},
	{"reflect: call of reflect.Value.", "invalid memory address or nil pointer dereference"}, // "... on zero Value"
	{"reflect: Method on nil interface value", "invalid memory address or nil pointer dereference"},
	{"reflect.Value.Grow: slice overflow", "growslice: len out of range"},
	{"reflect.MakeSlice: negative len", "makeslice: len out of range"},
	{"reflect.MakeSlice: negative cap", "makeslice: cap out of range"},
	{"reflect.MakeSlice: len > cap", "makeslice: cap out of range"},
}

// reflectPlainPanics are reflect's panics where Go raises a runtime.Error
// whose message has no "runtime error: " prefix (the runtime's plainError).
var reflectPlainPanics = []struct{ prefix, msg string }{
	{"reflect.MakeChan: negative buffer size", "makechan: size out of range"},
}

// PlainRuntimeFailure is RuntimeFailure for the run-time errors whose
// message Go writes without the "runtime error: " prefix.
func PlainRuntimeFailure(v any) (msg string, ok bool) {
	s, isString := v.(string)
	if !isString {
		return "", false
	}
	for _, p := range reflectPlainPanics {
		if strings.HasPrefix(s, p.prefix) {
			return p.msg, true
		}
	}
	return "", false
}

// sliceToArrayRE is reflect's message for a too short slice converted to
// an array or array pointer; Go's names both.
var sliceToArrayRE = regexp.MustCompile(`^reflect: cannot convert slice with length (\d+) to (?:pointer to )?array with length (\d+)$`)

// RuntimeFailure reports whether v (a PanicValue) is how yaegi fails an
// operation for which Go raises a runtime.Error, and that error's message
// without its "runtime error: " prefix.
func RuntimeFailure(v any) (msg string, ok bool) {
	if e, isValueErr := v.(*reflect.ValueError); isValueErr && e.Kind == reflect.Invalid {
		return "invalid memory address or nil pointer dereference", true // through a nil pointer
	}
	s, isString := v.(string)
	if !isString {
		return "", false
	}
	if m := sliceToArrayRE.FindStringSubmatch(s); m != nil {
		return "cannot convert slice with length " + m[1] + " to array or pointer to array with length " + m[2], true
	}
	for _, p := range reflectPanics {
		if strings.HasPrefix(s, p.prefix) && (p.prefix != "reflect: call of reflect.Value." || strings.HasSuffix(s, "on zero Value")) {
			return p.msg, true
		}
	}
	return "", false
}

// cfgErrorType is the type of yaegi's own run-time errors (interp.cfgError,
// unexported).
const cfgErrorType = "*interp.cfgError"

// cfgAssertRE is yaegi's failed type assertion: "L:C: interface conversion: ...".
var cfgAssertRE = regexp.MustCompile(`^\d+:\d+: (interface conversion: .*)$`)

// IsRunError reports whether v is one of yaegi's own run-time errors (not a
// value the code panicked with).
func IsRunError(v any) bool {
	_, ok := v.(error)
	return ok && fmt.Sprintf("%T", v) == cfgErrorType
}

// FailedAssertion reports whether v is yaegi's run-time error for a failed
// type assertion, and its message without the position, as Go words it.
func FailedAssertion(v any) (msg string, ok bool) {
	if !IsRunError(v) {
		return "", false
	}
	if m := cfgAssertRE.FindStringSubmatch(v.(error).Error()); m != nil {
		return m[1], true
	}
	return "", false
}
