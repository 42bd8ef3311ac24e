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
// reflect.Value.Interface on zero Value" when temp is later used); so is
// one whose ok is not a bool (`i, ok = <-c` with ok an any: "reflect: call
// of reflect.Value.SetBool on interface Value").
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
	if valueType == nil {
		return
	}
	convValue := false
	if !isBlank(as.Lhs[0]) {
		lt := substType(r.code.info.TypeOf(as.Lhs[0]), r.subst)
		if lt == nil {
			return
		}
		convValue = !types.Identical(lt, valueType)
	}
	// ok of another type than bool: an interface (yaegi: "reflect: call
	// of reflect.Value.SetBool on interface Value") or a named bool.
	okConv := ""
	if !isBlank(as.Lhs[1]) {
		bt := substType(r.code.info.TypeOf(as.Lhs[1]), r.subst)
		if bt == nil {
			return
		}
		switch {
		case types.IsInterface(bt):
			okConv = "=" // assigned as it is: a conversion written here made yaegi run the receive again when ok was read in a later Eval
		case !types.Identical(bt, types.Typ[types.Bool]):
			okConv = r.ctx.typeText(bt, r.subst)
		}
	}
	if !convValue && okConv == "" {
		return
	}
	v, ok := r.ctx.name("cv"), r.ctx.name("cok")
	rhs, open, end := r.nodeText(as.Rhs[0]), "{ ", " }"
	if r.parent() == nil {
		// yaegi: a block at a cell's top level does not see its own
		// variables, and a comma-ok receive defining session variables has
		// a nil type; there the temporaries are the session's (fresh
		// names), defined from a function's two results.
		rhs = "func() (" + r.ctx.typeText(valueType, r.subst) + ", bool) { ʟv, ʟok := " + rhs + "; return ʟv, ʟok }()"
		open, end = "", ""
	}
	text := open + v + ", " + ok + " := " + rhs + "; " + r.nodeText(as.Lhs[0]) + " = " + v + "; "
	switch {
	case isBlank(as.Lhs[1]):
		text += "_ = " + ok
	case okConv == "=":
		text += r.nodeText(as.Lhs[1]) + " = " + ok
	case okConv != "":
		text += r.nodeText(as.Lhs[1]) + " = " + okConv + "(" + ok + ")"
	default:
		text += r.nodeText(as.Lhs[1]) + " = " + ok
	}
	r.replaceNode(as, text+end)
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}
