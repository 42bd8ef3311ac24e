package lower

import (
	"go/ast"
	"go/types"
)

// promotedPath writes the embedded fields a promoted selector goes
// through (`b.val()` as `b.embedded.val()`) when another embedded field of
// a struct on the way also has the name deeper down: Go takes the
// shallowest, yaegi v0.16.1 the first it meets depth first (the method of
// B.A.embedded over B.embedded's). Method values are methodValue's
// (their receiver is bound through the same path).
func (r *rewriter) promotedPath(n *ast.SelectorExpr) {
	sel := r.code.info.Selections[n]
	if sel == nil || len(sel.Index()) < 2 {
		return
	}
	switch sel.Kind() {
	case types.FieldVal:
	case types.MethodVal:
		if call, ok := r.parent().(*ast.CallExpr); !ok || ast.Unparen(call.Fun) != n {
			return
		}
	default:
		return
	}
	name := n.Sel.Name
	pkg := r.ctx.chk.pkg
	text := r.nodeText(n.X)
	t := sel.Recv()
	shadowed := false
	idx := sel.Index()
	for _, i := range idx[:len(idx)-1] {
		if isTypeParam(t) {
			return
		}
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return
		}
		for j := range st.NumFields() {
			if f := st.Field(j); j != i && f.Embedded() {
				if obj, _, _ := types.LookupFieldOrMethod(f.Type(), true, pkg, name); obj != nil {
					shadowed = true
				}
			}
		}
		f := st.Field(i)
		fname := f.Name()
		if inst, ok := r.embeddedInstance(f); ok {
			fname = inst // an embedded generic instance is named by its instance
		}
		text = "(" + text + ")." + fname
		t = f.Type()
	}
	if shadowed {
		r.replaceNode(n.X, text)
	}
}
