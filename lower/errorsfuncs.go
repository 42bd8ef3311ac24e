package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"strings"

	"github.com/replhost/replhost/internal/yaegix"
)

// errors.Is, errors.As and errors.Unwrap are compiled code: they see a
// value of the session's error types as yaegi's wrapper, which has only
// Error (no Unwrap, Is or As), and errors.As refuses a pointer to an
// interpreted type (`*target must be interface or implement error`). The
// front end calls interpreted versions instead, declared in the cell,
// which walk the chain as Go's do: an Unwrap of the session's types is
// found by a comma-ok assertion to interface{ Unwrap() error } (or, on a
// value a compiled error wraps, to each of the session's types that has
// one), Is and As methods are called, and two errors are compared by what
// yaegi's wrappers hold (ErrorsSame).

func init() {
	Runtime[rtPath+"/rt"]["ErrorsSame"] = reflect.ValueOf(ErrorsSame)
	Runtime[rtPath+"/rt"]["UnwrapAll"] = reflect.ValueOf(UnwrapAll)
	Runtime[rtPath+"/rt"]["ErrorInner"] = reflect.ValueOf(ErrorInner)
}

// errorsCall rewrites n when it calls errors.Is, As or Unwrap in a session
// that declares an Error method.
func (r *rewriter) errorsCall(n *ast.CallExpr) {
	sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !ok || n.Ellipsis.IsValid() || !r.ctx.chk.declaresFmtMethods() {
		return
	}
	fn, ok := r.code.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "errors" {
		return
	}
	var name string
	switch {
	case fn.Name() == "Unwrap" && len(n.Args) == 1:
		name = r.errUnwrapHelper()
	case fn.Name() == "Is" && len(n.Args) == 2:
		name = r.errIsHelper()
	case fn.Name() == "As" && len(n.Args) == 2:
		p, ok := r.typeOf(n.Args[1]).(*types.Pointer)
		if !ok || !r.pkgLevelType(p.Elem()) {
			return // a target type the cell's top cannot name: errors.As as it is
		}
		name = r.errAsHelper(p.Elem())
	default:
		return
	}
	args := make([]string, len(n.Args))
	for i, a := range n.Args {
		args[i] = r.nodeText(a)
	}
	r.replaceNode(n, name+"("+strings.Join(args, ", ")+")")
}

// pkgLevelType reports whether t can be named at the top of the cell: no
// type declared in a function, no type parameter.
func (r *rewriter) pkgLevelType(t types.Type) bool {
	ok := true
	var visit func(t types.Type)
	visit = func(t types.Type) {
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			if o := t.Obj(); o.Pkg() != nil && o.Parent() != o.Pkg().Scope() {
				ok = false
			}
			for i := range t.TypeArgs().Len() {
				visit(t.TypeArgs().At(i))
			}
		case *types.TypeParam:
			ok = false
		case *types.Pointer:
			visit(t.Elem())
		case *types.Slice:
			visit(t.Elem())
		case *types.Map:
			visit(t.Key())
			visit(t.Elem())
		}
	}
	visit(substType(t, r.subst))
	return ok
}

// unwrapTypes are the session's package-level types (T, or *T when only
// the pointer has it) with an Unwrap() error method, as their text.
func (r *rewriter) unwrapTypes() []string {
	return r.typesWithMethod("Unwrap", func(sig *types.Signature) bool {
		return sig.Params().Len() == 0 && sig.Results().Len() == 1 && isErrorType(sig.Results().At(0).Type())
	})
}

