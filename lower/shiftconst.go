package lower

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
)

// constShiftCount writes the constant expressions of a shift count
// (`x << (uint16(3)>>2 & (1 - 0) & y)`) as their values: yaegi v0.16.1
// gives the untyped constants inside them the type of the shifted operand
// and refuses the mix ("mismatched types uint16 and int8"). A constant
// count is written untyped (only its value matters to a shift); a constant
// part of a count keeps the type go/types gave it.
func (r *rewriter) constShiftCount(op token.Token, y ast.Expr) {
	switch op {
	case token.SHL, token.SHR, token.SHL_ASSIGN, token.SHR_ASSIGN:
	default:
		return
	}
	ast.Inspect(y, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		switch ast.Unparen(e).(type) {
		case *ast.BasicLit, *ast.Ident:
			return false
		case *ast.FuncLit:
			return false
		}
		tv := r.code.info.Types[e]
		if tv.Value == nil {
			return true
		}
		if tv.Value.Kind() != constant.Int {
			return false
		}
		val := tv.Value.ExactString()
		if b, ok := tv.Type.(*types.Basic); e != y && (!ok || b.Info()&types.IsUntyped == 0) {
			val = r.ctx.typeText(tv.Type, r.subst) + "(" + val + ")"
		}
		r.replaceNode(e, val)
		return false
	})
}
