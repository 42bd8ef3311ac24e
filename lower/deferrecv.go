package lower

import (
	"go/ast"
	"go/types"
)

// boundRecv is the receiver a `defer x.M(...)` or `go x.M(...)` must
// evaluate at the statement, as Go does, with its type: yaegi v0.16.1
// read x when the call ran, so `defer s.Show()` with a value receiver saw
// the changes made to s after the defer statement, and `go s.Check()` the
// ones made while the goroutine ran. For a value method the receiver is
// copied (`*p` for a pointer p); for a pointer method called on an
// addressable operand other than a variable (`a[i].M()`), its address is
// taken; an interface is read. ok is false when nothing needs binding (a
// function, a method of a variable through its address, a method
// expression).
func (r *rewriter) boundRecv(call *ast.CallExpr) (recv string, t types.Type, sel *ast.SelectorExpr, ok bool) {
	sel, isSel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !isSel {
		return "", nil, nil, false
	}
	s := r.code.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return "", nil, nil, false
	}
	xt := r.typeOf(sel.X)
	fn, isFn := s.Obj().(*types.Func)
	if xt == nil || !isFn || isTypeParam(xt) {
		return "", nil, nil, false
	}
	x := r.nodeText(sel.X)
	if types.IsInterface(xt) {
		return x, xt, sel, true
	}
	_, recvPtr := fn.Type().(*types.Signature).Recv().Type().Underlying().(*types.Pointer)
	ptr, xPtr := xt.Underlying().(*types.Pointer)
	switch {
	case !recvPtr && xPtr:
		return "*(" + x + ")", ptr.Elem(), sel, true
	case !recvPtr:
		return x, xt, sel, true
	case xPtr:
		return x, xt, sel, true
	}
	if _, isVar := ast.Unparen(sel.X).(*ast.Ident); isVar {
		return "", nil, nil, false // &v is the same each time
	}
	return "&(" + x + ")", types.NewPointer(xt), sel, true
}
