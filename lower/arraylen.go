package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
)

// arrayLen writes the length of an array type spelled as a constant that
// is not an integer literal or a name (`[1e1]int`, `[len(s)]int` of a
// constant s) as its integer value: yaegi v0.16.1 refuses a float-spelled
// one ("10 not an Int").
func (r *rewriter) arrayLen(a *ast.ArrayType) {
	if a.Len == nil {
		return
	}
	switch l := a.Len.(type) {
	case *ast.Ellipsis, *ast.Ident:
		return
	case *ast.BasicLit:
		if l.Kind == token.INT {
			return
		}
	}
	tv := r.code.info.Types[a.Len]
	if tv.Value == nil {
		return
	}
	v := constant.ToInt(tv.Value)
	if v.Kind() != constant.Int {
		return
	}
	r.replaceNode(a.Len, v.ExactString())
}
