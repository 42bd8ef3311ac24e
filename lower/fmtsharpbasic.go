package lower

import (
	"go/ast"
	"go/types"
)

// sharpBasic lowers a %#v operand of a session type with methods whose
// underlying type is basic (`type Color int` with a String method) to its
// value converted to that type: %#v prints such a value as its value only
// (`1`), and yaegi handed fmt its own wrapper for the compiled interface
// the methods make (`stdlib._fmt_Stringer{IValue:1, WString:...}`). A
// GoString or Format method is boxGoSyntax's.
func (r *rewriter) sharpBasic(a ast.Expr, t types.Type) bool {
	n, ok := types.Unalias(substType(t, r.subst)).(*types.Named)
	if !ok || !r.ctx.declaredType(n) || types.NewMethodSet(n).Len() == 0 {
		return false
	}
	b, ok := n.Underlying().(*types.Basic)
	if !ok || r.formats(n) {
		return false
	}
	m := &mirror{r: r}
	if m.goStringer(n) {
		return false
	}
	r.replaceNode(a, b.Name()+"("+r.nodeText(a)+")")
	return true
}
