package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// commaOKConv lowers a comma-ok assignment whose value is converted to
// the variable's type, `temp, ok = <-c` with temp an any and c a chan int
// (also m[k] and x.(T)), to one that defines both results and assigns
// them after: yaegi v0.16.1 does not convert the value ("reflect: call of
// reflect.Value.Interface on zero Value" when temp is later used).
func (r *rewriter) commaOKConv(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) != 2 || len(as.Rhs) != 1 {
		return
	}
	switch r.parent().(type) {
	case nil, *ast.BlockStmt, *ast.CaseClause:
	default:
		return
	}
	var valueType types.Type
	switch x := ast.Unparen(as.Rhs[0]).(type) {
	case *ast.IndexExpr:
		if m, ok := r.typeOf(x.X).Underlying().(*types.Map); ok {
			valueType = substType(m.Elem(), r.subst)
		}
	case *ast.TypeAssertExpr:
		if x.Type != nil {
			valueType = substType(r.code.info.TypeOf(x.Type), r.subst)
		}
	case *ast.UnaryExpr:
		if c, ok := r.typeOf(x.X).Underlying().(*types.Chan); ok && x.Op == token.ARROW {
			valueType = substType(c.Elem(), r.subst)
		}
	}
	if valueType == nil || isBlank(as.Lhs[0]) {
		return
	}
	lt := substType(r.code.info.TypeOf(as.Lhs[0]), r.subst)
	if lt == nil || types.Identical(lt, valueType) {
		return
	}
	if !isBlank(as.Lhs[1]) {
		if bt := r.typeOf(as.Lhs[1]); bt == nil || !types.Identical(bt, types.Typ[types.Bool]) {
			return // a named bool takes the untyped result only
		}
	}
	v, ok := r.ctx.name("cv"), r.ctx.name("cok")
	text := "{ " + v + ", " + ok + " := " + r.nodeText(as.Rhs[0]) + "; " + r.nodeText(as.Lhs[0]) + " = " + v + "; "
	if isBlank(as.Lhs[1]) {
		text += "_ = " + ok + " }"
	} else {
		text += r.nodeText(as.Lhs[1]) + " = " + ok + " }"
	}
	r.replaceNode(as, text)
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}
