package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// The second phase of a tuple assignment (`a, b = x, y`): Go evaluates the
// operands of the left side's index expressions and pointer indirections
// first, then assigns left to right, so an assignment that panics (a nil
// pointer, an index out of range) comes after the ones before it have
// happened (fixedbugs/issue23017.go of Go's tests: `m[2], p.i = 3, 2` with
// a nil p sets m[2]). yaegi v0.16.1 dereferences `p.i` before it assigns
// anything, and the bounds checks of boundscheck.go would run before the
// statement; both see the operands as assigned: `p, p.i = new(T), 4` sets
// the new T's i. tupleAssign (assignorder.go) takes the operands into
// temporaries with lhsTarget and checks each index right before its
// assignment.

// lateAssignPanics reports whether a left operand after a non-blank one
// can panic when assigned (an index of a slice, array or string the
// compiler does not check, a field through a pointer, a dereference), or
// reads through a variable an earlier operand assigns.
func (r *rewriter) lateAssignPanics(lhs []ast.Expr) bool {
	assigned := map[types.Object]bool{}
	earlier := false
	for _, e := range lhs {
		if earlier && r.assignMayPanic(e) {
			return true
		}
		if earlier && !isBlank(e) {
			seen := false
			ast.Inspect(e, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && assigned[r.code.info.Uses[id]] {
					seen = true
				}
				return !seen
			})
			if seen && !isIdent(e) {
				return true
			}
		}
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			assigned[r.code.info.Uses[id]] = true
		}
		earlier = earlier || !isBlank(e)
	}
	return false
}

func isIdent(e ast.Expr) bool { _, ok := ast.Unparen(e).(*ast.Ident); return ok }

// assignMayPanic reports whether assigning to e can panic.
func (r *rewriter) assignMayPanic(e ast.Expr) bool {
	switch x := ast.Unparen(e).(type) {
	case *ast.StarExpr:
		return true
	case *ast.SelectorExpr:
		return r.throughPointer(x)
	case *ast.IndexExpr:
		_, ok := r.indexCheck(x)
		return ok
	}
	return false
}

// lhsTarget writes to b the phase-one temporaries of left operand e and
// returns what to assign to, preceded by the bounds check of an index.
func (r *rewriter) lhsTarget(b *strings.Builder, e ast.Expr) string {
	temp := func(x ast.Expr, prefix string) string {
		t := r.ctx.name(prefix)
		b.WriteString("var " + t + " " + r.ctx.typeText(r.typeOf(x), r.subst) + " = " + r.nodeText(x) + "; ")
		return t
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.StarExpr:
		return "*" + temp(x.X, "lp")
	case *ast.SelectorExpr:
		if r.throughPointer(x) {
			return r.lhsBase(b, x.X, temp) + "." + x.Sel.Name
		}
	case *ast.IndexExpr:
		_, checked := r.indexCheck(x)
		s := r.nodeText(x.X)
		switch r.typeOf(x.X).Underlying().(type) {
		case *types.Slice, *types.Map:
			s = temp(x.X, "ls")
		}
		i := r.nodeText(x.Index)
		if !r.isConst(x.Index) {
			i = temp(x.Index, "ix")
		}
		if checked {
			n := "len(" + s + ")"
			check := "if uint(" + i + ") >= uint(" + n + ") { panic(" + r.ctx.qualify(rtPath) + ".IndexFail(int64(" + i + "), " +
				r.signedText(x.Index) + ", " + n + ")) }; "
			return check + s + "[" + i + "]"
		}
		return s + "[" + i + "]"
	}
	return r.nodeText(e)
}

// throughPointer reports whether the field selection x, or one it selects
// from, goes through a pointer (`p.x.y`, p a pointer).
func (r *rewriter) throughPointer(x *ast.SelectorExpr) bool {
	s := r.code.info.Selections[x]
	if s == nil || s.Kind() != types.FieldVal {
		return false
	}
	if s.Indirect() {
		return true
	}
	inner, ok := ast.Unparen(x.X).(*ast.SelectorExpr)
	return ok && r.throughPointer(inner)
}

// lhsBase is the operand x of a field selection through a pointer, the
// pointer taken into a temporary.
func (r *rewriter) lhsBase(b *strings.Builder, x ast.Expr, temp func(ast.Expr, string) string) string {
	if _, ptr := r.typeOf(x).Underlying().(*types.Pointer); ptr {
		return temp(x, "lp")
	}
	if sel, ok := ast.Unparen(x).(*ast.SelectorExpr); ok {
		if s := r.code.info.Selections[sel]; s != nil && s.Kind() == types.FieldVal {
			return r.lhsBase(b, sel.X, temp) + "." + sel.Sel.Name
		}
	}
	return r.nodeText(x)
}

// tupleLowered records that tupleAssign rewrote as, whose bounds checks
// boundsCheck then makes for the operands only (tupleBounds).
func (r *rewriter) tupleLowered(as *ast.AssignStmt) {
	if r.tupled == nil {
		r.tupled = map[*ast.AssignStmt]bool{}
	}
	r.tupled[as] = true
}

// tupleBounds appends the checks of what phase one of as evaluates: its
// values, and the operands of its left side's index expressions.
func (r *rewriter) tupleBounds(as *ast.AssignStmt, out *[]string) {
	var parts []ast.Expr
	for _, e := range as.Lhs {
		if ix, ok := ast.Unparen(e).(*ast.IndexExpr); ok {
			parts = append(parts, ix.X, ix.Index)
			continue
		}
		parts = append(parts, e)
	}
	for _, e := range append(parts, as.Rhs...) {
		r.collectBounds(&ast.ExprStmt{X: e}, out)
	}
}
