package lower

import (
	"go/ast"
	"go/types"
	"strconv"
	"strings"
)

// ifaceAssert lowers x.(I), x an interface{} and I an interface the session
// declares, to a call of a helper that asks with a type switch: yaegi
// v0.16.1's assertion to such an interface fails on a value held in an
// interface{} variable ("reflect.Set: value of type interface {} is not
// assignable to type interp.valueInterface") where its type switch matches
// it. When the switch does not match, the helper panics with Go's
// runtime.Error (comma-ok: yields false).
func (r *rewriter) ifaceAssert(n *ast.TypeAssertExpr) {
	if n.Type == nil {
		return
	}
	t := substType(r.code.info.TypeOf(n.Type), r.subst)
	if t == nil || !types.IsInterface(t) || !r.ctx.declaredInterface(t) {
		return
	}
	// Only from an empty interface: from a non-empty one yaegi asserts
	// well, and its type switch does not (it matched interfaces the
	// value lacks, or missed ones it has).
	xt, ok := r.typeOf(n.X).Underlying().(*types.Interface)
	if !ok || !xt.Empty() || len(localTypesIn(t, nil, map[types.Type]bool{})) > 0 {
		return
	}
	withOK := false
	switch p := r.parent().(type) {
	case *ast.AssignStmt:
		withOK = len(p.Lhs) == 2 && len(p.Rhs) == 1
	case *ast.ValueSpec:
		withOK = len(p.Names) == 2 && len(p.Values) == 1
	}
	name := r.ctx.assertHelper(t, r.cellTypeNames(), withOK)
	r.replaceNode(n, name+"("+r.nodeText(n.X)+")")
}

// declaredInterface reports an interface type of interpreted code: not a
// named interface of a compiled package (error, fmt.Stringer), not empty.
func (ctx *lowerCtx) declaredInterface(t types.Type) bool {
	if n, ok := types.Unalias(t).(*types.Named); ok {
		return ctx.chk.local(n.Obj().Pkg())
	}
	it, ok := t.Underlying().(*types.Interface)
	return ok && !it.Empty()
}

// assertHelper declares the helper asserting an interface{} value to t
// and returns its name.
func (ctx *lowerCtx) assertHelper(t types.Type, named map[*types.TypeName]bool, withOK bool) string {
	tt := ctx.typeText(t, nil)
	it := t.Underlying().(*types.Interface)
	var methods []string
	for i := range it.NumMethods() {
		methods = append(methods, strconv.Quote(it.Method(i).Name()))
	}
	target := types.TypeString(t, func(p *types.Package) string { return p.Name() })
	failed := "e := " + ctx.qualify(rtPath) + ".AssertFailed(x, " + strconv.Quote(target) + ", []string{" + strings.Join(methods, ", ") + "}); panic(e)"
	if withOK {
		failed = "return nil, false"
	}
	// Values of the types that lack t's methods fail first (assertlack.go).
	lacking, key := ctx.lackingSwitch(t, named, failed)
	name := "ʟassert_" + shortHash(tt+key)
	if withOK {
		name += "ok"
		ctx.declare(name, func() string {
			return "func " + name + "(x any) (" + tt + ", bool) { " + lacking + "switch v := x.(type) { case " + tt + ": return v, true }; return nil, false }"
		})
		return name
	}
	ctx.declare(name, func() string {
		return "func " + name + "(x any) " + tt + " { " + lacking + "switch v := x.(type) { case " + tt + ": return v }; " + failed + " }"
	})
	return name
}

// ifaceReturn lowers `return x` of a value of a type the session declares
// where the result is an interface, to a return of a variable of the
// result type holding x: yaegi v0.16.1 returns the bare value, whose
// methods a later assertion does not see ("interface conversion: nil is
// not I"). It also evaluates every result before the return when yaegi
// would see one result set before the next is evaluated: `return b, a`
// of named results swapped nothing, and `return true, *p` that panics
// returned true after recover.
func (r *rewriter) ifaceReturn(n *ast.ReturnStmt) {
	f := r.fn()
	if f.sig == nil || len(n.Results) != f.sig.Results().Len() || len(f.rf) > 0 {
		return
	}
	switch r.parent().(type) {
	case *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
	default:
		return
	}
	ordered := len(n.Results) > 1 && r.resultsInterfere(n.Results, f.sig.Results())
	var decls, vals string
	changed := false
	for i, e := range n.Results {
		rt := substType(f.sig.Results().At(i).Type(), r.subst)
		et := r.typeOf(e)
		v := r.nodeText(e)
		iface := types.IsInterface(rt) && et != nil && !types.IsInterface(et) && (r.ctx.declaredType(et) || isFunc(et))
		if iface || (ordered && r.code.info.Types[e].Value == nil && !r.code.info.Types[e].IsNil()) {
			tmp := r.ctx.name("ret")
			if r.ifaceLitNeeded(rt, e) {
				v = "(" + v + ")" // see ifacelit.go
			}
			decls += "var " + tmp + " " + r.ctx.typeText(rt, nil) + " = " + v + "; "
			v = tmp
			changed = true
		}
		if i > 0 {
			vals += ", "
		}
		vals += v
	}
	if changed {
		r.replaceNode(n, "{ "+decls+"return "+vals+" }")
	}
}

// resultsInterfere reports results of a return whose evaluation may see
// or be cut short after an earlier result is set: a later one that calls,
// dereferences or indexes, or any that reads a named result.
func (r *rewriter) resultsInterfere(results []ast.Expr, vars *types.Tuple) bool {
	named := map[types.Object]bool{}
	for i := range vars.Len() {
		if v := vars.At(i); v.Name() != "" && v.Name() != "_" {
			named[v] = true
		}
	}
	for i, e := range results {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.Ident:
				o := r.code.info.Uses[n]
				if v, ok := o.(*types.Var); ok && r.subst != nil {
					o = v.Origin()
				}
				found = found || named[o]
			case *ast.CallExpr, *ast.StarExpr, *ast.IndexExpr:
				found = found || (i > 0 && !r.code.info.Types[n.(ast.Expr)].IsType())
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// isFunc reports a function type: yaegi returns a function value as an
// interface as its own *interp.node, which no type switch case matches.
func isFunc(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

// declaredType reports a named type of the session, or a pointer to one.
func (ctx *lowerCtx) declaredType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && ctx.chk.local(n.Obj().Pkg())
}
