package lower

import (
	"go/ast"
	"go/types"
	"strings"
)

// appendArgs evaluates the values of `append(s, a, b)` before anything is
// appended, as Go does, by passing them as one slice: `append(s, []T{a,
// b}...)`. yaegi v0.16.1 writes each value into s's spare capacity before it
// reads the next, so `append(s[:n-1], '5', s[n-1])` read back the '5' it had
// just written. Only calls with two values or more, one of which reads
// memory (an index, a dereference, a field), are changed.
func (r *rewriter) appendArgs(n *ast.CallExpr) {
	if n.Ellipsis.IsValid() || len(n.Args) < 3 || !r.callsBuiltin(n, "append") {
		return
	}
	reads := false
	for _, a := range n.Args[2:] {
		ast.Inspect(a, func(x ast.Node) bool {
			switch x.(type) {
			case *ast.IndexExpr, *ast.StarExpr, *ast.SelectorExpr, *ast.SliceExpr:
				reads = true
			}
			return !reads
		})
	}
	if !reads {
		return
	}
	st, ok := r.typeOf(n).Underlying().(*types.Slice)
	if !ok || isTypeParam(r.typeOf(n)) {
		return
	}
	vals := make([]string, len(n.Args)-1)
	for i, a := range n.Args[1:] {
		vals[i] = r.nodeText(a)
	}
	r.replaceNode(n, r.nodeText(n.Fun)+"("+r.nodeText(n.Args[0])+", []"+r.ctx.typeText(st.Elem(), r.subst)+"{"+strings.Join(vals, ", ")+"}...)")
}
