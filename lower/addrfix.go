package lower

import (
	"go/ast"
	"go/token"
)

// addrArrayPtrElem lowers the address of an element of an array reached
// through a pointer, `&p[i]` with p a *[N]T, to `&(*p)[i]`: yaegi v0.16.1
// refuses the first ("cannot take address of T [kind: indexExpr]") and takes
// the second.
func (r *rewriter) addrArrayPtrElem(u *ast.UnaryExpr) {
	if u.Op != token.AND {
		return
	}
	ix, ok := ast.Unparen(u.X).(*ast.IndexExpr)
	if !ok || !isArrayPtr(r.typeOf(ix.X)) {
		return
	}
	r.replaceNode(ix.X, "(*"+r.nodeText(ix.X)+")")
}
