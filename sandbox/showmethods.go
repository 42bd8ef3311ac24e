package sandbox

import (
	"context"
	"errors"
	"reflect"
)

// showMethods are the wrappers an expression's value is first tried in, so
// that the host sees a value of an interpreted type with its Error or
// String method: yaegi hands a plain value to Go without the interpreted
// methods, but a value converted to an interface the host knows arrives as
// yaegi's wrapper, which has them. The conversion does not compile when the
// type lacks the method (or the expression has several results); a failed
// compile runs nothing, so the expression runs once.
var showMethods = []string{
	tuplePrefix + "func() error { return (\n",
	tuplePrefix + "func() __rh.Stringer { return (\n",
}

// runShown runs the expression text (already padded to its position) in the
// first of showMethods it compiles in. ran is false when none compiled;
// otherwise err is the run's error, its positions the user's.
func (in *Interp) runShown(ctx context.Context, text string) (v reflect.Value, ran bool, err error) {
	if isPlainLiteral(text) || !in.methods {
		return v, false, nil
	}
	for _, prefix := range showMethods {
		src := prefix + text + ") }())\n"
		if !in.compiles(src) {
			continue
		}
		v, err = in.run(ctx, src)
		var ev *EvalError
		if err != nil && errors.As(err, &ev) && ev.compile {
			continue
		}
		// The prefix is two lines where the plain tuple's is one.
		return v, true, shiftError(err, 2)
	}
	return reflect.Value{}, false, nil
}

// compiles reports whether src compiles, without running it: a wrapper
// that makes yaegi panic while compiling (log.Panic("nil type")) must fall
// back to the plain run, not fail the expression.
func (in *Interp) compiles(src string) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	_, err := in.yi.Compile(src)
	return err == nil
}

// isPlainLiteral reports a number or string literal, which has no methods:
// no need to try the wrappers.
func isPlainLiteral(text string) bool {
	for _, c := range text {
		switch {
		case c >= '0' && c <= '9', c == '.', c == '"', c == ' ', c == '\n', c == '\t', c == '_':
		default:
			return false
		}
	}
	return true
}
