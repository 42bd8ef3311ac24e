package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A select statement evaluates, on entering it, every channel operand of its
// cases and every value it sends, once, in source order; then it chooses.
// yaegi v0.16.1 evaluates them as it goes, so `case <-ch:` then `case
// nilch <- f():`, where f closes ch and sets it to nil, waited on a nil
// channel for ever. When an operand can have an effect (a call, a receive),
// the lowering evaluates them all into variables before the select:
// `{ var ʟsel1 chan int = ch; var ʟsel2 int = f(); select { case <-ʟsel1:
// case nilch <- ʟsel2: } }` (a label stays on the select).

// selOperand is an operand of a select case moved into a variable.
type selOperand struct {
	expr ast.Expr
	name string
	typ  types.Type
	seq  int    // the edit that names it
	text string // its rewritten text, once its node is done
}

// selectState holds the operands named by selectOrderPre until selectOrder
// declares them.
type selectState struct {
	stmts map[*ast.SelectStmt][]*selOperand
	nodes map[ast.Node]*selOperand
}

// selectOrderPre names the operands of s, before its cases are rewritten
// (their rewriting then sees the names).
func (r *rewriter) selectOrderPre(s *ast.SelectStmt) {
	var ops []*selOperand
	effect := false
	add := func(e ast.Expr, t types.Type) {
		if e == nil || t == nil || r.code.info.Types[e].Value != nil {
			return // a constant: no effect, no order
		}
		effect = effect || !sideEffectFree(e)
		ops = append(ops, &selOperand{expr: e, typ: t})
	}
	for _, st := range s.Body.List {
		switch c := st.(*ast.CommClause).Comm.(type) {
		case *ast.SendStmt:
			ct := r.typeOf(c.Chan)
			add(c.Chan, ct)
			if ch, ok := ct.Underlying().(*types.Chan); ok {
				add(c.Value, ch.Elem())
			} else {
				return
			}
		case *ast.ExprStmt:
			add(recvOperand(c.X), r.typeOf(recvOperand(c.X)))
		case *ast.AssignStmt:
			if len(c.Rhs) == 1 {
				add(recvOperand(c.Rhs[0]), r.typeOf(recvOperand(c.Rhs[0])))
			}
		}
	}
	if !effect {
		return
	}
	for _, op := range ops {
		if !r.plainOperand(op.expr) {
			return
		}
	}
	for _, op := range ops {
		if isTypeParam(op.typ) || len(localTypesIn(op.typ, nil, map[types.Type]bool{})) > 0 && r.subst != nil {
			return // a type the instance cannot name
		}
	}
	if r.sel.stmts == nil {
		r.sel.stmts = map[*ast.SelectStmt][]*selOperand{}
		r.sel.nodes = map[ast.Node]*selOperand{}
	}
	for _, op := range ops {
		op.name = r.ctx.name("sel")
		r.replaceNode(op.expr, op.name)
		op.seq = r.seq
		r.sel.nodes[op.expr] = op
	}
	r.sel.stmts[s] = ops
}

// plainOperand reports an operand whose node no other rewrite replaces as a
// whole (a receive, a builtin call or a method value would be): the name
// selectOrderPre gives it then stays.
func (r *rewriter) plainOperand(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident, *ast.StarExpr, *ast.CompositeLit:
		return true
	case *ast.IndexExpr:
		_, generic := r.code.info.TypeOf(e.X).(*types.Signature)
		return !generic
	case *ast.SelectorExpr:
		sel, ok := r.code.info.Selections[e]
		return ok && sel.Kind() == types.FieldVal
	case *ast.CallExpr:
		id, ok := ast.Unparen(e.Fun).(*ast.Ident)
		if !ok {
			return true
		}
		_, builtin := r.code.info.Uses[id].(*types.Builtin)
		return !builtin
	}
	return false
}

// recvOperand returns the channel of a receive expression (nil if e is not one).
func recvOperand(e ast.Expr) ast.Expr {
	if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// selectOrder declares the variables named by selectOrderPre before s, with
// the operands' rewritten text.
func (r *rewriter) selectOrder(s *ast.SelectStmt) {
	ops, ok := r.sel.stmts[s]
	if !ok {
		return
	}
	delete(r.sel.stmts, s)
	var b strings.Builder
	b.WriteString("{ ")
	for _, op := range ops {
		if op.text == "" { // a node whose post was skipped (an identifier pre handled)
			op.text = r.textBelow(op.expr, op.seq)
			delete(r.sel.nodes, op.expr)
		}
		b.WriteString("var " + op.name + " " + r.ctx.typeText(op.typ, r.subst) + " = " + op.text + "; ")
	}
	var at ast.Node = s
	if l, ok := r.parent().(*ast.LabeledStmt); ok {
		at = l
	}
	r.insert(r.off(at.Pos()), b.String())
	r.insert(r.off(s.End()), " }")
}

// selectOperandDone keeps the rewritten text of an operand named by
// selectOrderPre when its node is done (before a case's rewriting folds it
// into its own text).
func (r *rewriter) selectOperandDone(n ast.Node) {
	if op := r.sel.nodes[n]; op != nil {
		op.text = r.textBelow(n, op.seq)
		delete(r.sel.nodes, n)
	}
}

// textBelow is the rewritten text of n without the edit seq that replaced
// it as a whole.
func (r *rewriter) textBelow(n ast.Node, seq int) string {
	saved := r.edits
	kept := make([]edit, 0, len(saved))
	for _, e := range saved {
		if e.seq != seq {
			kept = append(kept, e)
		}
	}
	r.edits = kept
	t := r.nodeText(n)
	r.edits = saved
	return t
}
