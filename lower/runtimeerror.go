package lower

import (
	"reflect"

	"github.com/replhost/replhost/internal/yaegix"
)

// RuntimeError is a run-time panic of interpreted code as Go raises it: a
// runtime.Error, where yaegi v0.16.1 panics with reflect's message string.
type RuntimeError struct{ msg string }

func (e RuntimeError) Error() string { return "runtime error: " + e.msg }

// RuntimeError marks the value as a runtime.Error.
func (RuntimeError) RuntimeError() {}

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

// Recovered is what recover() gives interpreted code: v, unless it is how
// yaegi fails where Go raises a runtime.Error (yaegix.RuntimeFailure and
// FailedAssertion), which becomes that error.
// An exit is not recovered: os.Exit ends the program in Go.
func Recovered(v any) any {
	if isExitPanic(v) {
		panic(v)
	}
	v = yaegix.PanicValue(v) // the code's own panic(v) comes as a reflect.Value
	if yaegix.IsRunError(v) {
		if msg, ok := yaegix.FailedAssertion(v); ok {
			return TypeAssertionError{msg}
		}
		return v
	}
	if msg, ok := yaegix.RuntimeFailure(v); ok {
		return RuntimeError{msg}
	}
	if msg, ok := yaegix.PlainRuntimeFailure(v); ok {
		return PlainRuntimeError{msg}
	}
	return v
}

// PlainRuntimeError is a runtime.Error whose message Go writes without the
// "runtime error: " prefix ("makechan: size out of range").
type PlainRuntimeError struct{ msg string }

func (e PlainRuntimeError) Error() string { return e.msg }

// RuntimeError marks the value as a runtime.Error.
func (PlainRuntimeError) RuntimeError() {}

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
