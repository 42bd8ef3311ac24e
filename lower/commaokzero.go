package lower

import (
	"go/ast"
	"go/token"
	"go/types"
)

// commaOKZero lowers `v, ok = m[k]` and `v, ok = x.(T)` (also with :=
// and var) whose v is a variable that already holds a value: on a miss
// yaegi v0.16.1 sets ok to false and leaves v as it was, where Go sets it
// to the zero value. A `:=` or var inside a loop reuses its variable in
// yaegi, so `if v, ok := m[k]; !ok` saw the last iteration's v. The two
// values come from a function literal instead, whose frame is new at each
// call. A definition outside any loop starts at zero: left as it is.
// (Top-level definitions are commaOK's, yaegifix.go.)
func (r *rewriter) commaOKZero(lhs []ast.Expr, rhs []ast.Expr, tok token.Token) {
	if len(lhs) != 2 || len(rhs) != 1 || isBlank(lhs[0]) {
		return
	}
	define := tok == token.DEFINE || tok == token.VAR
	if define && r.topLevel() {
		return
	}
	var valueType types.Type
	switch x := ast.Unparen(rhs[0]).(type) {
	case *ast.IndexExpr:
		mt := r.typeOf(x.X)
		if mt == nil {
			return
		}
		m, ok := mt.Underlying().(*types.Map)
		if !ok {
			return
		}
		valueType = m.Elem()
	case *ast.TypeAssertExpr:
		if x.Type == nil {
			return
		}
		valueType = r.typeOf(x.Type)
	default:
		return
	}
	if valueType == nil {
		return
	}
	if define && r.defines(lhs[0]) && !r.inLoop() {
		return
	}
	t := r.ctx.typeText(valueType, r.subst)
	if lt := r.typeOf(lhs[0]); lt != nil && !define && types.IsInterface(lt) && !types.Identical(lt, valueType) {
		// Converted in the literal, through a variable: yaegi assigned a
		// call's concrete result to an interface with reflect.Set, and
		// panicked.
		it := r.ctx.typeText(lt, r.subst)
		r.replaceNode(rhs[0], "func() ("+it+", bool) { ʟv, ʟok := "+r.nodeText(rhs[0])+"; var ʟi "+it+" = ʟv; return ʟi, ʟok }()")
		return
	}
	r.replaceNode(rhs[0], "func() ("+t+", bool) { ʟv, ʟok := "+r.nodeText(rhs[0])+"; return ʟv, ʟok }()")
}

// defines reports whether e is an identifier its statement declares.
func (r *rewriter) defines(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && r.code.info.Defs[id] != nil
}
