package lower

import (
	"go/ast"
	"strings"
)

// zeroResults starts the body of a function with named results by setting
// them to their zero values: `func f() (r int) { r++; return r }`. yaegi
// v0.16.1 lets the call write its results straight into the variable the
// caller assigns them to, so the named results began as that variable's
// old value: after `x := 5; x = f()` x was 6, and `v := f()` in a loop
// counted up.
func (r *rewriter) zeroResults(ft *ast.FuncType, body *ast.BlockStmt) {
	if body == nil || ft.Results == nil {
		return
	}
	var names, zeros []string
	for _, f := range ft.Results.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
			zeros = append(zeros, "*new("+r.nodeText(f.Type)+")")
		}
	}
	if len(names) == 0 {
		return
	}
	r.insert(r.off(body.Lbrace)+1, " "+strings.Join(names, ", ")+" = "+strings.Join(zeros, ", ")+";")
}
