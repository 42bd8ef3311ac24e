package lower

import (
	"go/ast"
	"go/types"
)

// mapKey converts an untyped map index (nil, a constant) to the map's key
// type: yaegi v0.16.1 hands it to reflect as it is (`m[nil]` of a
// map[*T]int: "reflect.Value.MapIndex: value of type interface {} is not
// assignable to type *struct {...}").
//
// Not done: a map whose key is a non-empty interface. yaegi stores such a
// key as a box that differs per conversion site, so `m[k]` finds only what
// was stored through the same variable; converting the index does not help.
func (r *rewriter) mapKey(ix *ast.IndexExpr) {
	t := r.typeOf(ix.X)
	if t == nil {
		return
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok {
		return
	}
	r.convertKey(ix.Index, m.Key())
}

// mapLitKeys does the same for the keys of a map literal.
func (r *rewriter) mapLitKeys(lit *ast.CompositeLit) {
	m, kvs := r.mapLiteral(lit)
	for _, kv := range kvs {
		if _, elided := kv.Key.(*ast.CompositeLit); !elided {
			r.convertKey(kv.Key, m.Key())
		}
	}
}

// mapLiteral is the map type of lit and its keyed elements; none when lit
// is no map literal.
func (r *rewriter) mapLiteral(lit *ast.CompositeLit) (*types.Map, []*ast.KeyValueExpr) {
	t := r.typeOf(lit)
	if t == nil {
		return nil, nil
	}
	m, ok := t.Underlying().(*types.Map)
	if !ok {
		return nil, nil
	}
	var kvs []*ast.KeyValueExpr
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			kvs = append(kvs, kv)
		}
	}
	return m, kvs
}

func (r *rewriter) convertKey(k ast.Expr, key types.Type) {
	tv := r.code.info.Types[k]
	if tv.Type == nil || isTypeParam(key) {
		return
	}
	b, untyped := tv.Type.(*types.Basic)
	if !untyped || b.Info()&types.IsUntyped == 0 || types.IsInterface(key) {
		return // a concrete value for an interface key: see the comment above
	}
	key = substType(key, r.subst)
	r.replaceNode(k, r.ctx.typeExprText(key, r.subst)+"("+r.nodeText(k)+")")
}

// deleteKey does the same for the key of delete(m, k).
func (r *rewriter) deleteKey(call *ast.CallExpr) {
	if len(call.Args) != 2 || !r.callsBuiltin(call, "delete") {
		return
	}
	if t := r.typeOf(call.Args[0]); t != nil {
		if m, ok := t.Underlying().(*types.Map); ok {
			r.convertKey(call.Args[1], m.Key())
		}
	}
}
