package lower

import (
	"go/ast"
	"go/types"
)

// virtualPkgs are the std packages whose API is all generic: the lowering
// replaces every use by monomorphic code and drops their imports.
var virtualPkgs = map[string]bool{"slices": true, "maps": true, "cmp": true, "iter": true}

func (r *rewriter) ident(n *ast.Ident) bool                               { return true }
func (r *rewriter) selector(n *ast.SelectorExpr)                          {}
func (r *rewriter) instantiation(n ast.Expr, x ast.Expr)                  {}
func (ctx *lowerCtx) instance(obj types.Object, args []types.Type) string { return obj.Name() }
