package lower

import (
	"go/ast"
	"go/types"
	"reflect"
	"strconv"
)

// unhashableKey lowers the key of an index or delete of a map whose key
// type is an empty interface, when the key's own type is not comparable
// (a slice, map, function, or a struct or array holding one): Go panics
// hashing it ("hash of unhashable type []int", a runtime.Error), where
// yaegi v0.16.1, which keys such a map by its boxes, finds nothing or
// stores it. The key is still evaluated, then rt.Unhashable panics.
// Nothing changes where the key's type is comparable, so this costs
// nothing at run time.
func (r *rewriter) unhashableKey(m, key ast.Expr) {
	mt := r.typeOf(m)
	if mt == nil {
		return
	}
	mp, ok := mt.Underlying().(*types.Map)
	if !ok {
		return
	}
	if it, ok := mp.Key().Underlying().(*types.Interface); !ok || !it.Empty() || isTypeParam(mp.Key()) {
		return
	}
	kt := r.typeOf(key)
	if kt == nil || types.IsInterface(kt) || types.Comparable(kt) || r.code.info.Types[key].IsNil() {
		return
	}
	if a, ok := r.parent().(*ast.AssignStmt); ok && len(r.stack) >= 2 {
		for _, l := range a.Lhs {
			if l != r.stack[len(r.stack)-1] {
				continue
			}
			for _, v := range a.Rhs {
				if !sideEffectFree(v) {
					return // Go hashes a stored key after evaluating the right side
				}
			}
		}
	}
	name := types.TypeString(kt, func(p *types.Package) string { return p.Name() })
	r.replaceNode(key, r.ctx.qualify(rtPath)+".Unhashable("+strconv.Quote(name)+", "+r.nodeText(key)+")")
}

// mapKeyIndex is unhashableKey for m[k] and delete(m, k).
func (r *rewriter) mapKeyIndex(n ast.Node) {
	switch n := n.(type) {
	case *ast.IndexExpr:
		r.unhashableKey(n.X, n.Index)
	case *ast.CallExpr:
		if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) == 2 {
			if b, ok := r.code.info.Uses[id].(*types.Builtin); ok && b.Name() == "delete" {
				r.unhashableKey(n.Args[0], n.Args[1])
			}
		}
	}
}

// Unhashable is the panic of hashing a key of the type named name.
func Unhashable(name string, _ any) any {
	panic(RuntimeError{"hash of unhashable type " + name})
}

func init() {
	Runtime[rtPath+"/rt"]["Unhashable"] = reflect.ValueOf(Unhashable)
}
