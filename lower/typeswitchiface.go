package lower

import (
	"go/ast"
	"go/types"
)

// hasCompiledIfaceCase reports a `case fmt.Stringer:` (an interface of a
// standard package other than error, which hasErrorCase finds) in s:
// yaegi v0.16.1's type switch does not match it for a value of the
// session's types held in the session's interface (`switch v :=
// shape.(type) { case fmt.Stringer: ... }` went to default), where the
// assertion does; errorTypeSwitch then writes the switch as assertions.
func (r *rewriter) hasCompiledIfaceCase(s *ast.TypeSwitchStmt) bool {
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if tv := r.code.info.Types[e]; tv.IsType() && r.compiledIface(tv.Type) {
				return true
			}
		}
	}
	return false
}

// ifaceCaseHelpers are, for a case of t, an interface the session
// declares, in a switch on x, an empty interface, that errorTypeSwitch
// writes as assertions, ifaceassert.go's helpers (comma-ok, and one):
// yaegi's own assertion there fails in reflect.Set.
func (r *rewriter) ifaceCaseHelpers(x ast.Expr, t types.Type) (okName, one string, ok bool) {
	xt, isIface := r.typeOf(x).Underlying().(*types.Interface)
	if !isIface || !xt.Empty() || t == nil || !types.IsInterface(t) || !r.ctx.declaredInterface(t) || len(localTypesIn(t, nil, map[types.Type]bool{})) > 0 {
		return "", "", false
	}
	named := r.cellTypeNames()
	return r.ctx.assertHelper(t, named, true), r.ctx.assertHelper(t, named, false), true
}
