package lower

import (
	"fmt"
	"go/ast"
	"go/types"
	"strings"
)

// funcReturn lowers `return g`, g a function the session declares and the
// result a func type, into a return of a function literal that calls g:
// yaegi v0.16.1 sets the result to g's node ("reflect.Set: value of type
// *interp.node is not assignable to type func()").
func (r *rewriter) funcReturn(n *ast.ReturnStmt) {
	f := r.fn()
	if f.sig == nil || len(n.Results) != f.sig.Results().Len() || len(f.rf) > 0 {
		return
	}
	for i, e := range n.Results {
		sig, ok := substType(f.sig.Results().At(i).Type(), r.subst).Underlying().(*types.Signature)
		if !ok || !r.declaredFunc(e) {
			continue
		}
		r.replaceNode(e, r.funcWrapper(sig, r.nodeText(e)))
	}
}

// declaredFunc reports whether e names a function of the session (not of
// an imported package, whose functions are Go values), or an instance of a
// generic one.
func (r *rewriter) declaredFunc(e ast.Expr) bool {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.IndexExpr:
		e = x.X
	case *ast.IndexListExpr:
		e = x.X
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	fn, ok := r.code.info.Uses[id].(*types.Func)
	return ok && r.ctx.chk.local(fn.Pkg()) && fn.Type().(*types.Signature).Recv() == nil
}

// funcWrapper is a function literal of signature sig that calls fn.
func (r *rewriter) funcWrapper(sig *types.Signature, fn string) string {
	var params, args, results []string
	for i := range sig.Params().Len() {
		name := fmt.Sprintf("ʟa%d", i)
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			params = append(params, name+" ..."+r.ctx.typeText(t.(*types.Slice).Elem(), r.subst))
			args = append(args, name+"...")
			continue
		}
		params = append(params, name+" "+r.ctx.typeText(t, r.subst))
		args = append(args, name)
	}
	for i := range sig.Results().Len() {
		results = append(results, r.ctx.typeText(sig.Results().At(i).Type(), r.subst))
	}
	call := fn + "(" + strings.Join(args, ", ") + ")"
	res := ""
	switch len(results) {
	case 0:
	case 1:
		res = " " + results[0]
		call = "return " + call
	default:
		res = " (" + strings.Join(results, ", ") + ")"
		call = "return " + call
	}
	return "func(" + strings.Join(params, ", ") + ")" + res + " { " + call + " }"
}
