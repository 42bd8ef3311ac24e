package lower

import (
	"go/ast"
	"go/types"
)

// universeName renames a constant, variable or function the code declares
// with the name of a predeclared one (`const append = 1`, `len := 3`,
// `func print()`) to `ʟu_NAME`, at its declaration and every use: yaegi
// v0.16.1 failed on such programs ("CFG post-order panic: index out of
// range"), and the code the front end adds calls the predeclared ones
// (`uint(i)`, `panic(...)`). Fields and methods keep their names (they are
// selected, never shadowing anything).
func (r *rewriter) universeName(id *ast.Ident) {
	if types.Universe.Lookup(id.Name) == nil || id.Name == "_" {
		return
	}
	obj := r.code.info.Defs[id]
	if obj == nil {
		obj = r.code.info.Uses[id]
	}
	if obj == nil || obj.Pkg() == nil || obj.Parent() == types.Universe {
		return
	}
	switch o := obj.(type) {
	case *types.Const:
	case *types.Var:
		if o.IsField() {
			return
		}
	case *types.Func:
		if o.Type().(*types.Signature).Recv() != nil {
			return
		}
	default:
		return
	}
	r.replaceNode(id, "ʟu_"+id.Name)
}
