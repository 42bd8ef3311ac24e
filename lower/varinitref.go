package lower

import (
	"go/ast"
	"go/types"
	"sort"
	"strings"
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
// looks for no variables, whose result a variable of its own takes (yaegi
// ran two blank ones out of order). A later cell may declare the names
// again, as with the functions of wrapped statements.
func (r *rewriter) initFunc(body string) string {
	fn := r.ctx.name("init")
	return "func " + fn + "() bool { " + body + "return true }\nvar " + fn + "ok = " + fn + "()"
}

// hoistedRefs reports whether a value of the cell's var declarations names
// a variable that a statement of the cell defines (`l := 3` then `var w =
// 2*l`): the cell then runs in its order (declsUseCellVars), each
// declaration after the statements before it, and for yaegi l is a
// variable of an earlier Eval.
func (r *rewriter) hoistedRefs(c *cell, decls []*ast.GenDecl) bool {
	hoisted := map[types.Object]bool{}
	for _, d := range c.hoisted {
		for _, n := range d.Specs[0].(*ast.ValueSpec).Names {
			if o := r.code.info.Defs[n]; o != nil {
				hoisted[o] = true
			}
		}
	}
	found := false
	for _, g := range decls {
		ast.Inspect(g, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && hoisted[r.code.info.Uses[id]] {
				found = true
			}
			return !found
		})
	}
	return found
}

// initInPlace writes each var declaration of decls that has values as the
// variables' declaration followed by an initFunc that assigns them, where
// the declaration was: the cell's order is kept.
func (r *rewriter) initInPlace(decls []*ast.GenDecl) {
	info := r.code.info
	for _, g := range decls {
		var specs []string
		var body strings.Builder
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			names := make([]string, len(vs.Names))
			for i, id := range vs.Names {
				names[i] = id.Name
				if v, ok := info.Defs[id].(*types.Var); ok && id.Name != "_" {
					specs = append(specs, id.Name+" "+r.ctx.typeText(v.Type(), nil))
				}
			}
			if len(vs.Values) == 0 {
				continue
			}
			vals := make([]string, len(vs.Values))
			for i, e := range vs.Values {
				vals[i] = r.nodeText(e)
			}
			body.WriteString(strings.Join(names, ", ") + " = " + strings.Join(vals, ", ") + "; ")
		}
		if body.Len() == 0 {
			continue // no values: nothing to initialize
		}
		text := ""
		if len(specs) > 0 {
			text = "var (" + strings.Join(specs, "; ") + ")\n"
		}
		r.replaceNode(g, text+r.initFunc(body.String()))
	}
}

// declsFirst moves the declarations of a cell that keeps its order ahead
// of its statements, after its imports, except those that name a variable
// a statement defines or such a declaration (they stay where they are):
// code the lowering adds names the session's types and their methods (a
// %T's type switch, the helpers at the cell's top), which a statement's
// piece ran before a declaration after it ("undefined: Sq", issue 16).
// Go runs every declaration before the statements, as the moved ones do.
func declsFirst(c *cell, info *types.Info, order []int) {
	stays := stayingDecls(c, info)
	rank := func(i int) int {
		switch {
		case c.units[i].kind == unitImport:
			return 0
		case c.units[i].kind == unitDecl && !stays[i]:
			return 1
		}
		return 2
	}
	sort.SliceStable(order, func(i, j int) bool { return rank(order[i]) < rank(order[j]) })
}

// namesAny reports whether n uses an object of objs.
func namesAny(n ast.Node, info *types.Info, objs map[types.Object]bool) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && objs[info.Uses[id]] {
			found = true
		}
		return !found
	})
	return found
}

// stayingDecls is the units of the cell's declarations that name a
// variable a statement defines, or such a declaration: in a cell that
// keeps its order they stay after the statements before them.
func stayingDecls(c *cell, info *types.Info) map[int]bool {
	late := map[types.Object]bool{} // the statements' variables, then the declarations that stay
	for _, d := range c.hoisted {
		for _, n := range d.Specs[0].(*ast.ValueSpec).Names {
			if o := info.Defs[n]; o != nil {
				late[o] = true
			}
		}
	}
	stays := map[int]bool{}
	for changed := true; changed; {
		changed = false
		for _, d := range c.decls {
			u := c.unitOf[d]
			if stays[u] || !namesAny(d, info, late) {
				continue
			}
			stays[u], changed = true, true
			ast.Inspect(d, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && info.Defs[id] != nil {
					late[info.Defs[id]] = true
				}
				return true
			})
		}
	}
	return stays
}

// initKeptOrder initializes the var declarations of a cell that keeps its
// order: those that stay (stayingDecls) in place, the others, which run
// first (declsFirst), in Go's order by one initFunc after the last of
// them (`var a = b + 1` before `var b = 2` made a 1).
func (r *rewriter) initKeptOrder(c *cell, info *types.Info, decls []*ast.GenDecl) {
	stays := stayingDecls(c, info)
	var kept, moved []*ast.GenDecl
	movedVar := map[*types.Var]bool{}
	for _, g := range decls {
		if stays[c.unitOf[g]] {
			kept = append(kept, g)
			continue
		}
		moved = append(moved, g)
		for _, s := range g.Specs {
			for _, id := range s.(*ast.ValueSpec).Names {
				if v, ok := info.Defs[id].(*types.Var); ok {
					movedVar[v] = true
				}
			}
		}
	}
	r.initInPlace(kept)
	// The values' text first: replacing a declaration drops the edits inside it.
	var body strings.Builder
	for _, in := range info.InitOrder {
		if len(in.Lhs) == 0 || !movedVar[in.Lhs[0]] {
			continue
		}
		names := make([]string, len(in.Lhs))
		for i, v := range in.Lhs {
			names[i] = v.Name()
		}
		body.WriteString(strings.Join(names, ", ") + " = " + r.nodeText(in.Rhs) + "; ")
	}
	if body.Len() == 0 {
		return
	}
	last := moved[0]
	for _, g := range moved {
		var specs []string
		for _, s := range g.Specs {
			for _, id := range s.(*ast.ValueSpec).Names {
				if v, ok := info.Defs[id].(*types.Var); ok && id.Name != "_" {
					specs = append(specs, id.Name+" "+r.ctx.typeText(v.Type(), nil))
				}
			}
		}
		text := ""
		if len(specs) > 0 {
			text = "var (" + strings.Join(specs, "; ") + ")"
		}
		r.replaceNode(g, text)
		if g.End() > last.End() {
			last = g
		}
	}
	r.insert(r.off(last.End()), "\n"+r.initFunc(body.String()))
}
