package lower

import (
	"go/ast"
	"go/types"
)

// ifaceConvCall lowers a method call on a conversion of a concrete value to
// an interface, `Stringer(v).String()`, to the call on the value,
// `(v).String()`, which calls the same method: yaegi v0.16.1 panics on the
// converted value of a named non-struct type ("reflect: call of
// reflect.Value.NumField on int Value"). Common in generic code, where v is
// of a type parameter.
func (r *rewriter) ifaceConvCall(sel *ast.SelectorExpr) {
	call, ok := r.parent().(*ast.CallExpr)
	if !ok || call.Fun != ast.Expr(sel) {
		return
	}
	if s := r.code.info.Selections[sel]; s == nil || s.Kind() != types.MethodVal {
		return
	}
	conv, ok := ast.Unparen(sel.X).(*ast.CallExpr)
	if !ok || len(conv.Args) != 1 || !r.code.info.Types[conv.Fun].IsType() {
		return
	}
	it := r.typeOf(conv)
	at := r.typeOf(conv.Args[0])
	if it == nil || at == nil || !types.IsInterface(it) || types.IsInterface(at) {
		return
	}
	if r.code.info.Types[conv.Args[0]].IsNil() {
		return
	}
	r.replaceNode(sel.X, "("+r.nodeText(conv.Args[0])+")")
}
