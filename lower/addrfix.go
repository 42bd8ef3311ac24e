package lower

import (
	"go/ast"
	"go/token"
	"go/types"
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

// pkgVar lowers a use of a variable of a basic type of an imported
// package, `runtime.MemProfileRate`, to one through its address,
// `(*(&runtime.MemProfileRate))`: yaegi v0.16.1 takes such a variable of a
// compiled package for a constant, refusing an assignment ("cannot assign to
// 524288 (int constant)") and reading, inside a function, the value it had
// when the function was compiled.
func (r *rewriter) pkgVar(sel *ast.SelectorExpr) {
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return
	}
	if _, ok := r.code.info.Uses[id].(*types.PkgName); !ok {
		return
	}
	v, ok := r.code.info.Uses[sel.Sel].(*types.Var)
	if !ok {
		return
	}
	if _, basic := v.Type().Underlying().(*types.Basic); !basic {
		return
	}
	if u, ok := r.parent().(*ast.UnaryExpr); ok && u.Op == token.AND {
		return // already its address
	}
	r.replaceNode(sel, "(*(&"+r.nodeText(sel)+"))")
}
