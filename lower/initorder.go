package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// initOrder makes the cell's package-level variables initialize in the
// order Go gives them (by dependency, go/types' InitOrder) where that is not
// their order in the source: yaegi v0.16.1 initializes them top to bottom,
// so `var n = f()` before `var called = false`, f setting called, left it
// false. The declarations lose their values, which one function, declared
// after all the cell's declarations, assigns in Go's order.
func (r *rewriter) initOrder(c *cell, info *types.Info) {
	specOf := map[*types.Var]*ast.ValueSpec{}
	var decls []*ast.GenDecl
	for _, d := range c.decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		decls = append(decls, g)
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, id := range vs.Names {
				if v, ok := info.Defs[id].(*types.Var); ok {
					specOf[v] = vs
				}
			}
		}
	}
	var inits []*types.Initializer
	for _, in := range info.InitOrder {
		if len(in.Lhs) == 0 || !c.contains(in.Lhs[0].Pos()) {
			continue
		}
		for _, v := range in.Lhs {
			if specOf[v] == nil {
				// a hoisted `x := e` of the cell's statements: the order is
				// the cell's (see varinitref.go)
				if r.hoistedRefs(c, decls) {
					r.initKeptOrder(c, info, decls)
				}
				return
			}
		}
		inits = append(inits, in)
	}
	earlier := r.namesEarlierVar(c, inits) // see varinitref.go
	if !earlier && sort.SliceIsSorted(inits, func(i, j int) bool { return inits[i].Lhs[0].Pos() < inits[j].Lhs[0].Pos() }) {
		return
	}
	// The values' text first: replacing a declaration drops the edits inside it.
	var body strings.Builder
	for _, in := range inits {
		names := make([]string, len(in.Lhs))
		for i, v := range in.Lhs {
			names[i] = v.Name()
		}
		body.WriteString(strings.Join(names, ", ") + " = " + r.nodeText(in.Rhs) + "; ")
	}
	for _, g := range decls {
		var specs []string
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, id := range vs.Names {
				v, ok := info.Defs[id].(*types.Var)
				if !ok || id.Name == "_" {
					continue
				}
				specs = append(specs, id.Name+" "+r.ctx.typeText(v.Type(), nil))
			}
		}
		text := ""
		if len(specs) > 0 {
			text = "var (" + strings.Join(specs, "; ") + ")"
		}
		r.replaceNode(g, text)
	}
	last := c.decls[len(c.decls)-1]
	for _, d := range c.decls {
		if d.End() > last.End() {
			last = d
		}
	}
	if earlier {
		r.insert(r.off(last.End()), "\n"+r.initFunc(body.String()))
		return
	}
	r.insert(r.off(last.End()), "\nvar _ = func() bool { "+body.String()+"return true }()")
}
