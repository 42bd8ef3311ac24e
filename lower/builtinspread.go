package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// builtinSpread lowers a builtin whose arguments are the results of one
// call (`copy(f())`, `append(g())`, `delete(h())`, `complex(p())`) into a
// function literal that takes the results first: `func() int { ʟs1, ʟs2 :=
// f(); return copy(ʟs1, ʟs2) }()`. yaegi v0.16.1 gives such a builtin one
// argument ("index out of range [2] with length 2" in its compiler).
func (r *rewriter) builtinSpread(n *ast.CallExpr) {
	if len(n.Args) != 1 || n.Ellipsis.IsValid() {
		return
	}
	id, ok := ast.Unparen(n.Fun).(*ast.Ident)
	if !ok {
		return
	}
	if _, ok := r.code.info.Uses[id].(*types.Builtin); !ok {
		return
	}
	inner, ok := ast.Unparen(n.Args[0]).(*ast.CallExpr)
	if !ok {
		return
	}
	tup, ok := r.code.info.TypeOf(inner).(*types.Tuple)
	if !ok || tup.Len() < 2 {
		return
	}
	names := make([]string, tup.Len())
	for i := range names {
		names[i] = r.ctx.name("s")
	}
	call := r.nodeText(n.Fun) + "(" + strings.Join(names, ", ") + ")"
	body := strings.Join(names, ", ") + " := " + r.nodeText(inner) + "; "
	res := r.typeOf(n)
	if t, ok := res.(*types.Tuple); res == nil || ok && t.Len() == 0 {
		r.replaceNode(n, "func() { "+body+call+" }()")
		return
	}
	r.replaceNode(n, "func() "+r.ctx.typeText(res, r.subst)+" { "+body+"return "+call+" }()")
}
