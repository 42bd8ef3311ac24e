package lower

import (
	"go/ast"
	"go/types"
)

// topLevelLitCall lowers a cell's statement that calls a function literal
// with no results (`func() { fmt.Println(1) }()`): yaegi v0.16.1 runs such
// a call again after every later Eval (a later cell printed 1 again; a
// literal that receives blocked the session). The literal becomes a
// function declared just before the statement, the statement its call.
// (A literal with results is shown at the prompt: left alone.)
func (r *rewriter) topLevelLitCall(st *ast.ExprStmt) {
	if !r.topLevel() || len(r.stack) != 1 {
		return
	}
	call, ok := ast.Unparen(st.X).(*ast.CallExpr)
	if !ok {
		return
	}
	lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit)
	if !ok {
		return
	}
	if sig, ok := r.code.info.TypeOf(lit).(*types.Signature); !ok || sig.Results().Len() > 0 {
		return
	}
	name := r.ctx.name("lit")
	decl := "func " + name + r.nodeText(lit.Type.Params) + " " + r.nodeText(lit.Body) + "\n"
	r.replaceNode(call.Fun, name) // first: it would drop the insertion at the same offset
	r.insert(r.off(st.Pos()), decl)
}
