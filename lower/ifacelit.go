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
// error`); it becomes a function literal that assigns x to a variable of
// that interface and returns it.

// ifaceLit parenthesises, in an assignment or a var declaration, each
// composite literal of the session's types assigned to a non-empty
// interface.
func (r *rewriter) ifaceLit(lhs []types.Type, rhs []ast.Expr) {
	if len(lhs) != len(rhs) {
		return
	}
	for i, x := range rhs {
		if lhs[i] != nil && r.ifaceLitNeeded(lhs[i], x) {
			r.replaceNode(x, "("+r.nodeText(x)+")")
		}
	}
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
	r.ifaceLit(lhs, n.Rhs)
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
	r.ifaceLit(lhs, n.Values)
}

// ifaceConv rewrites I(x), I a non-empty interface of a compiled package
// and x of a concrete type of the session's.
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
	if !ok || it.Empty() {
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
	tt := r.ctx.typeText(to, r.subst)
	v := r.ctx.name("iv")
	r.replaceNode(n, "func() "+tt+" { var "+v+" "+tt+" = ("+r.nodeText(x)+"); return "+v+" }()")
}
