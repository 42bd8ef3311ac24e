package lower

import (
	"go/ast"
	"go/types"
)

// An array of the session's types that becomes an interface (`var a any
// = [2]Color{}`) is copied into it, so it has no identity a tag could
// name (fmttag.go): its tag function makes the interface value itself,
// in a box of its own that fmtmirror tags (fmtmirror.TagBox). It returns
// an any, so it is used only where the array becomes an interface
// without methods (an array with methods of its own is yaegi's wrapper,
// which the print site knows).

// tagBoxFunc declares the tag function name of an array of type text tt,
// whose rebuilder is the variable by, and returns name.
func (r *rewriter) tagBoxFunc(name, tt, by string) string {
	rt := r.ctx.qualify(rtPath)
	r.ctx.declare(name, func() string {
		return "func " + name + "(v " + tt + ") interface{} { return " + rt + ".MirrorTagBox(v, " + by + ") }"
	})
	return name
}

// boxable reports whether an array converted to to, by its parent, may
// be passed through its tag function, which returns an any: to is an
// interface without methods, and the parent is not a conversion that a
// print site rebuilds from its operand's static type (fmtstatic.go).
func (r *rewriter) boxable(to types.Type) bool {
	if !emptyIface(to) {
		return false
	}
	call, ok := r.parent().(*ast.CallExpr)
	if !ok {
		return true
	}
	if tv, ok := r.code.info.Types[call.Fun]; ok && tv.IsType() {
		if outer, ok := r.grandparent().(*ast.CallExpr); ok {
			if _, isPrint := r.printFunc(outer); isPrint {
				return false
			}
		}
	}
	return true
}

// emptyIface reports whether t is an interface type without methods (not
// a type parameter, whose instance may be the array's own type).
func emptyIface(t types.Type) bool {
	if _, isParam := types.Unalias(t).(*types.TypeParam); isParam {
		return false
	}
	it, ok := t.Underlying().(*types.Interface)
	return ok && it.NumMethods() == 0 && it.IsMethodSet()
}
