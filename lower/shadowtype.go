package lower

import (
	"go/ast"
	"go/types"
)

// shadowType renames a type declared in a function whose name a
// package-level declaration also has (`type T [2]int` in a function, with
// a package `type T struct{ V int }`): yaegi v0.16.1 resolved composite
// literals and conversions of the local T to the package's ("too many
// values in struct literal"). The local type and its uses get a name of
// their own; a type embedded as a field keeps its name (it names the field).
func (r *rewriter) shadowType(id *ast.Ident) {
	obj, ok := r.code.info.Defs[id].(*types.TypeName)
	if !ok {
		obj, ok = r.code.info.Uses[id].(*types.TypeName)
	}
	if !ok || obj.Pkg() == nil || obj.Parent() == nil || obj.Parent() == obj.Pkg().Scope() || obj.Parent() == types.Universe {
		return
	}
	if _, tp := obj.Type().(*types.TypeParam); tp {
		return
	}
	name, ok := r.shadowNames[obj]
	if !ok {
		if obj.Pkg().Scope().Lookup(obj.Name()) != nil && !embeddedAnywhere(r.code.info, obj) {
			name = r.ctx.name(obj.Name() + "_")
		}
		if r.shadowNames == nil {
			r.shadowNames = map[*types.TypeName]string{}
		}
		r.shadowNames[obj] = name
	}
	if name != "" {
		r.replaceNode(id, name)
	}
}

// embeddedAnywhere reports whether a struct of the code embeds the type.
func embeddedAnywhere(info *types.Info, tn *types.TypeName) bool {
	for _, o := range info.Defs {
		v, ok := o.(*types.Var)
		if !ok || !v.Embedded() {
			continue
		}
		t := v.Type()
		if p, ok := t.(*types.Pointer); ok {
			t = p.Elem()
		}
		if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj() == tn {
			return true
		}
	}
	return false
}
