package lower

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// A struct that embeds an interface of a standard package (`struct{
// error; code int }`, `struct{ sort.Interface }`, `struct{ io.Writer }`)
// gets no methods from it in yaegi v0.16.1: put in an interface it fails
// with "method not found: Error", or its declaration with "reflect:
// StructOf does not support methods of embedded interfaces". ifacePromote
// writes the promoted methods out after the type's declaration, each
// calling the field's: `func (ʟr T) Error() string { return
// ʟr.error.Error() }`. yaegi keeps the first declaration of a method, so a
// later cell that declares one of them is refused (promotedLater); in the
// type's own cell the declared method wins, as in Go.

// ifacePromote writes the forwarding methods of the types g declares at
// the cell's top level.
func (r *rewriter) ifacePromote(g *ast.GenDecl) {
	if g.Tok != token.TYPE {
		return
	}
	var b strings.Builder
	for _, sp := range g.Specs {
		ts := sp.(*ast.TypeSpec)
		tn, ok := r.code.info.Defs[ts.Name].(*types.TypeName)
		if !ok || ts.TypeParams != nil || ts.Assign.IsValid() || tn.Pkg() == nil || tn.Parent() != tn.Pkg().Scope() {
			continue
		}
		named, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		st, ok := named.Underlying().(*types.Struct)
		if !ok {
			continue
		}
		typ := tn.Name()
		if n, ok := r.ctx.redefinedName(tn); ok {
			typ = n // see redefine.go
		}
		for i := range st.NumFields() {
			f := st.Field(i)
			if !f.Embedded() || !r.compiledIface(f.Type()) {
				continue
			}
			it := f.Type().Underlying().(*types.Interface)
			for j := range it.NumMethods() {
				m := it.Method(j)
				obj, index, _ := types.LookupFieldOrMethod(named, false, tn.Pkg(), m.Name())
				if obj == nil || len(index) != 2 || index[0] != i || !m.Exported() {
					continue // declared on the type, shadowed, or ambiguous
				}
				b.WriteString("\n" + r.forwardMethod(typ, f.Name(), m))
				r.ctx.added = append(r.ctx.added, forwardKey(named, m.Name())) // committed with the cell

			}
		}
	}
	if b.Len() > 0 {
		r.insert(r.off(g.End()), b.String())
	}
}

// forwardMethod is the declaration of m on type typ calling field's m.
func (r *rewriter) forwardMethod(typ, field string, m *types.Func) string {
	sig := m.Type().(*types.Signature)
	var params, args []string
	for i := range sig.Params().Len() {
		name := "ʟa" + strconv.Itoa(i)
		pt := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			params = append(params, name+" ..."+r.ctx.typeText(pt.(*types.Slice).Elem(), nil))
			args = append(args, name+"...")
			continue
		}
		params = append(params, name+" "+r.ctx.typeText(pt, nil))
		args = append(args, name)
	}
	var results []string
	for i := range sig.Results().Len() {
		results = append(results, r.ctx.typeText(sig.Results().At(i).Type(), nil))
	}
	call := "ʟr." + field + "." + m.Name() + "(" + strings.Join(args, ", ") + ")"
	if len(results) > 0 {
		call = "return " + call
	}
	return "func (ʟr " + typ + ") " + m.Name() + "(" + strings.Join(params, ", ") + ") (" + strings.Join(results, ", ") + ") { " + call + " }"
}

// forwardKey names, among the session's emitted declarations, the
// forwarding method name of named.
func forwardKey(named *types.Named, name string) string {
	return "ʟfwd_" + named.Obj().Name() + "." + name + "_" + shortHash(named.Underlying().String())
}

// refusePromoted refuses a method of a type of an earlier cell that the
// front end wrote as a forwarding method: the interpreter would keep the
// forwarding one.
func (s *Session) refusePromoted(chk *checked) error {
	c := chk.cur
	for _, d := range c.decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil {
			continue
		}
		fn, ok := chk.info.Defs[fd.Name].(*types.Func)
		if !ok {
			continue
		}
		t := fn.Type().(*types.Signature).Recv().Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		named, ok := types.Unalias(t).(*types.Named)
		if !ok || c.contains(named.Obj().Pos()) || !s.emitted[forwardKey(named, fd.Name.Name)] {
			continue
		}
		p := s.fset.Position(fd.Name.Pos())
		base := named.Obj().Name()
		return &Error{Line: p.Line, Col: p.Column, Msg: "method " + base + "." + fd.Name.Name +
			" is promoted from an embedded interface, and the interpreter keeps the promoted one: declare " + base + " again with its methods in one cell"}
	}
	return nil
}
