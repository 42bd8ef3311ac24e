package lower

import (
	"go/ast"
	"go/types"
)

// variadicSlice passes a slice given as the one variadic argument of a call
// of the session's own function as a slice of one element: `log(xs)` with
// `func log(args ...any)` and xs a []any becomes `log([]any{xs}...)`.
// yaegi v0.16.1 spreads a lone variadic argument whose type is the
// parameter's slice type, as if the call were `log(xs...)`: args held xs's
// elements (len 3, not 1; a nil xs gave no argument at all). (So it does
// for a type cut by selfslice.go, `type T []T`, `ln([]T{})`: not lowered,
// `[]T{x}` of such a T is refused by yaegi.)
// Compiled functions are called through reflect, which does not, and are
// left as they are.
func (r *rewriter) variadicSlice(n *ast.CallExpr) {
	if n.Ellipsis.IsValid() || r.code.info.Types[n.Fun].IsType() {
		return
	}
	sig, ok := r.typeOf(n.Fun).(*types.Signature)
	if !ok || !sig.Variadic() || len(n.Args) != sig.Params().Len() {
		return // not exactly one variadic argument
	}
	if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok {
		if _, builtin := r.code.info.Uses[id].(*types.Builtin); builtin {
			return // append: appendiface.go
		}
	}
	if fn := calledFunc(r.code.info, n); fn != nil && fn.Pkg() != nil && !r.ctx.chk.local(fn.Pkg()) {
		return // compiled
	}
	x := n.Args[len(n.Args)-1]
	elem := r.concrete(sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem())
	t := r.typeOf(x)
	if t == nil || r.code.info.Types[x].IsNil() {
		return
	}
	s, ok := t.Underlying().(*types.Slice)
	if !ok || !types.Identical(r.concrete(s.Elem()), elem) {
		return
	}
	if _, cut := r.selfElemOf(elem); cut {
		return // a []T{x} of a cut T would hold x as an element of the cut type, which yaegi refuses
	}
	r.replaceNode(x, "[]"+r.ctx.typeText(elem, r.subst)+"{"+r.nodeText(x)+"}...")
}