// unwrapAllHelper declares, when the session has types with an Unwrap()
// []error method, the function that gives the errors err joins, and
// returns its name (else rt.UnwrapAll's): asserted to each such type, as
// yaegi asserts to interface{ Unwrap() []error } by method name only.
func (r *rewriter) unwrapAllHelper() string {
	rt := r.ctx.qualify(rtPath)
	multi := r.typesWithMethod("Unwrap", func(sig *types.Signature) bool {
		if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
			return false
		}
		s, isSlice := types.Unalias(sig.Results().At(0).Type()).(*types.Slice)
		return isSlice && isErrorType(s.Elem())
	})
	if len(multi) == 0 {
		return rt + ".UnwrapAll"
	}
	name := "ʟerrUnwrapAll_" + shortHash(strings.Join(multi, ";"))
	r.ctx.declare(name, func() string {
		var b strings.Builder
		b.WriteString("func " + name + "(err error) []error { inner := " + rt + ".ErrorInner(err); ")
		for _, t := range multi {
			b.WriteString("if u, ok := err.(" + t + "); ok { return u.Unwrap() }; if u, ok := inner.(" + t + "); ok { return u.Unwrap() }; ")
		}
		b.WriteString("return " + rt + ".UnwrapAll(err) }")
		return b.String()
	})
	return name
}

// isTypes are those with an Is(error) bool method.
func (r *rewriter) isTypes() []string {
	return r.typesWithMethod("Is", func(sig *types.Signature) bool {
		return sig.Params().Len() == 1 && isErrorType(sig.Params().At(0).Type()) &&
			sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.Bool])
	})
}

func isErrorType(t types.Type) bool { return types.Identical(t, types.Universe.Lookup("error").Type()) }

// typesWithMethod are the session's package-level types (T, or *T when
// only the pointer has it) with a method name whose signature ok accepts.
func (r *rewriter) typesWithMethod(name string, ok func(*types.Signature) bool) []string {
	var out []string
	for _, n := range r.ctx.sessionTypes() {
		out = r.withMethod(out, n, n.Obj().Pkg(), name, ok)
	}
	for _, n := range r.cellInstances() { // fmtregistry.go
		if !types.IsInterface(n) && !r.mentionsLocalType(n, 0) {
			out = r.withMethod(out, n, n.Obj().Pkg(), name, ok)
		}
	}
	return out
}

// withMethod appends t (or *t) to out when it has the method name whose
// signature ok accepts.
func (r *rewriter) withMethod(out []string, t types.Type, pkg *types.Package, name string, ok func(*types.Signature) bool) []string {
	for _, t := range []types.Type{t, types.NewPointer(t)} {
		obj, _, _ := types.LookupFieldOrMethod(t, false, pkg, name)
		if f, isFunc := obj.(*types.Func); isFunc && ok(f.Type().(*types.Signature)) {
			return append(out, r.ctx.typeText(t, nil))
		}
	}
	return out
}

// errUnwrapHelper declares errors.Unwrap's interpreted version and
// returns its name. yaegi asserts a compiled value to none of the
// session's interfaces: compiled errors are unwrapped by errors.Unwrap.
func (r *rewriter) errUnwrapHelper() string {
	types := r.unwrapTypes()
	name := "ʟerrUnwrap_" + shortHash(strings.Join(types, ";"))
	errors := r.ctx.qualify("errors")
	r.ctx.declare(name, func() string {
		var b strings.Builder
		b.WriteString("func " + name + "(err error) error { if err == nil { return nil }; ")
		b.WriteString("if u, ok := err.(interface{ Unwrap() error }); ok { return u.Unwrap() }; ")
		if len(types) > 0 {
			// A value a compiled error wraps (fmt.Errorf's %w) is
			// yaegi's wrapper: what it holds is known by its layout.
			b.WriteString("inner := " + r.ctx.qualify(rtPath) + ".ErrorInner(err); ")
		}
		for _, t := range types {
			b.WriteString("if u, ok := inner.(" + t + "); ok { return u.Unwrap() }; ")
		}
		b.WriteString("return " + errors + ".Unwrap(err) }")
		return b.String()
	})
	return name
}

