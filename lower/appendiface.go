package lower

import (
	"go/ast"
	"go/types"
)

// appendIface boxes a slice appended as one value to a slice of
// interfaces (`append(xs, ys)` with xs a []any): yaegi v0.16.1 appends the
// slice's elements instead, as if it were `append(xs, ys...)`. So it does
// for a slice type cut by selfslice.go (`type S []S`, `append(s, s)`).
func (r *rewriter) appendIface(call *ast.CallExpr) {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok || call.Ellipsis.IsValid() || len(call.Args) < 2 {
		return
	}
	if b, ok := r.code.info.Uses[id].(*types.Builtin); !ok || b.Name() != "append" {
		return
	}
	s, ok := r.typeOf(call).Underlying().(*types.Slice)
	if !ok || isTypeParam(s.Elem()) {
		return
	}
	elem := r.ctx.typeExprText(s.Elem(), r.subst)
	if _, cut := r.selfElemOf(r.typeOf(call)); cut {
		elem = "interface{}" // see selfslice.go
	} else if !types.IsInterface(s.Elem()) {
		return
	}
	for _, a := range call.Args[1:] {
		t := r.typeOf(a)
		if t == nil {
			continue
		}
		if _, isSlice := t.Underlying().(*types.Slice); isSlice {
			r.replaceNode(a, elem+"("+r.nodeText(a)+")")
		}
	}
}
