package lower

import (
	"go/ast"
	"go/types"
)

// elidedAddr writes the &T that a composite literal elides in front of an
// element of pointer type (`[]*T{{1}}` is `[]*T{&T{1}}`): yaegi v0.16.1
// converts the elided literal's values to T itself when T is not a struct
// (`[10]*[4]int{{1}}`: "value of type int cannot be converted to type
// [4]int").
func (r *rewriter) elidedAddr(lit *ast.CompositeLit) {
	t := r.typeOf(lit)
	if t == nil {
		return
	}
	var key, elem types.Type
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	case *types.Map:
		key, elem = u.Key(), u.Elem()
	default:
		return
	}
	fix := func(e ast.Expr, t types.Type) {
		inner, ok := e.(*ast.CompositeLit)
		if !ok || inner.Type != nil {
			return
		}
		p, ok := substType(t, r.subst).Underlying().(*types.Pointer)
		if !ok {
			return
		}
		if _, isStruct := p.Elem().Underlying().(*types.Struct); isStruct {
			return // yaegi gets these right
		}
		r.insert(r.off(inner.Lbrace), "&"+r.ctx.typeExprText(p.Elem(), r.subst))
	}
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if key != nil {
				fix(kv.Key, key)
			}
			fix(kv.Value, elem)
			continue
		}
		fix(e, elem)
	}
}
