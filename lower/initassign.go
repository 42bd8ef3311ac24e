package lower

import (
	"go/ast"
	"go/token"
	"strings"
)

// initAssign lowers the tuple assignment in the header of an if or switch
// (`if want, got = a+c, f(a); got != want`), where yaegi v0.16.1 lost the
// values computed before the call (want stayed 0), into the same
// assignment through temporaries before the statement, in a block of its
// own: `{ var ʟtv1 T = a+c; var ʟtv2 T = f(a); want, got = ʟtv1, ʟtv2; if
// got != want ... }`. An assignment defines nothing, so nothing changes
// scope. (tupleAssign, assignorder.go, is the same for a statement.)
func (r *rewriter) initAssign(st ast.Stmt) {
	var init ast.Stmt
	switch s := st.(type) {
	case *ast.IfStmt:
		init = s.Init
	case *ast.SwitchStmt:
		init = s.Init
	case *ast.TypeSwitchStmt:
		init = s.Init
	}
	as, ok := init.(*ast.AssignStmt)
	if !ok || as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
		return
	}
	switch p := r.parent().(type) {
	case nil, *ast.BlockStmt, *ast.CaseClause, *ast.CommClause:
	case *ast.IfStmt:
		if p.Else != st {
			return
		}
	default:
		return // a labelled switch: break L must still name it
	}
	calls := false
	for _, e := range as.Rhs {
		calls = calls || hasCallOrRecv(e)
	}
	for _, e := range as.Lhs {
		if hasCallOrRecv(e) {
			return
		}
	}
	if !calls || r.rewritten(st) {
		return
	}
	var b strings.Builder
	b.WriteString("{ ")
	vals := r.valueTemps(&b, as) // assignorder.go
	lhs := make([]string, len(as.Lhs))
	for i, e := range as.Lhs {
		lhs[i] = r.nodeText(e)
	}
	b.WriteString(strings.Join(lhs, ", ") + " = " + strings.Join(vals, ", ") + "; ")
	head := r.text(r.off(st.Pos()), r.off(as.Pos()))
	rest := strings.TrimLeft(r.text(r.off(as.End()), r.off(st.End())), " \t;")
	b.WriteString(head + rest + " }")
	r.replaceNode(st, b.String())
}

// rewritten reports whether an edit already replaces all of n (another
// lowering wrote the statement anew).
func (r *rewriter) rewritten(n ast.Node) bool {
	start, end := r.off(n.Pos()), r.off(n.End())
	for _, e := range r.edits {
		if e.start <= start && e.end >= end && e.end > e.start {
			return true
		}
	}
	return false
}
