package lower

import (
	"go/ast"
	"strconv"
)

// blankFields names the blank fields of a struct type that has two or more
// of them: yaegi v0.16.1 builds its structs with reflect.StructOf, which
// refuses the duplicate name it gives them ("reflect.StructOf: duplicate
// field X_"). The names (ʟ_0, ʟ_1, ...) depend only on the field's place,
// so two identical struct types stay identical. What differs from Go:
// `==` and map keys compare these fields too (Go skips blank fields; they
// are zero unless an unkeyed literal sets them), and %+v and reflection
// show the names.
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
