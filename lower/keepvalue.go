package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// yaegi v0.16.1 converts a value of an interpreted struct type to a
// compiled interface (error, fmt.Stringer) in a wrapper whose first field
// is getConcreteValue of the value: an interpreted struct has no reflect
// methods, so it is taken for yaegi's own emulated interface and replaced
// by its last non-nil field. The methods still run, but the value is gone:
// `err.(MyErr)`, a `case MyErr:` and errors.As find nothing
// (go1.13-errors-wrap). A struct whose one field is that value survives:
// getConcreteValue hands on the field, whole. So the front end converts a
// ʟkeep box (`type ʟkeep_T struct{ T }`, T's methods promoted) instead of
// T: the wrapper then holds T itself, which assertions, type switches,
// errors.As and %T see as T. The box is never seen by the program: every
// way out of the wrapper yields what it holds.

// keepValue boxes e, of a struct type of the session's, where it is
// converted to a compiled interface.
func (r *rewriter) keepValue(e ast.Expr) {
	to := r.convTarget(e)
	if to == nil || !r.compiledIface(substType(to, r.subst)) {
		return
	}
	if text, ok := r.keptText(r.typeOf(e), r.nodeText(e)); ok {
		r.replaceNode(e, text)
	}
}

// keptText is text, a value of type t, in t's ʟkeep box when yaegi would
// lose it in a compiled interface's wrapper; ok is false otherwise.
func (r *rewriter) keptText(t types.Type, text string) (string, bool) {
	named, ok := r.keepType(t)
	if !ok {
		return "", false
	}
	name, tt := r.keepName(named)
	r.ctx.declare(name, func() string { return "type " + name + " struct{ " + tt + " }" })
	// In parentheses: yaegi stores a bare literal in an interface without
	// its methods (ifacelit.go).
	return "(" + name + "{" + text + "})", true
}

// keepName is the name of named's ʟkeep box, with named's text.
func (r *rewriter) keepName(named *types.Named) (name, tt string) {
	tt = r.ctx.typeText(named, nil)
	return "ʟkeep_" + mangle(tt) + "_" + shortHash(named.Underlying().String()), tt
}

// keepType reports a package-level, non-generic struct type of the
// session's with methods and fields: the values yaegi's wrapper loses.
func (r *rewriter) keepType(t types.Type) (*types.Named, bool) {
	if t == nil {
		return nil, false
	}
	named, ok := types.Unalias(substType(t, r.subst)).(*types.Named)
	if !ok || named.TypeParams().Len() > 0 && named.TypeArgs().Len() == 0 || hasTypeParam(named) || r.mentionsLocalType(named, 0) {
		return nil, false // an instance of package-level types is named at the cell's top
	}
	obj := named.Obj()
	if obj.Pkg() == nil || !r.ctx.chk.local(obj.Pkg()) || obj.Parent() != obj.Pkg().Scope() {
		return nil, false
	}
	st, ok := named.Underlying().(*types.Struct)
	if !ok || st.NumFields() == 0 || types.NewMethodSet(named).Len() == 0 {
		return nil, false
	}
	return named, true
}

// compiledIface reports a non-empty interface yaegi converts to with a
// wrapper: error, or one a standard package declares (the session's cells
// and source packages are interpreted, and so are their interfaces).
func (r *rewriter) compiledIface(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok || it.Empty() {
		return false
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	p := named.Obj().Pkg()
	return p == nil || !r.ctx.chk.local(p) && stdPkgPath(p.Path())
}

// stdPkgPath reports an import path of the standard library's form (no
// dot in its first element).
func stdPkgPath(path string) bool {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '.':
			return false
		case '/':
			return true
		}
	}
	return true
}

// convTarget is the type e is implicitly converted to by its parent: the
// variable of a declaration or an assignment, a result of a return, a
// parameter of a call, the operand type of a conversion, an element of a
// composite literal, the element of a channel send; nil elsewhere.
func (r *rewriter) convTarget(e ast.Expr) types.Type {
	if t := r.ifaceTarget(e); t != nil {
		return t
	}
	switch p := r.parent().(type) {
	case *ast.CallExpr:
		return r.argTarget(p, e)
	case *ast.CompositeLit:
		return r.eltTarget(p, e, false)
	case *ast.KeyValueExpr:
		if lit, ok := r.grandparent().(*ast.CompositeLit); ok {
			return r.eltTarget(lit, e, e == p.Key)
		}
	case *ast.SendStmt:
		if ch, ok := r.typeOf(p.Chan).Underlying().(*types.Chan); ok && e == p.Value {
			return ch.Elem()
		}
	}
	return nil
}

func (r *rewriter) grandparent() ast.Node {
	if len(r.stack) < 3 {
		return nil
	}
	return r.stack[len(r.stack)-3]
}

