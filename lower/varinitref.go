package lower

import (
	"go/ast"
	"go/types"
)

// yaegi v0.16.1 orders a cell's package variables by the variables their
// values name (cfg.go, genGlobalVarDecl), and counts among them variables
// of earlier Evals, which it never initializes in this one: `var w = 2*l`
// in a later cell than l's fails with "variable definition loop" (and w
// stays 0). initOrder then assigns the cell's variables in one function of
// its own (namesEarlierVar), which yaegi does not search for variables.

// namesEarlierVar reports whether a value of inits names a package-level
// variable that an earlier cell declared.
func (r *rewriter) namesEarlierVar(c *cell, inits []*types.Initializer) bool {
	info := r.code.info
	found := false
	for _, in := range inits {
		ast.Inspect(in.Rhs, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return !found
			}
			if v, ok := info.Uses[id].(*types.Var); ok && r.ctx.chk.local(v.Pkg()) && v.Parent() == v.Pkg().Scope() && !c.contains(v.Pos()) {
				found = true
			}
			return false
		})
	}
	return found
}

// initFunc is the declarations that run body (assignments, each ending in
// "; ") among the cell's declarations: a named function, in which yaegi
// looks for no variables, whose result a blank variable takes. (A later
// cell may declare the name again, as with the functions of wrapped
// statements.)
func (r *rewriter) initFunc(body string) string {
	fn := r.ctx.name("init")
	return "func " + fn + "() bool { " + body + "return true }\nvar _ = " + fn + "()"
}
