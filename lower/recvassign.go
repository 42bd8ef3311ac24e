package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// recvAssign lowers an assignment of a receive to an element, a field or
// a dereference (`xs[i] = <-c`, `s.f = <-c`, `*p = <-c`, also `xs[i], ok =
// <-c`): in its cancellable channel mode, which every cell runs in, yaegi
// v0.16.1 receives the value and stores a zero there (a variable or a map
// element gets it). The value goes through a variable first: in a block,
// `{ ʟrv := <-c; xs[i] = ʟrv }` when nothing on the left calls or
// receives (so their order does not matter); elsewhere (a loop's post
// statement) the receive is made in a function literal.
func (r *rewriter) recvAssign(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Rhs) != 1 && len(as.Rhs) != len(as.Lhs) {
		return
	}
	if cc, ok := r.parent().(*ast.CommClause); ok && cc.Comm == ast.Stmt(as) {
		return // a select case's: selectAssign's
	}
	elem := func(e ast.Expr) bool {
		switch ast.Unparen(e).(type) {
		case *ast.Ident:
			return false
		case *ast.IndexExpr:
			return !r.isMapIndex(e)
		}
		return true
	}
	if len(as.Lhs) == 2 && len(as.Rhs) == 1 {
		u, ok := ast.Unparen(as.Rhs[0]).(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW || !elem(as.Lhs[0]) {
			return
		}
		t := r.typeOf(as.Lhs[0])
		c, ok := r.typeOf(u.X).Underlying().(*types.Chan)
		if t == nil || !ok {
			return
		}
		et := r.ctx.typeText(c.Elem(), r.subst)
		r.replaceNode(as.Rhs[0], "func() ("+et+", bool) { ʟv, ʟok := "+r.nodeText(u)+"; return ʟv, ʟok }()")
		return
	}
	if len(as.Lhs) != len(as.Rhs) {
		return
	}
	lhsEffects := false
	for _, e := range as.Lhs {
		lhsEffects = lhsEffects || hasCallOrRecv(e)
	}
	block := len(as.Lhs) == 1 && !lhsEffects && r.inStmtList(as)
	for i, e := range as.Rhs {
		u, ok := ast.Unparen(e).(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW || !elem(as.Lhs[i]) {
			continue
		}
		c, ok := r.typeOf(u.X).Underlying().(*types.Chan)
		if !ok {
			continue
		}
		et := r.ctx.typeText(c.Elem(), r.subst)
		if block {
			v := r.ctx.name("rv")
			r.replaceNode(as, "{ "+v+" := "+r.nodeText(u)+"; "+r.nodeText(as.Lhs[0])+" = "+v+" }")
			return
		}
		v := r.ctx.name("rv")
		r.replaceNode(e, "func() "+et+" { "+v+" := "+r.nodeText(u)+"; return "+v+" }()")
	}
}
