package lower

import (
	"go/ast"
	"go/types"
)

// bindTypeSwitch lowers a type switch that binds a variable, where a case
// names a session type yaegi v0.16.1's binding switch never matches
// (issue 16; see hasMissedBindCase), into one that binds nothing on a
// temporary, each case binding the variable itself:
//
//	switch v := x.(type) { case T: A; case U, W: B; default: C }
//
// becomes
//
//	switch ʟtsv := x; ʟtsv.(type) { case T: v := ʟtsv.(T); _ = v; A
//	case U, W: v := ʟtsv; _ = v; B
//	default: v := ʟtsv; _ = v; C }
//
// The switch that binds nothing tells the types apart (it matches a Color
// and not a Counter, both ints with methods), where a comma-ok assertion
// does not (assertconcrete.go), so the cases stay yaegi's. A break still
// breaks the switch; fallthrough is not allowed in a type switch. With an
// init statement the new switch is the one case of a tagless switch that
// keeps the init. Switches that errorTypeSwitch writes as assertions, and
// instances of generic code, are left to those.
func (r *rewriter) bindTypeSwitch(s *ast.TypeSwitchStmt) {
	if r.subst != nil || hasErrorCase(r.code.info, s) || r.hasKeepCase(s) || r.hasCompiledIfaceCase(s) || !r.hasMissedBindCase(s) {
		return
	}
	a := s.Assign.(*ast.AssignStmt)
	bind := a.Lhs[0].(*ast.Ident).Name
	ta := a.Rhs[0].(*ast.TypeAssertExpr)
	v := r.ctx.name("tsv")
	head := v + " := " + r.nodeText(ta.X) + "; " + v + ".(type)"
	if s.Init != nil {
		// the init's names stay in scope, and a break (to the label too)
		// still ends the whole: switch init; { default: switch ʟtsv := x; ... } }
		head = "{ default: switch " + head
		r.insert(r.off(s.End()), " }")
	}
	r.replaceNode(s.Assign, head)
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		binding := v
		if len(cc.List) == 1 {
			if tv := r.code.info.Types[cc.List[0]]; !tv.IsNil() {
				binding = v + ".(" + r.nodeText(cc.List[0]) + ")"
			}
		}
		r.insert(r.off(cc.Colon)+1, " "+bind+" := "+binding+"; _ = "+bind+";")
	}
}

// hasMissedBindCase reports, in a type switch that binds a variable
// (`switch v := x.(type)`) on an empty interface, a case
// of a session type that yaegi v0.16.1's binding switch never matches,
// though x.(T) and the same switch without `v :=` do (issue 16):
// bindTypeSwitch then binds it in each case. Measured misses:
// a named non-struct type with methods (`type Color int` with String,
// also `type G[T any] []T`, also with pointer receivers only), and a
// pointer to a type with pointer-receiver methods (*P, *Box[int]).
// Matched, so left alone: structs (Sq with value methods, as Sq or *Sq;
// P with pointer methods as P), promoted methods only, *Color when Color
// has value methods only, and any switch on the session's own interface.
// On a compiled interface (fmt.Stringer) even the switch that binds
// nothing misses a Color, yaegi's wrapper in the way, and on any it
// misses a case of the session's interface (Shape, for a Sq int) that the
// binding switch matches: neither is handled here.
func (r *rewriter) hasMissedBindCase(s *ast.TypeSwitchStmt) bool {
	a, ok := s.Assign.(*ast.AssignStmt)
	if !ok || len(a.Lhs) != 1 {
		return false
	}
	if id, ok := a.Lhs[0].(*ast.Ident); !ok || id.Name == "_" {
		return false
	}
	if subject := typeSwitchSubject(s); subject == nil {
		return false
	} else if t := r.code.info.TypeOf(subject); t == nil || !isEmptyIface(t) {
		return false
	}
	missed := false
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			tv := r.code.info.Types[e]
			if tv.IsType() && types.IsInterface(tv.Type) && r.ctx.declaredInterface(tv.Type) {
				return false // the switch that binds nothing misses `case Shape:` (a Sq int in any)
			}
			missed = missed || tv.IsType() && r.bindSwitchMisses(tv.Type)
		}
	}
	return missed
}

// bindSwitchMisses reports a case type of the session that yaegi's
// binding type switch does not match (see hasMissedBindCase).
func (r *rewriter) bindSwitchMisses(t types.Type) bool {
	ptr := false
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t, ptr = p.Elem(), true
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || !r.ctx.chk.local(named.Obj().Pkg()) {
		return false
	}
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return false
	}
	_, isStruct := named.Underlying().(*types.Struct)
	for i := range named.NumMethods() {
		_, ptrRecv := named.Method(i).Signature().Recv().Type().(*types.Pointer)
		if ptr && ptrRecv || !ptr && !isStruct {
			return true
		}
	}
	return false
}
