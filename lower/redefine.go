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
		ctx.redefined = ctx.s.index.redefinedTypes(ctx.chk.cur)
	}
	n, ok := ctx.redefined[obj.Name()]
	return n, ok
}

// redefinedTypes maps the name of every type declared more than once in
// the session and cur (nil: none) to the name of its latest declaration.
// The committed cells' part is kept in the index (addTypes).
func (x *sessionIndex) redefinedTypes(cur *cell) map[string]string {
	if cur == nil || !declaresType(cur) {
		return x.redefined
	}
	out := make(map[string]string, len(x.redefined))
	for k, v := range x.redefined {
		out[k] = v
	}
	visitTypes(cur, out, func(name string) bool { return x.typeSeen[name] }, func(string) {})
	return out
}

// addTypes records the type declarations of committed cell c.
func (x *sessionIndex) addTypes(c *cell) {
	visitTypes(c, x.redefined, func(name string) bool { return x.typeSeen[name] }, func(name string) { x.typeSeen[name] = true })
	for _, d := range c.decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, sp := range g.Specs {
				x.typeAt[sp.(*ast.TypeSpec).Name.Name] = c.index
			}
		}
	}
}

// visitTypes updates out (redefinedTypes) for the type declarations of c,
// seen telling the names declared before; saw is told each one declared
// that is not generic.
func visitTypes(c *cell, out map[string]string, seen func(string) bool, saw func(string)) {
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
			if seen(name) {
				out[name] = "ʟ" + name + "_" + strconv.Itoa(c.index) + "_" + shortHash(c.specText(ts))
			}
			saw(name)
		}
	}
}

// declaresType reports whether c has a type declaration.
func declaresType(c *cell) bool {
	for _, d := range c.decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			return true
		}
	}
	return false
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
	typeAt, methodAt := s.index.typeAt, s.index.methodAt
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
