package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// selectAssign lowers a select case that receives into existing variables
// (`case x, ok = <-c:`), which yaegi v0.16.1 hands to reflect.Select with
// an invalid direction, into one that defines temporaries and assigns them
// first thing in the case's body.
func (r *rewriter) selectAssign(cc *ast.CommClause) {
	as, ok := cc.Comm.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Rhs) != 1 {
		return
	}
	tmps := make([]string, len(as.Lhs))
	lhs := make([]string, len(as.Lhs))
	for i, l := range as.Lhs {
		tmps[i] = r.ctx.name("recv")
		lhs[i] = r.nodeText(l)
	}
	rhs := r.nodeText(as.Rhs[0])
	r.replaceNode(as, strings.Join(tmps, ", ")+" := "+rhs)
	r.insert(r.off(cc.Colon)+1, " "+strings.Join(lhs, ", ")+" = "+strings.Join(tmps, ", ")+";")
}

// constShift gives the untyped constant of a non-constant shift
// (`1 << s`) the type the expression has in its context, as the spec
// says; yaegi v0.16.1 keeps it int.
func (r *rewriter) constShift(b *ast.BinaryExpr) {
	if b.Op != token.SHL && b.Op != token.SHR {
		return
	}
	info := r.code.info
	tv, xv := info.Types[b], info.Types[b.X]
	if tv.Value != nil || xv.Value == nil || tv.Type == nil {
		return
	}
	t := r.concrete(tv.Type)
	if bt, ok := t.(*types.Basic); ok && (bt.Info()&types.IsUntyped != 0 || bt.Kind() == types.Int) {
		return // int is what yaegi gives it anyway
	}
	r.replaceNode(b.X, r.ctx.typeExprText(t, r.subst)+"("+r.nodeText(b.X)+")")
}
