package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// multiAssignLit lowers a composite literal that is one of two or more
// values of a multi-value definition or var declaration (`got, want := f(),
// []int{1}`, `var a, b = 4, P{2}`) to a call of a
// function literal returning it: yaegi v0.16.1 then loses every other
// value of the statement (got is nil, a is 0), calls, variables and
// constants alike; a value computed by a call is kept. The call keeps the
// literal's place in the order of evaluation.
func (r *rewriter) multiAssignLit(n *ast.CompositeLit) {
	var p ast.Node
	for i := len(r.stack) - 2; i >= 0; i-- {
		if _, ok := r.stack[i].(*ast.ParenExpr); !ok {
			p = r.stack[i]
			break
		}
	}
	var rhs []ast.Expr
	switch p := p.(type) {
	case *ast.AssignStmt:
		// `a, b = x, P{1}` (yaegi leaves a as it was) is tupleAssign's:
		// with a call among the values, its temporaries are needed anyway.
		if p.Tok == token.DEFINE && len(p.Lhs) == len(p.Rhs) {
			rhs = p.Rhs
		}
	case *ast.ValueSpec:
		if len(p.Names) == len(p.Values) {
			rhs = p.Values
		}
	}
	if len(rhs) < 2 {
		return
	}
	direct := false
	for _, e := range rhs {
		direct = direct || ast.Unparen(e) == ast.Expr(n)
	}
	if !direct {
		return
	}
	typ := ""
	if at, ok := n.Type.(*ast.ArrayType); n.Type != nil && !(ok && isEllipsis(at.Len)) {
		typ = r.nodeText(n.Type)
	} else if t := r.typeOf(n); t != nil {
		if _, ok := t.(*types.Named); ok && len(r.shadowNames) > 0 {
			return // a local type may be renamed: its own text is not at hand
		}
		typ = r.ctx.typeText(t, r.subst)
	} else {
		return
	}
	r.replaceNode(n, "func() "+typ+" { return "+r.nodeText(n)+" }()")
}

func isEllipsis(e ast.Expr) bool {
	_, ok := e.(*ast.Ellipsis)
	return ok
}
