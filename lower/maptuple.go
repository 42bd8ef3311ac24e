package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// mapTupleAssign lowers an assignment of one multi-valued operand (a call,
// or a comma-ok form) to several targets, one of them a map element:
// `m[k], err = strconv.Atoi(s)`. yaegi v0.16.1 stores nothing in the map.
// The values go to temporaries and are then assigned one by one. The
// operands of the left side's index expressions and pointer indirections
// are evaluated first, into temporaries, as the spec's first phase says
// (`*g(), m[f()] = h()` calls g, f, h in that order). At a cell's top
// level the statements run in a function of their own.
func (r *rewriter) mapTupleAssign(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Rhs) != 1 {
		return
	}
	if cc, ok := r.parent().(*ast.CommClause); ok && cc.Comm == ast.Stmt(as) {
		return // a select case's: selectAssign's
	}
	hasMap := false
	for _, e := range as.Lhs {
		hasMap = hasMap || r.isMapIndex(e)
	}
	if !hasMap || !r.inStmtList(as) {
		return
	}
	var b strings.Builder
	b.WriteString("{ ")
	temp := func(e ast.Expr) string {
		tv := r.code.info.Types[e]
		if tv.Value != nil || tv.IsNil() {
			return r.nodeText(e)
		}
		if id, ok := ast.Unparen(e).(*ast.Ident); ok && !r.defines(id) {
			if _, v := r.code.info.Uses[id].(*types.Var); !v {
				return r.nodeText(e)
			}
		}
		t := r.ctx.name("lv")
		b.WriteString(t + " := " + r.nodeText(e) + "; ")
		return t
	}
	lhs := make([]string, len(as.Lhs))
	for i, e := range as.Lhs {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			if r.isMapIndex(x) {
				m := temp(x.X)
				lhs[i] = m + "[" + r.mapKeyText(x, temp(x.Index)) + "]"
				continue
			}
		case *ast.StarExpr:
			if hasCallOrRecv(x.X) {
				lhs[i] = "*" + temp(x.X)
				continue
			}
		}
		lhs[i] = r.nodeText(e)
	}
	vals := make([]string, len(as.Lhs))
	for i, e := range as.Lhs {
		if isBlank(e) {
			vals[i] = "_"
			continue
		}
		vals[i] = r.ctx.name("tv")
	}
	b.WriteString(strings.Join(vals, ", ") + " := " + r.nodeText(as.Rhs[0]) + "; ")
	for i := range as.Lhs {
		if vals[i] != "_" {
			b.WriteString(lhs[i] + " = " + vals[i] + "; ")
		}
	}
	b.WriteString("}")
	if r.topLevel() {
		// yaegi cannot define two variables from one value outside
		// functions (see needsFuncScope), and runs a function literal
		// called at top level again in later Evals: a named one.
		fn := r.ctx.name("stmt")
		r.replaceNode(as, "func "+fn+"() "+b.String()+"\n"+fn+"()")
		r.ctx.s.noteCall(fn + "()")
		return
	}
	r.replaceNode(as, b.String())
}

// isMapIndex reports an index expression of a map.
func (r *rewriter) isMapIndex(e ast.Expr) bool {
	x, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	t := r.typeOf(x.X)
	if t == nil {
		return false
	}
	_, ok = t.Underlying().(*types.Map)
	return ok
}

// mapKeyText writes key, the text of x's index, as a value of the map's
// key type where the index is an untyped constant or of another type
// assignable to it (a temporary would take the index's own type).
func (r *rewriter) mapKeyText(x *ast.IndexExpr, key string) string {
	m := r.typeOf(x.X).Underlying().(*types.Map)
	if kt := r.typeOf(x.Index); kt != nil && types.Identical(kt, m.Key()) {
		return key
	}
	return r.ctx.typeText(m.Key(), r.subst) + "(" + key + ")"
}
