package lower

import (
	"go/ast"
	"go/types"
)

// rfLoop is a range-over-func loop being lowered.
type rfLoop struct {
	node *ast.RangeStmt
}

func (r *rewriter) isRangeFunc(n *ast.RangeStmt) bool {
	t := r.typeOf(n.X)
	if t == nil {
		return false
	}
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

func (r *rewriter) enterRangeFunc(n *ast.RangeStmt) {}
func (r *rewriter) rangeFunc(n *ast.RangeStmt)      {}
func (r *rewriter) branch(n *ast.BranchStmt)        {}
func (r *rewriter) returnStmt(n *ast.ReturnStmt)    {}
func (r *rewriter) deferStmt(n *ast.DeferStmt)      { r.deferArgs(n) }
