package lower

import (
	"go/ast"
	"go/types"
)

// concreteAssert lowers `v, ok := x.(T)`, T a type of the session with
// methods, to a helper that asks a type switch first: yaegi v0.16.1's
// comma-ok assertion says ok for a value of another type of the same
// representation (interface/convert.go of Go's tests: `s.(U)` of a T, both
// strings with methods), where a switch that binds no variable tells the
// two apart (yaegi boxes such values with their type; assertlack.go).
func (r *rewriter) concreteAssert(n *ast.TypeAssertExpr) {
	if n.Type == nil || r.subst != nil {
		return
	}
	switch p := r.parent().(type) {
	case *ast.AssignStmt:
		if len(p.Lhs) != 2 || len(p.Rhs) != 1 {
			return
		}
	case *ast.ValueSpec:
		if len(p.Names) != 2 || len(p.Values) != 1 {
			return
		}
	default:
		return
	}
	t := r.code.info.TypeOf(n.Type)
	if t == nil || types.IsInterface(t) || !types.IsInterface(r.typeOf(n.X)) || isTypeParam(r.typeOf(n.X)) {
		return
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || !r.ctx.chk.local(named.Obj().Pkg()) || named.TypeParams().Len() > 0 || named.TypeArgs().Len() > 0 ||
		named.Obj().Parent() != named.Obj().Pkg().Scope() || types.NewMethodSet(named).Len() == 0 {
		return
	}
	tt := r.ctx.typeText(named, nil)
	name := "ʟcassert_" + shortHash(tt) + "ok"
	r.ctx.declare(name, func() string {
		return "func " + name + "(x any) (" + tt + ", bool) { switch x.(type) { case " + tt + ": v, ok := x.(" + tt + "); return v, ok }; var z " + tt + "; return z, false }"
	})
	r.replaceNode(n, name+"("+r.nodeText(n.X)+")")
}