// errIsHelper declares errors.Is's interpreted version: at each step the
// compiled errors.Is too, for the Is methods and joined errors of
// compiled errors.
func (r *rewriter) errIsHelper() string {
	unwrap, unwrapAll := r.errUnwrapHelper(), r.unwrapAllHelper()
	is := r.isTypes()
	name := "ʟerrIs_" + shortHash(unwrap+";"+unwrapAll+";"+strings.Join(is, ";"))
	rt := r.ctx.qualify(rtPath)
	errors := r.ctx.qualify("errors")
	r.ctx.declare(name, func() string {
		var layout strings.Builder
		if len(is) > 0 {
			layout.WriteString("inner := " + rt + ".ErrorInner(err); ")
		}
		for _, t := range is {
			layout.WriteString("if x, ok := inner.(" + t + "); ok && x.Is(target) { return true }; ")
		}
		return "func " + name + "(err, target error) bool { if err == nil || target == nil { return err == target }; " +
			"for depth := 0; err != nil && depth < 1000; depth++ { " +
			"if " + rt + ".ErrorsSame(err, target) || " + errors + ".Is(err, target) { return true }; " +
			"if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) { return true }; " + layout.String() +
			"if m := " + unwrapAll + "(err); m != nil { for _, e := range m { if " + name + "(e, target) { return true } }; return false }; " +
			"err = " + unwrap + "(err) }; return false }"
	})
	return name
}

// errAsHelper declares errors.As's interpreted version for a target of
// type *t.
func (r *rewriter) errAsHelper(t types.Type) string {
	unwrap, unwrapAll := r.errUnwrapHelper(), r.unwrapAllHelper()
	tt := r.ctx.typeText(t, r.subst)
	impls := "" // see errorsasiface.go
	for _, c := range r.implementers(substType(t, r.subst)) {
		impls += "if v, ok := " + r.layoutAssert(c) + "(" + r.ctx.qualify(rtPath) + ".ErrorInner(err)); ok { *target = v; return true }; "
	}
	name := "ʟerrAs_" + shortHash(tt+";"+unwrap+";"+unwrapAll+";"+impls)
	rt := r.ctx.qualify(rtPath)
	r.ctx.declare(name, func() string {
		return "func " + name + "(err error, target *" + tt + ") bool { if target == nil { panic(\"errors: target must be a non-nil pointer\") }; " +
			"for depth := 0; err != nil && depth < 1000; depth++ { " +
			"if v, ok := err.(" + tt + "); ok { *target = v; return true }; " +
			"if v, ok := " + rt + ".ErrorInner(err).(" + tt + "); ok { *target = v; return true }; " + impls +
			"if x, ok := err.(interface{ As(any) bool }); ok && x.As(target) { return true }; " +
			"if m := " + unwrapAll + "(err); m != nil { for _, e := range m { if " + name + "(e, target) { return true } }; return false }; " +
			"err = " + unwrap + "(err) }; return false }"
	})
	return name
}

// ErrorInner is what err holds as native code sees it: the value inside
// yaegi's wrapper of an interpreted error (an interpreted struct as its
// layout), or err itself.
func ErrorInner(err error) any {
	v := errorValue(err)
	if !v.IsValid() || !v.CanInterface() {
		return nil
	}
	return v.Interface()
}

// UnwrapAll is the errors a compiled error joins (its Unwrap() []error),
// or nil.
func UnwrapAll(err error) []error {
	if m, ok := err.(interface{ Unwrap() []error }); ok {
		return m.Unwrap()
	}
	return nil
}

// ErrorsSame reports whether errors a and b are equal as Go's == of two
// errors is, looking through yaegi's wrappers (which hold func fields:
// comparing them panics); false for values of an incomparable type.
func ErrorsSame(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	va, vb := errorValue(a), errorValue(b)
	if !va.IsValid() || !vb.IsValid() {
		return va.IsValid() == vb.IsValid()
	}
	if va.Type() != vb.Type() || !va.Type().Comparable() {
		return false
	}
	return va.Interface() == vb.Interface()
}

// errorValue is what an error holds, yaegi's wrappers opened.
func errorValue(a any) reflect.Value {
	v := reflect.ValueOf(a)
	for i := 0; i < 8 && v.IsValid(); i++ {
		if v.Kind() == reflect.Interface {
			v = v.Elem()
			continue
		}
		if inner, ok := yaegix.IfaceWrapped(v); ok {
			v = inner
			continue
		}
		if yaegix.IsWrapped(v.Type()) {
			_, v = yaegix.Unbox(v.Interface())
			continue
		}
		break
	}
	return v
}
