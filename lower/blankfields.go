package lower

import (
	"go/ast"
	"go/types"
	"strconv"
)

// blankFields names the blank fields of a struct type that has two or more
// of them: yaegi v0.16.1 builds its structs with reflect.StructOf, which
// refuses the duplicate name it gives them ("reflect.StructOf: duplicate
// field X_"). The names (ʟ_0, ʟ_1, ...) depend only on the field's place,
// so two identical struct types stay identical. What differs from Go:
// `==` and map keys compare these fields too (Go skips blank fields, which
// stay zero: blankFieldValues), and %+v and reflection show the names.
func (r *rewriter) blankFields(st *ast.StructType) {
	if st.Fields == nil {
		return
	}
	var blanks []*ast.Ident
	for _, f := range st.Fields.List {
		for _, n := range f.Names {
			if n.Name == "_" {
				blanks = append(blanks, n)
			}
		}
	}
	if len(blanks) < 2 {
		return
	}
	for i, n := range blanks {
		r.replaceNode(n, "ʟ_"+strconv.Itoa(i))
	}
}

// blankFieldValues writes the zero value for a blank field given a value
// by an unkeyed struct literal (`struct{ a, _, c int }{1, 2, 3}`): Go
// evaluates the value but stores nothing, so the field is always zero
// (reflection reads 0, and == and map keys do not see it); yaegi stored
// it. A constant is dropped; any other value is still evaluated.
func (r *rewriter) blankFieldValues(lit *ast.CompositeLit) {
	if len(lit.Elts) == 0 {
		return
	}
	if _, keyed := lit.Elts[0].(*ast.KeyValueExpr); keyed {
		return
	}
	t := r.typeOf(lit)
	if t == nil {
		return
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem() // an elided &T
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok || st.NumFields() != len(lit.Elts) {
		return
	}
	for i, x := range lit.Elts {
		f := st.Field(i)
		if f.Name() != "_" {
			continue
		}
		ft := r.ctx.typeText(f.Type(), r.subst)
		if r.code.info.Types[x].Value != nil {
			r.replaceNode(x, "*new("+ft+")")
			continue
		}
		r.replaceNode(x, "func() (ʟz "+ft+") { _ = "+r.nodeText(x)+"; return }()")
	}
}
