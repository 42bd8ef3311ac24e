package lower

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// RuntimeError is a run-time panic of interpreted code as Go raises it: a
// runtime.Error, where yaegi v0.16.1 panics with reflect's message string.
type RuntimeError struct{ msg string }

func (e RuntimeError) Error() string { return "runtime error: " + e.msg }

// RuntimeError marks the value as a runtime.Error.
func (RuntimeError) RuntimeError() {}

// reflectPanics map the messages of reflect's panics inside yaegi to the
// run-time error Go raises for the same operation (without the index and
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

// TypeAssertionError is a failed type assertion as Go raises it: a
// runtime.Error whose message has no "runtime error: " prefix, where yaegi
// v0.16.1 panics with an error of its own prefixed by the position.
type TypeAssertionError struct{ msg string }

func (e TypeAssertionError) Error() string { return e.msg }

// RuntimeError marks the value as a runtime.Error.
func (TypeAssertionError) RuntimeError() {}

// AssertFailed is the panic of a failed assertion of x to the interface
// target (methods: its method names, sorted), as Go words it.
func AssertFailed(x any, target string, methods []string) TypeAssertionError {
	if x == nil {
		return TypeAssertionError{"interface conversion: interface is nil, not " + target}
	}
	t := reflect.TypeOf(x)
	missing := ""
	for _, m := range methods {
		if _, ok := t.MethodByName(m); !ok {
			missing = m
			break
		}
	}
	msg := "interface conversion: " + t.String() + " is not " + target
	if missing != "" {
		msg += ": missing method " + missing
	}
	return TypeAssertionError{msg}
}

var (
	// sliceToArrayRE is reflect's message for a too short slice converted
	// to an array or array pointer; Go's names both.
	sliceToArrayRE = regexp.MustCompile(`^reflect: cannot convert slice with length (\d+) to (?:pointer to )?array with length (\d+)$`)
	// cfgAssertRE is yaegi's failed type assertion: "L:C: interface conversion: ...".
	cfgAssertRE = regexp.MustCompile(`^\d+:\d+: (interface conversion: .*)$`)
)

// yaegiCfgError is the type of yaegi's run-time errors (interp.cfgError).
const yaegiCfgError = "*interp.cfgError"

// Recovered is what recover() gives interpreted code: v, unless it is one
// of yaegi's reflect panics, which becomes the runtime.Error Go raises.
// An exit is not recovered: os.Exit ends the program in Go.
func Recovered(v any) any {
	if isExitPanic(v) {
		panic(v)
	}
	if rv, ok := v.(reflect.Value); ok && rv.IsValid() && rv.CanInterface() {
		v = rv.Interface() // yaegi panics with a native call's result as its reflect.Value
	}
	if e, ok := v.(*reflect.ValueError); ok && e.Kind == reflect.Invalid {
		return RuntimeError{"invalid memory address or nil pointer dereference"} // through a nil pointer
	}
	if e, ok := v.(error); ok && fmt.Sprintf("%T", v) == yaegiCfgError {
		if m := cfgAssertRE.FindStringSubmatch(e.Error()); m != nil {
			return TypeAssertionError{m[1]}
		}
		return v
	}
	s, ok := v.(string)
	if !ok {
		return v
	}
	if m := sliceToArrayRE.FindStringSubmatch(s); m != nil {
		return RuntimeError{"cannot convert slice with length " + m[1] + " to array or pointer to array with length " + m[2]}
	}
	for _, p := range reflectPanics {
		if strings.HasPrefix(s, p.prefix) && (p.prefix != "reflect: call of reflect.Value." || strings.HasSuffix(s, "on zero Value")) {
			return RuntimeError{p.msg}
		}
	}
	return v
}

// Formatted is a value already formatted by its own String method, for fmt
// to print where yaegi would hand it the value without its methods.
type Formatted string

func (f Formatted) String() string { return string(f) }

// FormattedError is a value already formatted by its own Error method.
type FormattedError string

func (f FormattedError) Error() string { return string(f) }

// Stringer returns s as a fmt.Stringer.
func Stringer(s string) any { return Formatted(s) }

// Errorer returns s as an error.
func Errorer(s string) any { return FormattedError(s) }

// ShiftCount is a signed shift count made unsigned, with Go's panic for a
// negative one.
func ShiftCount(n int64) uint64 {
	if n < 0 {
		panic(RuntimeError{"negative shift amount"})
	}
	return uint64(n)
}
