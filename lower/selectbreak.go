package lower

import (
	"go/ast"
	"go/token"
)

// selectBreak lowers `break L` inside a select, where L labels an
// enclosing statement, into `goto` a label right after that statement:
// yaegi v0.16.1 never left the loop (`L: for { select { default: break L
// } }` ran for ever). Only inside a function (a cell's top level holds no
// goto), and not when the range-over-func lowering owns the jump.
func (r *rewriter) selectBreak(n *ast.BranchStmt) {
	if n.Tok != token.BREAK || n.Label == nil || len(r.fn().rf) > 0 || r.enclosingFunc() == nil {
		return
	}
	inSelect := false
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch s := r.stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return
		case *ast.SelectStmt:
			inSelect = true
		case *ast.LabeledStmt:
			if s.Label.Name != n.Label.Name {
				continue
			}
			if !inSelect {
				return
			}
			name, ok := r.brkLabels[s]
			if !ok {
				name = r.ctx.name("brk_" + s.Label.Name + "_")
				if r.brkLabels == nil {
					r.brkLabels = map[*ast.LabeledStmt]string{}
				}
				r.brkLabels[s] = name
				r.insert(r.off(s.End()), "\n"+name+": ;")
			}
			r.replaceNode(n, "goto "+name)
			return
		}
	}
}
