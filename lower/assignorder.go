package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// rangeAssign lowers a range loop that assigns existing variables
// (`for i = range s`), after which yaegi v0.16.1 leaves the variables as
// they were, into one that defines temporaries and assigns them first thing
// in the body, which is what Go does each iteration.
func (r *rewriter) rangeAssign(n *ast.RangeStmt) {
	if n.Tok != token.ASSIGN || n.Key == nil {
		return
	}
	var lhs, tmps []string
	for _, e := range []ast.Expr{n.Key, n.Value} {
		if e == nil {
			continue
		}
		if id, ok := e.(*ast.Ident); ok && id.Name == "_" {
			continue
		}
		t := r.ctx.name("rk")
		lhs = append(lhs, r.nodeText(e))
		tmps = append(tmps, t)
		r.replaceNode(e, t)
	}
	if len(tmps) == 0 {
		return
	}
	r.replace(r.off(n.TokPos), r.off(n.TokPos)+1, ":=")
	r.insert(r.off(n.Body.Lbrace)+1, " "+strings.Join(lhs, ", ")+" = "+strings.Join(tmps, ", ")+";")
}

// tupleAssign lowers `a, b = f(), g()`, where yaegi v0.16.1 assigns a
// before it calls g (so g sees the new a), into temporaries assigned once
// every right-hand operand is evaluated, as the spec's two phases say; so
// is `i, m[i] = 1, 2`, whose index yaegi reads after assigning i. Only
// assignments whose left side has no calls of its own are changed: their
// operands' order against the right side does not matter.
func (r *rewriter) tupleAssign(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) < 2 || len(as.Lhs) != len(as.Rhs) {
		return
	}
	switch p := r.parent().(type) {
	case nil, *ast.BlockStmt, *ast.CaseClause: // nil: a statement at the cell's top level
	case *ast.CommClause:
		if p.Comm == ast.Stmt(as) {
			return
		}
	default:
		return
	}
	calls := false
	for _, e := range as.Rhs {
		_, lit := ast.Unparen(e).(*ast.CompositeLit) // see multilit.go
		calls = calls || hasCallOrRecv(e) || lit
	}
	for _, e := range as.Lhs {
		if hasCallOrRecv(e) {
			return
		}
	}
	if !calls && !r.indexSeesAssigned(as.Lhs) && !r.lateAssignPanics(as.Lhs) {
		return
	}
	var b strings.Builder
	b.WriteString("{ ")
	lhs := make([]string, len(as.Lhs))
	for i, e := range as.Lhs {
		lhs[i] = r.lhsTarget(&b, e) // assignphase.go
	}
	r.tupleLowered(as)
	vals := r.valueTemps(&b, as)
	// One assignment each, in order: yaegi's `i, j = a, b` of interface{}
	// variables panics (reflect.Set ... interp.valueInterface).
	for i := range lhs {
		b.WriteString(lhs[i] + " = " + vals[i] + "; ")
	}
	b.WriteString("}")
	r.replaceNode(as, b.String())
}

// valueTemps writes a temporary for each value of the tuple assignment as
// that is not constant, typed as its left operand, and returns the texts to
// assign (the temporaries and the constants).
func (r *rewriter) valueTemps(b *strings.Builder, as *ast.AssignStmt) []string {
	vals := make([]string, len(as.Rhs))
	for i, e := range as.Rhs {
		if r.code.info.Types[e].Value != nil {
			vals[i] = r.nodeText(e)
			continue
		}
		t := r.ctx.name("tv")
		vals[i] = t
		typ := ""
		if !isBlank(as.Lhs[i]) {
			if lt := r.typeOf(as.Lhs[i]); lt != nil {
				typ = " " + r.ctx.typeText(lt, r.subst)
			}
		}
		b.WriteString("var " + t + typ + " = " + r.nodeText(e) + "; ")
	}
	return vals
}

// indexSeesAssigned reports a left operand `x[i]` whose index reads a
// variable an earlier operand assigns (`i, m[i] = 1, 2`): yaegi evaluates
// the index after that assignment.
func (r *rewriter) indexSeesAssigned(lhs []ast.Expr) bool {
	assigned := map[types.Object]bool{}
	for _, e := range lhs {
		if ix, ok := e.(*ast.IndexExpr); ok {
			seen := false
			ast.Inspect(ix.Index, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && assigned[r.code.info.Uses[id]] {
					seen = true
				}
				return !seen
			})
			if seen {
				return true
			}
		}
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			assigned[r.code.info.Uses[id]] = true
		}
	}
	return false
}

// hasCallOrRecv reports whether e calls a function, receives from a
// channel or dereferences a pointer, any of which may see or change what
// an assignment does, or panic (outside function literals, which it only
// creates).
func hasCallOrRecv(e ast.Expr) bool { return hasEffects(e, true) }

// callsOrReceives reports whether e calls a function or receives from a
// channel: what makes Go evaluate the operand of len of an array.
func callsOrReceives(e ast.Expr) bool { return hasEffects(e, false) }

func hasEffects(e ast.Expr, derefs bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			found = true
		case *ast.StarExpr:
			found = found || derefs
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				found = true
			}
		}
		return !found
	})
	return found
}

// blankDeref lowers `_ = *p` and `m[k] = *p`, which yaegi v0.16.1 does
// not evaluate, or evaluates without panicking on a nil p (storing a zero
// value), into a dereference into a temporary first.
func (r *rewriter) blankDeref(as *ast.AssignStmt) {
	if as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return
	}
	switch l := as.Lhs[0].(type) {
	case *ast.Ident:
		if l.Name != "_" {
			return
		}
	case *ast.IndexExpr:
		if _, isMap := r.typeOf(l.X).Underlying().(*types.Map); !isMap {
			return
		}
	default:
		return
	}
	if _, ok := ast.Unparen(as.Rhs[0]).(*ast.StarExpr); !ok {
		return
	}
	switch r.parent().(type) {
	case nil, *ast.BlockStmt, *ast.CaseClause:
	default:
		return
	}
	t := r.ctx.name("d")
	r.replaceNode(as, "{ "+t+" := "+r.nodeText(as.Rhs[0])+"; "+r.nodeText(as.Lhs[0])+" = "+t+" }")
}

// opAssignOrder lowers `*p += f()` and `x[i] += f()`, where yaegi v0.16.1
// reads *p before calling f and writes it after (f may change p, and
// the result is then neither Go's old nor new target), into the call into
// a temporary first, then the assignment: Go's compiler evaluates the
// call before the operands of the left side.
func (r *rewriter) opAssignOrder(as *ast.AssignStmt) {
	if as.Tok == token.ASSIGN || as.Tok == token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 || !hasCallOrRecv(as.Rhs[0]) {
		return
	}
	switch r.parent().(type) {
	case nil, *ast.BlockStmt, *ast.CaseClause:
	default:
		return
	}
	switch l := as.Lhs[0].(type) {
	case *ast.StarExpr:
		if hasCallOrRecv(l.X) {
			return
		}
	case *ast.IndexExpr:
		if hasCallOrRecv(l.X) || hasCallOrRecv(l.Index) {
			return
		}
	default:
		return
	}
	t := r.typeOf(as.Rhs[0])
	if t == nil {
		return
	}
	v := r.ctx.name("v")
	r.replaceNode(as, "{ var "+v+" "+r.ctx.typeText(t, r.subst)+" = "+r.nodeText(as.Rhs[0])+"; "+r.nodeText(as.Lhs[0])+" "+as.Tok.String()+" "+v+" }")
}
