package lower

import (
	"go/ast"
	"go/types"
)

// anyAlias writes the predeclared alias any as interface{}: yaegi v0.16.1
// keeps them apart in composite types (`&x == &y` of `var x any` and
// `var y interface{}` is "mismatched types *any and *interface{}"), where
// they are one type.
func (r *rewriter) anyAlias(id *ast.Ident) {
	if id.Name != "any" {
		return
	}
	if obj := r.code.info.Uses[id]; obj != nil && obj == types.Universe.Lookup("any") {
		r.replaceNode(id, "interface{}")
	}
}
