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
	vars := "" // zero variables where a parameter or result is named new
	shadowed := namesNew(ft)
	for _, f := range ft.Results.List {
		for _, n := range f.Names {
			names = append(names, n.Name)
			if shadowed {
				z := r.ctx.name("zero")
				vars += " var " + z + " " + r.nodeText(f.Type) + ";"
				zeros = append(zeros, z)
				continue
			}
			zeros = append(zeros, "*new("+r.nodeText(f.Type)+")")
		}
	}
	if len(names) == 0 {
		return
	}
	r.insert(r.off(body.Lbrace)+1, vars+" "+strings.Join(names, ", ")+" = "+strings.Join(zeros, ", ")+";")
}

// namesNew reports a parameter or result of ft named new: `func
// Swap(new *T) (old *T)`, where new(T) is not the builtin.
func namesNew(ft *ast.FuncType) bool {
	for _, l := range []*ast.FieldList{ft.Params, ft.Results} {
		if l == nil {
			continue
		}
		for _, f := range l.List {
			for _, n := range f.Names {
				if n.Name == "new" {
					return true
				}
			}
		}
	}
	return false
}
