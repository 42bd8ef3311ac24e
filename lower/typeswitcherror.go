package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// errorTypeSwitch lowers a type switch with a `case error:` into a switch
// without a tag whose cases are assertions, in the same order:
//
//	switch x := v.(type) { case int: A; case error: B; default: C }
//
// becomes
//
//	switch ʟv := v; { case func() bool { _, ok := ʟv.(int); return ok }(): x := ʟv.(int); A
//	case func() bool { _, ok := ʟv.(error); return ok }(): x := ʟv.(error); B
//	default: x := ʟv; C }
//
// yaegi v0.16.1's type switch never matches `case error` for a value of a
// compiled type (*errors.errorString), though the assertion v.(error)
// does. A labelled switch with an init statement is left as it is (the
// init needs a block of its own, which the label cannot name); so are
// instances of generic code, whose cases typeSwitchInstance rewrites.
// Nor does it match a `case T:` of a struct type held in a ʟkeep box
// (keepvalue.go), which the assertion finds: those are rewritten too.
func (r *rewriter) errorTypeSwitch(s *ast.TypeSwitchStmt) {
	if r.subst != nil || !hasErrorCase(r.code.info, s) && !r.hasKeepCase(s) && !r.hasCompiledIfaceCase(s) {
		return
	}
	_, labeled := r.parent().(*ast.LabeledStmt)
	if labeled && s.Init != nil {
		return
	}
	var bind string
	var ta *ast.TypeAssertExpr
	switch a := s.Assign.(type) {
	case *ast.AssignStmt:
		bind = a.Lhs[0].(*ast.Ident).Name
		ta, _ = a.Rhs[0].(*ast.TypeAssertExpr)
	case *ast.ExprStmt:
		ta, _ = a.X.(*ast.TypeAssertExpr)
	}
	if ta == nil {
		return
	}
	v := r.ctx.name("tsv")
	head := v + " := " + r.nodeText(ta.X) + ";"
	if s.Init != nil {
		r.insert(r.off(s.Pos()), "{ "+r.nodeText(s.Init)+"; ")
		r.replace(r.off(s.Init.Pos()), r.off(s.Assign.End()), head)
		r.insert(r.off(s.End()), " }")
	} else {
		r.replaceNode(s.Assign, head)
	}
	for _, st := range s.Body.List {
		cc := st.(*ast.CaseClause)
		binding := v
		var conds []string
		for _, e := range cc.List {
			if tv := r.code.info.Types[e]; tv.IsNil() {
				conds = append(conds, v+" == nil")
				continue
			}
			t := r.nodeText(e)
			if okName, ok := r.keepAssertHelper(ta.X, r.code.info.TypeOf(e), true); ok {
				// from an empty interface, by the session's types (keepvalue.go)
				one, _ := r.keepAssertHelper(ta.X, r.code.info.TypeOf(e), false)
				conds = append(conds, "func() bool { _, ok := "+okName+"("+v+"); return ok }()")
				if len(cc.List) == 1 {
					binding = one + "(" + v + ")"
				}
				continue
			}
			if okName, one, ok := r.ifaceCaseHelpers(ta.X, r.code.info.TypeOf(e)); ok {
				// from an empty interface, to the session's (typeswitchiface.go)
				conds = append(conds, "func() bool { _, ok := "+okName+"("+v+"); return ok }()")
				if len(cc.List) == 1 {
					binding = one + "(" + v + ")"
				}
				continue
			}
			// A nil interface matches no type (yaegi's comma-ok assertion of
			// a nil error to fmt.Formatter panicked in reflect).
			conds = append(conds, "("+v+" != nil && func() bool { _, ok := "+v+".("+t+"); return ok }())")
			if len(cc.List) == 1 {
				binding = v + ".(" + t + ")"
			}
		}
		if len(cc.List) > 0 {
			r.replace(r.off(cc.List[0].Pos()), r.off(cc.List[len(cc.List)-1].End()), strings.Join(conds, " || "))
		}
		if bind != "" && bind != "_" {
			r.insert(r.off(cc.Colon)+1, " "+bind+" := "+binding+"; _ = "+bind+";")
		}
	}
}

// hasErrorCase reports a case of the predeclared error type.
func hasErrorCase(info *types.Info, s *ast.TypeSwitchStmt) bool {
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if tv := info.Types[e]; tv.IsType() && types.Identical(tv.Type, types.Universe.Lookup("error").Type()) {
				return true
			}
		}
	}
	return false
}

// hasKeepCase reports a case of a type keepvalue.go boxes, in a switch on
// an interface a box can be in: an empty one, or one yaegi compiles. A
// switch on the session's own interface keeps yaegi's type switch, which
// tells apart types of one layout (two empty structs) where an assertion
// does not (yaegi's _test/switch18.go).
func (r *rewriter) hasKeepCase(s *ast.TypeSwitchStmt) bool {
	if subject := typeSwitchSubject(s); subject == nil {
		return false
	} else if t := r.code.info.TypeOf(subject); t == nil || !isEmptyIface(t) && !r.compiledIface(t) {
		return false
	}
	for _, st := range s.Body.List {
		for _, e := range st.(*ast.CaseClause).List {
			if tv := r.code.info.Types[e]; tv.IsType() {
				if _, ok := r.keepType(tv.Type); ok {
					return true
				}
			}
		}
	}
	return false
}

// typeSwitchSubject is the x of switch x.(type) or switch v := x.(type).
func typeSwitchSubject(s *ast.TypeSwitchStmt) ast.Expr {
	var e ast.Expr
	switch a := s.Assign.(type) {
	case *ast.AssignStmt:
		if len(a.Rhs) == 1 {
			e = a.Rhs[0]
		}
	case *ast.ExprStmt:
		e = a.X
	}
	if ta, ok := e.(*ast.TypeAssertExpr); ok {
		return ta.X
	}
	return nil
}
