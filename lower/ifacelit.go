package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// yaegi v0.16.1 stores a composite literal assigned to a variable of a
// non-empty interface type (`var err error = E{"x"}`, `err = E{…}`, and
// the result variable ifaceReturn writes for `return E{…}`) as the bare
// struct: fmt prints `{x}` and err.Error() panics (`reflect: Method index
// out of range`). The same literal in parentheses is converted as any
// other value. A conversion to an interface of a compiled package
// (`error(x)`, `fmt.Stringer(x)`) of a value of the session's types
// panics (`reflect.Set: value of type … is not assignable to type
// error`), and one to an empty interface (`any(Green)`) loses the type
// (it prints 1, %T int); it becomes a function literal that assigns x to
// a variable of that interface and returns it. So does a value of the session's types
// passed in the variadic part of a compiled function's `...error`
// (errors.Join(a, b): `reflect: cannot use *struct {…} as type error in
// Call`).

// ifaceLit parenthesises, in an assignment or a var declaration, each
// composite literal of the session's types assigned to a non-empty
// interface.
func (r *rewriter) ifaceLit(lhs []types.Type, rhs []ast.Expr, spec bool) {
	if len(lhs) != len(rhs) {
		return
	}
	for i, x := range rhs {
		if lhs[i] != nil && (r.ifaceLitNeeded(lhs[i], x) || spec && len(rhs) > 1 && r.multiLitNeeded(lhs[i], x)) {
			r.replaceNode(x, "("+r.nodeText(x)+")")
		}
	}
}

// multiLitNeeded reports a composite literal assigned to an empty
// interface beside other values (`var a, b any = Green, E{}`): yaegi sets
// the variables before it to nil. (`a, b = Green, E{}` loses a too, and
// fails with the literal in parentheses: not rewritten.)
func (r *rewriter) multiLitNeeded(to types.Type, x ast.Expr) bool {
	if _, lit := x.(*ast.CompositeLit); !lit {
		return false
	}
	it, ok := substType(to, r.subst).Underlying().(*types.Interface)
	return ok && it.Empty()
}

// ifaceLitNeeded reports whether x, assigned to a place of type to, is a
// composite literal of the session's types that yaegi would store bare.
func (r *rewriter) ifaceLitNeeded(to types.Type, x ast.Expr) bool {
	if _, lit := x.(*ast.CompositeLit); !lit {
		return false
	}
	it, ok := substType(to, r.subst).Underlying().(*types.Interface)
	if !ok || it.Empty() {
		return false
	}
	t := r.typeOf(x)
	return t != nil && !types.IsInterface(t) && r.ctx.declaredType(t)
}

// ifaceLitAssign is ifaceLit for `a, b = x, y`.
func (r *rewriter) ifaceLitAssign(n *ast.AssignStmt) {
	if n.Tok != token.ASSIGN {
		return
	}
	lhs := make([]types.Type, len(n.Lhs))
	for i, l := range n.Lhs {
		lhs[i] = r.typeOf(l)
	}
	r.ifaceLit(lhs, n.Rhs, false)
}

// ifaceLitSpec is ifaceLit for `var a, b I = x, y`.
func (r *rewriter) ifaceLitSpec(n *ast.ValueSpec) {
	if n.Type == nil {
		return
	}
	t := r.typeOf(n.Type)
	lhs := make([]types.Type, len(n.Values))
	for i := range lhs {
		lhs[i] = t
	}
	r.ifaceLit(lhs, n.Values, true)
}

// ifaceConv rewrites I(x), I an interface of a compiled package or an
// empty one, and x of a concrete type of the session's.
func (r *rewriter) ifaceConv(n *ast.CallExpr) {
	if len(n.Args) != 1 || n.Ellipsis.IsValid() {
		return
	}
	tv, ok := r.code.info.Types[n.Fun]
	if !ok || !tv.IsType() {
		return
	}
	to := substType(tv.Type, r.subst)
	it, ok := to.Underlying().(*types.Interface)
	if !ok {
		return
	}
	if named, ok := types.Unalias(to).(*types.Named); ok && named.Obj().Pkg() != nil && r.ctx.chk.local(named.Obj().Pkg()) {
		return // the session's own interface: yaegi converts to it
	}
	x := n.Args[0]
	t := r.typeOf(x)
	if t == nil || types.IsInterface(t) || !r.ctx.declaredType(t) || r.code.info.Types[x].IsNil() {
		return
	}
	if _, asserted := r.parent().(*ast.TypeAssertExpr); asserted {
		// any(b).(I) is asserted at once: stored first, yaegi's assertion
		// to an interface would match by layout (typeparam/issue51700.go).
		return
	}
	tt := r.ctx.typeText(to, r.subst)
	v := r.ctx.name("iv")
	val := "(" + r.nodeText(x) + ")"
	if it.Empty() {
		val = r.nodeText(x) // in parentheses, a literal would be stored as yaegi's wrapper
	}
	r.replaceNode(n, "func() "+tt+" { var "+v+" "+tt+" = "+val+"; return "+v+" }()")
}

// ifaceVariadic converts the variadic operands of a call of a compiled
// function whose last parameter is ...I, I a non-empty interface, that
// are of the session's concrete types (see ifaceConv).
func (r *rewriter) ifaceVariadic(n *ast.CallExpr) {
	if n.Ellipsis.IsValid() {
		return
	}
	sig, ok := r.typeOf(n.Fun).(*types.Signature)
	if !ok || !sig.Variadic() || r.code.info.Types[n.Fun].IsType() {
		return
	}
	if fn := calledFunc(r.code.info, n); fn == nil || fn.Pkg() == nil || r.ctx.chk.local(fn.Pkg()) {
		return // the session's own functions take them as they are
	}
	last := sig.Params().Len() - 1
	to := sig.Params().At(last).Type().(*types.Slice).Elem()
	if it, ok := to.Underlying().(*types.Interface); !ok || it.Empty() {
		return
	}
	tt := r.ctx.typeText(to, r.subst)
	for _, x := range n.Args[min(last, len(n.Args)):] {
		t := r.typeOf(x)
		if t == nil || types.IsInterface(t) || !r.ctx.declaredType(t) || r.code.info.Types[x].IsNil() {
			continue
		}
		v := r.ctx.name("iv")
		r.replaceNode(x, "func() "+tt+" { var "+v+" "+tt+" = ("+r.nodeText(x)+"); return "+v+" }()")
	}
}

// calledFunc is the function or method n calls by name, or nil.
func calledFunc(info *types.Info, n *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(n.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}
