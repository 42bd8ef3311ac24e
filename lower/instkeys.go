package lower

import (
	"go/ast"
)

// instanceKeys keeps the keys of a map literal in a generic instance from
// becoming duplicate constants: `map[any]int{int(0): 0, T(0): 0}` is valid
// Go (T(0) is no constant in the generic code; at run time the later key
// wins), but its instance for T = int spells `int(0)` twice, which yaegi
// v0.16.1 refuses ("duplicate key"). A key converting a constant to a type
// parameter is written as a call, which yaegi does not compare.
func (r *rewriter) instanceKeys(lit *ast.CompositeLit) {
	if r.subst == nil {
		return
	}
	m, kvs := r.mapLiteral(lit)
	for _, kv := range kvs {
		call, ok := ast.Unparen(kv.Key).(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			continue
		}
		fun := r.code.info.Types[call.Fun]
		if !fun.IsType() || !isTypeParam(fun.Type) || r.code.info.Types[call.Args[0]].Value == nil {
			continue
		}
		k := r.ctx.typeText(m.Key(), r.subst)
		r.replaceNode(kv.Key, "func() "+k+" { return "+r.nodeText(kv.Key)+" }()")
	}
}
