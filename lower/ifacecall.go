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

// ifaceConvArg lowers an argument converted to the interface its
// parameter already is, `F(I(S{}))`, to the bare value, `F(S{})`, which
// the call converts: yaegi v0.16.1's type switch on the parameter then
// misses the value's type (`case S:` fails) where an assertion finds it.
func (r *rewriter) ifaceConvArg(call *ast.CallExpr) {
	if r.code.info.Types[call.Fun].IsType() {
		return
	}
	sig, ok := r.typeOf(call.Fun).(*types.Signature)
	if !ok {
		return
	}
	for i, a := range call.Args {
		if i >= sig.Params().Len() || (sig.Variadic() && i >= sig.Params().Len()-1) {
			return
		}
		conv, ok := ast.Unparen(a).(*ast.CallExpr)
		if !ok || len(conv.Args) != 1 || !r.code.info.Types[conv.Fun].IsType() {
			continue
		}
		it, at := r.typeOf(conv), r.typeOf(conv.Args[0])
		pt := substType(sig.Params().At(i).Type(), r.subst)
		if it == nil || at == nil || !types.IsInterface(it) || types.IsInterface(at) || !types.Identical(it, pt) {
			continue
		}
		if _, ok := types.Unalias(it).(*types.TypeParam); ok || r.code.info.Types[conv.Args[0]].IsNil() {
			continue
		}
		text := r.nodeText(conv.Args[0])
		if r.compiledIface(pt) {
			if kept, ok := r.keptText(at, text); ok {
				text = kept // keepvalue.go
			}
		}
		r.replaceNode(a, "("+text+")")
	}
}
