package lower

import (
	"go/ast"
	"go/types"
)

// A field that shadows a method promoted from an embedded field (`type TT
// struct{ T; m func() string }` with a method T.m) is refused by yaegi
// v0.16.1 at every use ("ambiguous selector: m"), where Go picks the
// shallower field. The lowering gives such a field its own name (ʟm),
// in its declaration, its selectors and composite literal keys. What is
// not kept: reflection and %+v show the new name, and the shadowed method
// is promoted again in yaegi (TT's method set has m).

// shadowsMethod reports whether field i of st has the name of a method
// promoted from one of st's embedded fields.
func shadowsMethod(st *types.Struct, i int) bool {
	f := st.Field(i)
	if f.Embedded() {
		return false
	}
	for j := range st.NumFields() {
		e := st.Field(j)
		if !e.Embedded() {
			continue
		}
		if obj, _, _ := types.LookupFieldOrMethod(e.Type(), true, f.Pkg(), f.Name()); obj != nil {
			if _, isMethod := obj.(*types.Func); isMethod {
				return true
			}
		}
	}
	return false
}

func shadowName(name string) string { return "ʟ" + name }

// shadowFieldDecl renames the shadowing fields of a struct type.
func (r *rewriter) shadowFieldDecl(n *ast.StructType) {
	st, ok := r.typeOf(n).(*types.Struct)
	if !ok || n.Fields == nil {
		return
	}
	i := 0
	for _, f := range n.Fields.List {
		if len(f.Names) == 0 {
			i++
			continue
		}
		for _, id := range f.Names {
			if i < st.NumFields() && shadowsMethod(st, i) {
				r.replaceNode(id, shadowName(id.Name))
			}
			i++
		}
	}
}

// shadowFieldUse renames x.f of a shadowing field f.
func (r *rewriter) shadowFieldUse(n *ast.SelectorExpr) {
	sel, ok := r.code.info.Selections[n]
	if !ok || sel.Kind() != types.FieldVal {
		return
	}
	t := sel.Recv()
	idx := sel.Index()
	for k, i := range idx {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return
		}
		if k == len(idx)-1 {
			if shadowsMethod(st, i) {
				r.replaceNode(n.Sel, shadowName(n.Sel.Name))
			}
			return
		}
		t = st.Field(i).Type()
	}
}

// shadowFieldKeys renames the keys of a struct literal that name
// shadowing fields.
func (r *rewriter) shadowFieldKeys(lit *ast.CompositeLit) {
	t := r.typeOf(lit)
	if t == nil {
		return
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		id, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		for i := range st.NumFields() {
			if st.Field(i).Name() == id.Name && shadowsMethod(st, i) {
				r.replaceNode(id, shadowName(id.Name))
			}
		}
	}
}
