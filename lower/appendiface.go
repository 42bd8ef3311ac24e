package lower

import (
	"go/ast"
	"go/types"
)

// appendIface boxes a slice of empty interfaces appended as one value to
// a slice of them (`append(xs, ys)` with xs and ys []any): yaegi v0.16.1
// appends the slice's elements instead, as if it were `append(xs,
// ys...)`. So it does for a slice type cut by selfslice.go (`type S []S`,
// `append(s, s)`).
func (r *rewriter) appendIface(call *ast.CallExpr) {
	if call.Ellipsis.IsValid() || len(call.Args) < 2 || !r.callsBuiltin(call, "append") {
		return
	}
	s, ok := r.typeOf(call).Underlying().(*types.Slice)
	if !ok || isTypeParam(s.Elem()) {
		return
	}
	_, cut := r.selfElemOf(r.typeOf(call)) // see selfslice.go
	if !cut && !isEmptyIface(s.Elem()) {
		return
	}
	for _, a := range call.Args[1:] {
		t := r.typeOf(a)
		if t == nil {
			continue
		}
		// Only a slice of the same elements is spread (a []byte appended
		// to a []io.Writer is not, and converting it breaks yaegi).
		if as, isSlice := t.Underlying().(*types.Slice); isSlice && (cut || isEmptyIface(as.Elem())) {
			r.replaceNode(a, "interface{}("+r.nodeText(a)+")")
		}
	}
}

func isEmptyIface(t types.Type) bool {
	i, ok := t.Underlying().(*types.Interface)
	return ok && i.NumMethods() == 0 && !isTypeParam(t)
}
