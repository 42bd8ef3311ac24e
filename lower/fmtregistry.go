package lower

import (
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// The type switch of fmtdeep.go lists the session's types the cell's
// check sees where the operand is. A function declared before a type
// (a logging helper with ...any, a func show(x any)), or in a cell whose
// check did not need the type, prints what its operands hold without that
// type's String, Error or Format. So each cell that declares such a
// method also registers, in a variable of the session, a type switch over
// its receiver's type (ʟfmtconvs); the switch at every print site asks the
// registry last, when it runs.

const (
	fmtRegistryVar  = "ʟfmtconvs"
	fmtRegistryFunc = "ʟfmtconvAll"
	fmtRegisterFunc = "ʟfmtregister"
)

// fmtRegistry declares the registry and the function that asks it, once a
// session, and returns the function's name.
func (r *rewriter) fmtRegistry() string {
	r.ctx.declare(fmtRegistryVar, func() string {
		return "var " + fmtRegistryVar + " []func(any) (any, bool)"
	})
	r.ctx.declare(fmtRegisterFunc, func() string {
		return "func " + fmtRegisterFunc + "(c func(any) (any, bool)) int { " + fmtRegistryVar + " = append(" + fmtRegistryVar + ", c); return 0 }"
	})
	r.ctx.declare(fmtRegistryFunc, func() string {
		return "func " + fmtRegistryFunc + "(v any) (any, bool) { for _, c := range " + fmtRegistryVar +
			" { if r, ok := c(v); ok { return r, true } }; return nil, false }"
	})
	return fmtRegistryFunc
}

// registerFmtMethod registers the receiver type of d, a String, Error or
// Format method declared at the top of the cell.
func (r *rewriter) registerFmtMethod(d *ast.FuncDecl) {
	if d.Recv == nil || len(r.fns) > 2 || !fmtMethodNames[d.Name.Name] || d.Name.Name == "GoString" {
		return
	}
	fn, ok := r.code.info.Defs[d.Name].(*types.Func)
	if !ok {
		return
	}
	recv := fn.Type().(*types.Signature).Recv().Type()
	base := recv
	if p, isPtr := recv.(*types.Pointer); isPtr {
		base = p.Elem()
	}
	n, ok := types.Unalias(base).(*types.Named)
	if !ok || n.TypeParams().Len() > 0 || types.IsInterface(n) {
		return // a generic type's instances are registered where they are named
	}
	r.registerFmtType(n, string(r.code.src)+";"+n.Obj().Name()+";"+d.Name.Name)
}

// registerInstances registers the instances of the session's generic
// types that the cell names (W[int]) and that have a String, Error or
// Format method: a later cell may print one it does not name.
func (r *rewriter) registerInstances() {
	for _, n := range r.cellInstances() {
		if types.IsInterface(n) {
			continue
		}
		if fmtIface(n) || fmtIface(types.NewPointer(n)) || r.formats(n) || r.formats(types.NewPointer(n)) {
			r.registerFmtType(n, "instance;"+r.ctx.typeText(n, nil))
		}
	}
}

// cellInstances are the instances of the session's generic types that
// the cell names, without type parameters, in the order of their names.
func (r *rewriter) cellInstances() []*types.Named {
	var out []*types.Named
	seen := map[string]bool{}
	for id, inst := range r.code.info.Instances {
		if !r.ctx.chk.cur.contains(id.Pos()) {
			continue
		}
		n, ok := inst.Type.(*types.Named)
		if !ok || !r.ctx.chk.local(n.Obj().Pkg()) || n.TypeArgs().Len() == 0 || hasTypeParam(n) || seen[n.String()] {
			continue
		}
		seen[n.String()] = true
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *types.Named) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// registerFmtType registers n (and *n) under a name made of key.
func (r *rewriter) registerFmtType(n *types.Named, key string) {
	rt := r.ctx.qualify(rtPath)
	var cases string
	for _, t := range []types.Type{n, types.NewPointer(n)} {
		tt := r.ctx.typeText(t, nil)
		var ret string
		switch {
		case r.formats(t):
			ret = rt + ".MirrorFormatter(v.(" + tt + ").Format)"
		case types.Implements(t, errorType):
			ret = rt + "." + formattedFn(t, true) + "(v.(" + tt + ").Error())"
		case types.Implements(t, stringerType):
			ret = rt + "." + formattedFn(t, false) + "(v.(" + tt + ").String())"
		default:
			continue // *T's method, and this is T: printed without it, as in Go
		}
		cases += "case " + tt + ": "
		if _, isPtr := t.(*types.Pointer); isPtr {
			cases += "if v.(" + tt + ") == nil { return nil, true }; "
		}
		cases += "return " + ret + ", true; "
	}
	if cases == "" {
		return
	}
	if asErr := r.asErrorCases(n); asErr != "" {
		// A %w operand of a slice (fmtmirror.AsError): the value as an
		// error, which fmt.Errorf wraps and errors.As finds.
		cases = "case " + rt + ".AsError: switch w := v.(" + rt + ".AsError); w.V.(type) { " + asErr + "}; return nil, false; " + cases
	}
	r.fmtRegistry()
	// A variable of its own, set by a call: a second `var _` of the
	// session, or an initializer that assigns the registry of an earlier
	// cell, is a "variable definition loop" to yaegi.
	name := "ʟfmtreg_" + shortHash(key)
	r.ctx.declare(name, func() string {
		return "var " + name + " = " + fmtRegisterFunc + "(func(v any) (any, bool) { switch v.(type) { " + cases + "}; return nil, false })"
	})
}

// fmtDynamic reports whether an operand of interface type may hold a
// value of the session's types with a method fmt calls: once the session
// declared one, and always inside a function, which a later cell may call
// with a value of a type declared after it.
func (r *rewriter) fmtDynamic() bool {
	return r.ctx.chk.declaresFmtMethods() || len(r.fns) > 1 && r.code.mark || r.fieldNames && r.hiddenFields()
}

// callsRecover reports whether e calls recover outside a function literal
// of its own: it must stay a direct call of the deferred function, so e
// is not moved into the function literals the mirror writes.
func (r *rewriter) callsRecover(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
				if b, ok := r.code.info.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// asErrorCases are the cases of a type switch on w.V converting n or *n
// to error (keepvalue.go's box for a struct value).
func (r *rewriter) asErrorCases(n *types.Named) string {
	var cases string
	for _, t := range []types.Type{n, types.NewPointer(n)} {
		if !types.Implements(t, errorType) {
			continue
		}
		tt := r.ctx.typeText(t, nil)
		val := "w.V.(" + tt + ")"
		if kept, ok := r.keptText(t, val); ok {
			val = kept
		}
		cases += "case " + tt + ": var e error = " + val + "; return e, true; "
	}
	return cases
}
