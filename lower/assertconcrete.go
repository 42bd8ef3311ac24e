package lower

import (
	"go/ast"
	"go/types"
	"sort"
	"strings"
)

// concreteAssert lowers `v, ok := x.(T)`, T a type of the session with
// methods, to a helper that fails first on the other types of the cell of
// T's representation that have methods: yaegi v0.16.1's comma-ok
// assertion says ok for them (interface/convert.go of Go's tests: `s.(U)`
// of a T, both strings with methods). A type switch that binds no variable
// tells them apart (yaegi boxes such values with their type); where it
// matches none of them, yaegi's assertion answers (the switch missed a T
// in some places, e.g. errors' wrappers).
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
	if !ok || !r.sessionTypeWithMethods(named) {
		return
	}
	var others []string
	for tn := range r.cellTypeNames() {
		o, ok := tn.Type().(*types.Named)
		if ok && o != named && !tn.IsAlias() && r.sessionTypeWithMethods(o) && types.Identical(o.Underlying(), named.Underlying()) {
			others = append(others, r.ctx.typeText(o, nil))
		}
	}
	if len(others) == 0 {
		return
	}
	sort.Strings(others)
	tt := r.ctx.typeText(named, nil)
	name := "ʟcassert_" + shortHash(tt+";"+strings.Join(others, ",")) + "ok"
	r.ctx.declare(name, func() string {
		var b strings.Builder
		b.WriteString("func " + name + "(x any) (" + tt + ", bool) { var z " + tt + "; switch x.(type) { ")
		for _, o := range others {
			b.WriteString("case " + o + ": return z, false; ")
		}
		b.WriteString("}; v, ok := x.(" + tt + "); return v, ok }")
		return b.String()
	})
	r.replaceNode(n, name+"("+r.nodeText(n.X)+")")
}

// sessionTypeWithMethods reports a non-generic package-level type of the
// session that has methods (on it or its pointer).
func (r *rewriter) sessionTypeWithMethods(n *types.Named) bool {
	return r.ctx.chk.local(n.Obj().Pkg()) && n.TypeParams().Len() == 0 && n.TypeArgs().Len() == 0 &&
		n.Obj().Parent() == n.Obj().Pkg().Scope() && !types.IsInterface(n) && types.NewMethodSet(types.NewPointer(n)).Len() > 0
}
