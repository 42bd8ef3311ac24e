package sandbox

import (
	"context"
	"errors"
	"go/ast"
	"reflect"

	"github.com/traefik/yaegi/interp"
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

// runShown runs the expression of u in the first of showMethods it
// compiles in. ran is false when none compiled; otherwise err is the run's
// error, its positions the user's. A wrapper that compiles is run as
// compiled: yaegi compiles it once.
func (in *Interp) runShown(ctx context.Context, u unit) (v reflect.Value, ran bool, err error) {
	if isPlainLiteral(u.text) || !in.methods {
		return v, false, nil
	}
	x := u.expr()
	for i, prefix := range showMethods {
		// The text prefix is two lines where the plain tuple's is one.
		code, shift := source{}, 2
		if x != nil {
			code.node, shift = showBlock(u.node.(*ast.BlockStmt), x, i), 1
		} else {
			code.text = prefix + padTo(u) + u.text + ") }())\n"
		}
		p, ok := in.compiles(code)
		if !ok {
			continue
		}
		code = source{prog: p}
		v, err = in.run(ctx, code)
		var ev *EvalError
		if err != nil && errors.As(err, &ev) && ev.compile {
			continue
		}
		return v, true, shiftError(err, shift)
	}
	return reflect.Value{}, false, nil
}

// compiles compiles src without running it: a wrapper that makes yaegi
// panic while compiling (log.Panic("nil type")) must fall back to the
// plain run, not fail the expression.
func (in *Interp) compiles(src source) (p *interp.Program, ok bool) {
	defer func() {
		if recover() != nil {
			p, ok = nil, false
		}
	}()
	p, err := in.compile(src)
	return p, err == nil
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
