package lower

import "go/ast"

// loopLit makes a func literal inside a loop body in a frame of its own:
// `func() T { return LIT }()`. yaegi keeps a literal's closure in a slot of
// the enclosing frame between making it and using it, and every call of
// that closure puts the slot's old value back when it returns. So when an
// earlier iteration's closure returns on another goroutine (`wg.Go(func()
// {...})`, `go run(func() {...})`, time.AfterFunc) between the next
// iteration's two steps, that iteration uses the earlier closure, or a nil
// one. A literal called where it stands is left alone: its call returns
// before the loop goes on (go statements: ownFrame).
func (r *rewriter) loopLit(lit *ast.FuncLit) {
	if r.calledInPlace() || !r.inLoopBody(lit) {
		return
	}
	r.insert(r.off(lit.Pos()), "func() "+r.nodeText(lit.Type)+" { return ")
	r.insert(r.off(lit.End()), " }()")
}

// calledInPlace reports whether the node on top of the stack is the callee
// of a call, or of a go or defer statement.
func (r *rewriter) calledInPlace() bool {
	child := r.stack[len(r.stack)-1]
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch p := r.stack[i].(type) {
		case *ast.ParenExpr:
			child = p
			continue
		case *ast.CallExpr:
			return p.Fun == child
		}
		return false
	}
	return false
}

// inLoopBody reports whether n, the node on top of the stack, is in the
// body of a for or range loop of the function it is written in.
func (r *rewriter) inLoopBody(n ast.Node) bool {
	for i := len(r.stack) - 2; i >= 0; i-- {
		switch p := r.stack[i].(type) {
		case *ast.FuncLit, *ast.FuncDecl:
			return false
		case *ast.ForStmt:
			if n.Pos() > p.Body.Lbrace {
				return true
			}
		case *ast.RangeStmt:
			if n.Pos() > p.Body.Lbrace {
				return true
			}
		}
	}
	return false
}
