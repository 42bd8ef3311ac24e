package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

func (r *rewriter) isRangeInt(n *ast.RangeStmt) bool {
	t := r.typeOf(n.X)
	if t == nil {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// rangeInt lowers `for i := range n` to a three-clause loop. n is evaluated
// once; i gets its own variable per iteration, and assigning it in the body
// does not change the iteration count, as in Go.
func (r *rewriter) rangeInt(n *ast.RangeStmt) {
	tv := r.code.info.Types[n.X]
	xt := r.nodeText(n.X)
	var pre, post, zero, limit string
	if tv.Value != nil {
		limit = "(" + xt + ")"
		zero = "0"
		if b, ok := tv.Type.(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 && b.Kind() != types.Int {
			zero = r.ctx.typeExprText(r.concrete(tv.Type), r.subst) + "(0)"
		}
	} else {
		nm := r.ctx.name("n")
		pre, post = "if "+nm+" := "+xt+"; true { ", " }" // a block at top level is no statement to yaegi
		limit, zero = nm, nm+" - "+nm
	}
	key, _ := n.Key.(*ast.Ident)
	hidden := n.Key == nil || n.Tok != token.DEFINE || key == nil || key.Name == "_"
	if !hidden {
		o := r.code.info.Defs[key]
		hidden = o != nil && (r.facts.captured[o] || r.facts.assignedIn(o, n.Body))
	}
	counter := ""
	prologue := ""
	if hidden {
		counter = r.ctx.name("i")
		if n.Key != nil && !(key != nil && key.Name == "_") {
			op := " = "
			if n.Tok == token.DEFINE {
				op = " := "
			}
			prologue = " " + r.nodeText(n.Key) + op + counter + ";"
		}
	} else {
		counter = key.Name
	}
	start := r.off(n.Pos())
	label := ""
	if l, ok := r.parent().(*ast.LabeledStmt); ok {
		start = r.off(l.Pos())
		label = l.Label.Name + ": "
	}
	header := pre + label + "for " + counter + " := " + zero + "; " + counter + " < " + limit + "; " + counter + "++ {" + prologue
	r.replace(start, r.off(n.Body.Lbrace)+1, header)
	if post != "" {
		r.insert(r.off(n.End()), post)
	}
}
