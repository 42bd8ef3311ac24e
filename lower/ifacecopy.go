package lower

import (
	"go/ast"
	"go/types"
)

// In Go an interface holds a copy of the value put in it. yaegi v0.16.1
// puts a value of an interpreted type with methods in an interface as a
// reference to the slot that held it: the variable, or the frame slot of
// the literal or call that made it, which the next turn of a loop
// overwrites. So `for i := 0; i < 3; i++ { v.x = i; s = append(s, any(v)) }`
// gave three times the last v, and `var i any = w; w.x = 5` changed i.
// The front end makes the copy explicit, in a slot of its own:
//   - into an interpreted or empty interface, the value is `*ʟcopy_T(v)`,
//     a pointer's target that no one else writes (the box of ifacebox.go
//     and the conversion of ifacelit.go then take that);
//   - into a compiled interface (error, fmt.Stringer), the conversion
//     happens in a call of its own, `func(ʟc T) I { return ʟc }(v)` (of
//     the `ʟkeep_T{v}` literal keepvalue.go makes of a struct): the
//     wrapper of the conversion then refers to the call's parameter.
// Only where it matters: in a loop, or of a value that can change later
// (inLoop is boundscheck.go's).

// ifaceCopy copies e, of a session type with methods, where it is
// converted to an interpreted or empty interface; before ifaceBox.
func (r *rewriter) ifaceCopy(e ast.Expr) {
	to, et, ok := r.copyTarget(e)
	if !ok || r.compiledIface(to) || !r.inLoop() && !addressable(e) {
		return
	}
	tt := r.ctx.typeText(et, r.subst)
	name := "ʟcopy_" + mangle(tt) + "_" + shortHash(et.Underlying().String())
	r.ctx.declare(name, func() string { return "func " + name + "(x " + tt + ") *" + tt + " { return &x }" })
	r.replaceNode(e, "*"+name+"("+r.nodeText(e)+")")
}

// ifaceCopyKept puts the conversion of e (or of its ʟkeep box) to a
// compiled interface in a call of its own, in a loop; after keepValue.
func (r *rewriter) ifaceCopyKept(e ast.Expr) {
	to, et, ok := r.copyTarget(e)
	if !ok || !r.compiledIface(to) {
		return
	}
	param := r.ctx.typeText(et, r.subst) // a type keepValue leaves alone
	named, kept := r.keepType(et)
	if kept {
		param, _ = r.keepName(named)
	}
	if !r.inLoop() && (kept || !addressable(e)) {
		return // the ʟkeep literal is a copy already
	}
	it := r.ctx.typeText(to, nil)
	r.replaceNode(e, "func(ʟc "+param+") "+it+" { return ʟc }("+r.nodeText(e)+")")
}

// copyTarget is the interface e is converted to, with e's type, when that
// is a package-level, non-generic type of the session's with methods, not
// a pointer.
func (r *rewriter) copyTarget(e ast.Expr) (to, et types.Type, ok bool) {
	if r.subst != nil {
		return nil, nil, false // an instance of generic code: left as it is
	}
	to = r.convTarget(e)
	if to == nil {
		return nil, nil, false
	}
	to = substType(to, r.subst)
	tv := r.code.info.Types[e]
	if !types.IsInterface(to) || isTypeParam(to) || tv.Value != nil || tv.IsNil() || tv.IsType() {
		return nil, nil, false
	}
	if call, ok := r.parent().(*ast.CallExpr); ok && r.compiledFunc(call) {
		return nil, nil, false // fmt.Println(v): the interface ends with the call
	}
	if r.selectSend() {
		return nil, nil, false // yaegi's select sends only a plain value ("SendDir case missing Send value")
	}
	et = r.typeOf(e)
	if et == nil || types.IsInterface(et) || isTypeParam(et) || !r.ctx.declaredType(et) || !r.pkgLevelType(et) {
		return nil, nil, false // (ʟcopy_T is declared at the cell's top)
	}
	if n, ok := types.Unalias(et).(*types.Named); ok && n.TypeArgs().Len() > 0 {
		return nil, nil, false
	}
	if _, ptr := et.Underlying().(*types.Pointer); ptr || types.NewMethodSet(et).Len() == 0 {
		return nil, nil, false
	}
	return to, et, true
}

// compiledFunc reports a call of a function of a package outside the
// session (pkg.F(...)).
func (r *rewriter) compiledFunc(call *ast.CallExpr) bool {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := r.code.info.Uses[sel.Sel].(*types.Func)
	return ok && fn.Pkg() != nil && !r.ctx.chk.local(fn.Pkg())
}

// addressable reports an operand that names storage: a variable, a field
// or element of one, a pointer's target.
func addressable(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.StarExpr:
		return true
	case *ast.SelectorExpr:
		return addressable(e.X)
	case *ast.IndexExpr:
		return addressable(e.X)
	}
	return false
}

// selectSend reports whether the expression being rewritten is the value
// of a send that is a select case (`case c <- v:`): yaegi v0.16.1's select
// panics when that value is a call.
func (r *rewriter) selectSend() bool {
	n := len(r.stack)
	if n < 3 {
		return false
	}
	s, ok := r.stack[n-2].(*ast.SendStmt)
	if !ok || s.Value != r.stack[n-1] {
		return false
	}
	cc, ok := r.stack[n-3].(*ast.CommClause)
	return ok && cc.Comm == s
}