// argTarget is the parameter type argument e of call is passed to, or the
// type of a conversion.
func (r *rewriter) argTarget(call *ast.CallExpr, e ast.Expr) types.Type {
	if tv, ok := r.code.info.Types[call.Fun]; ok && tv.IsType() {
		if len(call.Args) == 1 && call.Args[0] == e {
			return tv.Type
		}
		return nil
	}
	sig, ok := r.typeOf(call.Fun).(*types.Signature)
	if !ok {
		if t := r.typeOf(call.Fun); t != nil {
			sig, ok = t.Underlying().(*types.Signature)
		}
		if !ok {
			return nil
		}
	}
	for i, a := range call.Args {
		if a != e {
			continue
		}
		n := sig.Params().Len()
		switch {
		case sig.Variadic() && i >= n-1:
			if call.Ellipsis.IsValid() {
				return nil
			}
			return sig.Params().At(n - 1).Type().(*types.Slice).Elem()
		case i < n:
			return sig.Params().At(i).Type()
		}
	}
	return nil
}

// eltTarget is the type of the element, key or field e of lit.
func (r *rewriter) eltTarget(lit *ast.CompositeLit, e ast.Expr, key bool) types.Type {
	t := r.typeOf(lit)
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		if !key {
			return u.Elem()
		}
	case *types.Array:
		if !key {
			return u.Elem()
		}
	case *types.Map:
		if key {
			return u.Key()
		}
		return u.Elem()
	case *types.Struct:
		for i, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok && kv.Value == e {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if f, ok := r.code.info.Uses[id].(*types.Var); ok {
						return f.Type()
					}
				}
				return nil
			}
			if el == e && i < u.NumFields() {
				return u.Field(i).Type()
			}
		}
	}
	return nil
}

// A value of the session's types in an empty interface (`var a any =
// MyErr{…}`, what recover() returns after `panic(MyErr{…})`) asserted to
// a compiled interface is converted by yaegi as the static conversion
// was (the struct's last field kept), or not at all (`recover().(error)`
// failed). keepAssert asks comma-ok assertions to the session's struct
// types (and pointers to them) that implement the interface instead (a
// type switch missed a value ʟbox stored; a non-struct type would match a
// value of its underlying type), which convert the value found (a struct
// in its box), and falls back to the assertion.

// keepAssert lowers x.(I), x of an empty interface type and I a compiled
// interface some of the session's types implement.
func (r *rewriter) keepAssert(n *ast.TypeAssertExpr) {
	if n.Type == nil {
		return
	}
	withOK := false
	switch p := r.parent().(type) {
	case *ast.AssignStmt:
		withOK = len(p.Lhs) == 2 && len(p.Rhs) == 1
	case *ast.ValueSpec:
		withOK = len(p.Names) == 2 && len(p.Values) == 1
	}
	if name, ok := r.keepAssertHelper(n.X, r.code.info.TypeOf(n.Type), withOK); ok {
		r.replaceNode(n, name+"("+r.nodeText(n.X)+")")
	}
}

// maxKeepCases bounds the types one assertion helper switches on.
const maxKeepCases = 32

// keepAssertHelper declares the helper asserting x, of an empty
// interface type, to t and returns its name; ok is false when t is no
// compiled interface or none of the session's types implements it.
func (r *rewriter) keepAssertHelper(x ast.Expr, t types.Type, withOK bool) (string, bool) {
	if t == nil || r.subst != nil {
		return "", false
	}
	xt, isIface := r.typeOf(x).Underlying().(*types.Interface)
	if !isIface || !xt.Empty() || !r.compiledIface(t) {
		return "", false
	}
	it := t.Underlying().(*types.Interface)
	var cases []string
	for _, n := range r.ctx.sessionTypes() {
		if _, isStruct := n.Underlying().(*types.Struct); !isStruct {
			continue // yaegi asserts an int in an any to `type code int` too
		}
		for _, ct := range []types.Type{n, types.NewPointer(n)} {
			if !types.Implements(ct, it) {
				continue
			}
			tt := r.ctx.typeText(ct, nil)
			val, kept := r.keptText(ct, "v")
			if !kept {
				val = "v"
			}
			cases = append(cases, "if v, ok := x.("+tt+"); ok { return "+val+"%s }")
		}
	}
	if len(cases) == 0 || len(cases) > maxKeepCases {
		return "", false
	}
	tt := r.ctx.typeText(t, nil)
	name := "ʟkeepAs_" + shortHash(tt+";"+strings.Join(cases, ";"))
	ok, res, fallback := "", tt, "return x.("+tt+")"
	if withOK {
		name += "ok"
		ok, res, fallback = ", true", "("+tt+", bool)", "v, ok := x.("+tt+"); return v, ok"
	}
	r.ctx.declare(name, func() string {
		// Comma-ok assertions: a type switch missed a value ʟbox stored.
		body := strings.ReplaceAll(strings.Join(cases, "; "), "%s", ok)
		return "func " + name + "(x any) " + res + " { " + body + "; " + fallback + " }"
	})
	return name, true
}
