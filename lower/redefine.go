package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// A type declared again by a later cell replaces the old one for the cells
// after it, as the type checker sees it: yaegi v0.16.1 keeps the first
// declaration of a type (later cells went on seeing the old fields, the
// old methods, the old literal), so the lowering hands it every
// declaration after the first under a name of its own, ʟP_N_HASH (N the
// cell, HASH its text), and writes that name wherever the new type is
// meant: its uses, methods, conversions and the types the lowering writes.
// The first declaration keeps its name, so a session that never redeclares
// a type is unchanged; a replay of the same cells gives the same names.

// redefinedName returns the name yaegi knows a session's type by, when a
// cell redeclared it.
func (ctx *lowerCtx) redefinedName(obj *types.TypeName) (string, bool) {
	if obj == nil || obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || !ctx.chk.local(obj.Pkg()) {
		return "", false
	}
	if ctx.redefined == nil {
		ctx.redefined = redefinedTypes(ctx.s.cells, ctx.chk.cur)
	}
	n, ok := ctx.redefined[obj.Name()]
	return n, ok
}

// redefinedTypes maps the name of every type declared more than once to
// the name of its latest declaration.
func redefinedTypes(committed []*cell, cur *cell) map[string]string {
	seen := map[string]bool{}
	out := map[string]string{}
	visit := func(c *cell) {
		for _, d := range c.decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, sp := range g.Specs {
				ts := sp.(*ast.TypeSpec)
				name := ts.Name.Name
				if ts.TypeParams != nil || name == "_" {
					delete(out, name) // instances have names of their own
					continue
				}
				if seen[name] {
					out[name] = "ʟ" + name + "_" + strconv.Itoa(c.index) + "_" + shortHash(c.specText(ts))
				}
				seen[name] = true
			}
		}
	}
	for _, c := range committed {
		visit(c)
	}
	if cur != nil {
		visit(cur)
	}
	return out
}

// specText is the source of a declaration of the cell.
func (c *cell) specText(n ast.Node) string {
	from, to := c.offset(n.Pos()), c.offset(n.End())
	if from < 0 || to < from || to > len(c.src) {
		return ""
	}
	return string(c.src[from:to])
}

// redefinedIdent writes the yaegi name of a redeclared type where the cell
// names it.
func (r *rewriter) redefinedIdent(id *ast.Ident) {
	obj, ok := r.code.info.Defs[id].(*types.TypeName)
	if !ok {
		obj, ok = r.code.info.Uses[id].(*types.TypeName)
	}
	if !ok {
		return
	}
	if name, ok := r.ctx.redefinedName(obj); ok {
		r.replaceNode(id, name)
	}
}

// refuseMethodRedefinition refuses a method declared again for the same
// declaration of its type: yaegi keeps the first method, so the checker's
// new one would be half applied. Declaring the type again (with its
// methods) gives it a fresh start.
func (s *Session) refuseMethodRedefinition(c *cell) error {
	typeAt := map[string]int{}   // type name → cell of its latest declaration
	methodAt := map[string]int{} // "T.M" → cell of its latest declaration
	for _, old := range s.cells {
		for _, d := range old.decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				if d.Tok == token.TYPE {
					for _, sp := range d.Specs {
						typeAt[sp.(*ast.TypeSpec).Name.Name] = old.index
					}
				}
			case *ast.FuncDecl:
				if base := recvBase(d); base != "" {
					methodAt[base+"."+d.Name.Name] = old.index
				}
			}
		}
	}
	own := map[string]bool{} // types this cell declares: their methods start afresh
	for _, d := range c.decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				own[sp.(*ast.TypeSpec).Name.Name] = true
			}
		}
	}
	for _, d := range c.decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		base := recvBase(fd)
		if base == "" || own[base] {
			continue
		}
		if at, ok := methodAt[base+"."+fd.Name.Name]; ok && at >= typeAt[base] {
			p := s.fset.Position(fd.Name.Pos())
			return &Error{Line: p.Line, Col: p.Column, Msg: "method " + base + "." + fd.Name.Name +
				" is already declared in this session, and the interpreter keeps the first: declare " + base + " again with its methods, or :reset"}
		}
	}
	return nil
}

// LastRedeclaresType reports whether the last committed cell declared a
// type an earlier cell had declared: the cells after it must all be lowered
// (they name the type by the name the lowering gave it).
func (s *Session) LastRedeclaresType() bool {
	if len(s.cells) < 2 {
		return false
	}
	own := map[string]bool{}
	for _, d := range s.cells[len(s.cells)-1].decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				own[sp.(*ast.TypeSpec).Name.Name] = true
			}
		}
	}
	if len(own) == 0 {
		return false
	}
	for _, c := range s.cells[:len(s.cells)-1] {
		for _, d := range c.decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, sp := range g.Specs {
					if own[sp.(*ast.TypeSpec).Name.Name] {
						return true
					}
				}
			}
		}
	}
	return false
}
